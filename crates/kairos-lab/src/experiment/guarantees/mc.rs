//! The mixed-criticality family of the guarantees study: a system of MC-DAGs drawn at the
//! point's utilization (`kairos_gen::mcdag`, the MC-DAG framework's generator), judged by
//! whether GMH-MC-DAG builds its time-triggered tables (Medina, Borde, Pautet, "Scheduling
//! multi-periodic mixed-criticality DAGs on multi-core architectures", RTSS 2018; for tables
//! synthesis is the test), ideally and for the system whose WCETs pay the slot guard of the
//! profile (`kairos_analysis::overheads::tables`, what `kairos synth --overheads` charges).
//! Accepted tables run on this machine's cores on kairos's table dispatcher, as G-MCRES runs them
//! (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed
//! criticality systems", sections 5-6): the guarded tables when they exist, each job's body
//! executing its whole level-0 WCET, no overrun injected.
//!
//! With no overrun asked, every raise of the mode is the tables' promise broken: the jobs it
//! discards count as misses, each with the cause of the overrun that raised it (`host` when the
//! stalls inside the overrunning job's own intervals took more than the room its budget left
//! over its work); deadline misses are attributed as every run's, against the tables'
//! simulation.

use super::family::Sets;
use super::set::{self, Counts, Execution, Judged, Setup};
use kairos_analysis::overheads::tables::guard;
use kairos_analysis::overheads::Charges;
use kairos_gen::mcdag::{generate_mcdag, McDagParams};
use kairos_mc::{synthesize, SynthOptions};
use kairos_model::{Duration, Instant, McSystem, TableSet};
use kairos_policy::table::{TableExecModel, TablePlan};
use kairos_policy::JobId;
use kairos_rt::attribution::{lost_in, Cause, StallIndex};
use kairos_rt::calibrate::Calibration;
use kairos_rt::table::{run_tables_detailed, TableRun, TableRunConfig};
use kairos_rt::watchdog::RunControl;
use kairos_sim::table::{simulate_tables, TableSimConfig};

/// The family's name, as configs write it.
pub const NAME: &str = "mc-tables";

/// The test, as the study's tables name it.
pub const TESTS: &str = "GMH-MC-DAG synthesis (gedzl) ideal and with the slot guard";

/// Two DAGs of six tasks at two levels: with periods drawn in `[n / U, 10 n / U]` slots of
/// 1 ms among the divisors of 720, every hyper-period is at most 720 ms, so a run of a few
/// seconds sees several.
const DAGS: usize = 2;
const TASKS_PER_DAG: usize = 6;
const LEVELS: usize = 2;
const HYPERPERIOD_BASE: u64 = 720;

/// The system of utilization `utilization` (at every level) drawn from `seed`.
pub fn draw(sets: &Sets, seed: u64, utilization: f64) -> Result<McSystem, String> {
    let params = McDagParams {
        dags: DAGS,
        tasks: TASKS_PER_DAG,
        levels: LEVELS,
        utilization,
        cores: sets.cores,
        hyperperiod_base: Some(HYPERPERIOD_BASE),
        seed,
        ..McDagParams::default()
    };
    generate_mcdag(&params).map_err(|e| format!("MC-DAG generator: {e}"))
}

/// The system drawn from `seed`, judged and, when accepted, run.
pub fn judge(sets: &Sets, seed: u64, utilization: f64, setup: &Setup) -> Result<Judged, String> {
    let system = draw(sets, seed, utilization)?;
    let options = SynthOptions::default();
    let ideal = synthesize(&system, &options).ok();
    let charges = Charges::at(&setup.profile, setup.quantile);
    let aware = (guard(&system, sets.cores, &charges).ok())
        .and_then(|guarded| synthesize(&guarded.system, &options).ok());
    let judged = Judged {
        ideal: ideal.is_some(),
        aware: aware.is_some(),
        ran: None,
    };
    // The guarded tables when they exist: their guarantee is the one put to the test.
    let Some(synthesis) = aware.or(ideal) else {
        return Ok(judged);
    };
    let Execution::Real(calibration) = &setup.execution else {
        return Err(format!(
            "{NAME} runs on real cores only (execution = \"real\")"
        ));
    };
    let counts = on_cores(&system, &synthesis.tables, seed, setup, calibration)?;
    Ok(Judged {
        ran: Some(counts),
        ..judged
    })
}

/// A run of `tables` on the table dispatcher, its deadline misses attributed against the
/// tables' simulation and the jobs its mode changes discarded counted as misses.
fn on_cores(
    system: &McSystem,
    tables: &TableSet,
    seed: u64,
    setup: &Setup,
    calibration: &Calibration,
) -> Result<Counts, String> {
    set::stopped()?;
    let mut config = TableRunConfig::new(setup.duration.as_nanos());
    // The calibrated CPUs, named: what the first online CPUs are can change during a study.
    config.cpus = Some(calibration.per_core.iter().map(|c| c.cpu).collect());
    config.calibration = Some(calibration.clone());
    config.control = Some(RunControl::new());
    config.seed = seed;
    // Whole WCETs: the room for the dispatcher's costs is the guard's, not a margin of the run.
    config.work_fraction = 1.0;
    let mut run = run_tables_detailed(system, tables, &config).map_err(|e| e.to_string())?;
    set::stopped()?;
    let twin = TableSimConfig {
        duration: Some(Duration::from_nanos(run.result.duration_ns)),
        overruns: Vec::new(),
        overrun_probability: 0.0,
        seed,
        execution_times: TableExecModel::Wcet,
        record_trace: true,
        trace_bounds: Default::default(),
    };
    let simulated = simulate_tables(system, tables, &twin).map_err(|e| e.to_string())?;
    let trace = simulated.trace.ok_or("the simulation kept no trace")?;
    run.result.attribute_misses(Some(&trace));
    let plan = TablePlan::new(system, tables).map_err(|e| e.to_string())?;
    let (host, schedule) = discards_by_cause(&plan, &run);
    let mut counts = Counts::of(&run.result);
    counts.misses += host + schedule;
    counts.host += host;
    counts.schedule += schedule;
    Ok(counts)
}

/// The jobs the run discarded, counted by the cause of the raise that discarded each (the
/// latest at or before its instant, on the schedule's clock): `(host, schedule)`.
fn discards_by_cause(plan: &TablePlan, run: &TableRun) -> (u64, u64) {
    let index = StallIndex::new(&run.result.stall_intervals);
    let raises: Vec<(u64, Cause)> = (run.mode_changes.iter())
        .filter(|m| m.to > m.from)
        .filter_map(|m| {
            let trigger = *m.triggers.first()?;
            let cause = overrun_cause(plan, &index, m.from, trigger);
            Some((m.nominal, cause))
        })
        .collect();
    let mut counts = (0, 0);
    for at in run.result.jobs.iter().filter_map(|j| j.discarded) {
        let before = raises.partition_point(|&(nominal, _)| nominal <= at);
        match before.checked_sub(1).map(|i| raises[i].1) {
            Some(Cause::Host) => counts.0 += 1,
            _ => counts.1 += 1,
        }
    }
    counts
}

/// Why `job` overran its budget in the table of `level`: `host` when the stalls inside its
/// own intervals there, each on its core, took more than its budget less its work (its
/// level-0 WCET, whole); `schedule` otherwise: the dispatcher's own costs took the room. Only
/// the first overrunning job of a raise is asked (with two levels a raise has one cause).
fn overrun_cause(plan: &TablePlan, index: &StallIndex, level: usize, job: JobId) -> Cause {
    let task = &plan.tasks[job.task];
    let per_hyperperiod = plan.jobs_per_hyperperiod(job.task);
    let key = task.first_key + (job.number % per_hyperperiod) as usize;
    let offset = (job.number / per_hyperperiod) * plan.hyperperiod;
    let mut budget = Duration::ZERO;
    let mut lost = Duration::ZERO;
    for (core, slots) in plan.tables[level].by_core.iter().enumerate() {
        for slot in slots.iter().filter(|slot| slot.key == key) {
            let (start, end) = (offset + slot.start, offset + slot.end);
            budget += Duration::from_nanos(end - start);
            let window = (Instant::from_nanos(start), Instant::from_nanos(end));
            lost += lost_in(window, &[core], index);
        }
    }
    let room = budget.saturating_sub(Duration::from_nanos(task.wcet[0]));
    match lost > room {
        true => Cause::Host,
        false => Cause::Schedule,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_model::{Dag, McTask};
    use kairos_rt::stalls::Stall;

    fn ms(v: u64) -> Duration {
        Duration::from_millis(v)
    }

    /// One DAG of period 4 ms on one core: `a` (1 ms, 2 ms at HI), its ideal tables.
    fn plan() -> TablePlan {
        let system = McSystem {
            name: None,
            cores: 1,
            levels: vec!["LO".into(), "HI".into()],
            dags: vec![Dag {
                name: "g".into(),
                period: ms(4),
                deadline: ms(4),
                tasks: vec![McTask {
                    name: "a".into(),
                    wcet: vec![ms(1), ms(2)],
                }],
                edges: Vec::new(),
            }],
        };
        let tables = synthesize(&system, &SynthOptions::default()).expect("tables");
        TablePlan::new(&system, &tables.tables).expect("a plan")
    }

    fn stall(start_us: u64, length_us: u64) -> Stall {
        Stall {
            core: 0,
            start: Instant::from_nanos(start_us * 1000),
            length: Duration::from_micros(length_us),
            held: Duration::ZERO,
        }
    }

    #[test]
    fn an_overrun_is_the_hosts_only_when_stalls_inside_its_intervals_took_its_room() {
        let plan = plan();
        let slot = plan.tables[0].by_core[0][0];
        // The ideal LO budget is the 1 ms of work itself: no room at all.
        assert_eq!(slot.end - slot.start, 1_000_000);
        let job = |number| JobId { task: 0, number };
        let inside = stall(slot.start / 1000 + 100, 50);
        let index = StallIndex::new(&[inside]);
        assert_eq!(overrun_cause(&plan, &index, 0, job(0)), Cause::Host);
        // The same stall seen by the next hyper-period's job: outside its interval.
        assert_eq!(overrun_cause(&plan, &index, 0, job(1)), Cause::Schedule);
        // A stall between its intervals explains nothing.
        let after = StallIndex::new(&[stall(slot.end / 1000 + 10, 500)]);
        assert_eq!(overrun_cause(&plan, &after, 0, job(0)), Cause::Schedule);
        let moved = stall((slot.start + plan.hyperperiod) / 1000 + 100, 50);
        let index = StallIndex::new(&[moved]);
        assert_eq!(overrun_cause(&plan, &index, 0, job(1)), Cause::Host);
    }
}
