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
//! discards count as misses, each with the cause of the overrun that raised it (`host` when
//! the host took at least the work the overrunning job still lacked, in stalls inside its own
//! intervals or as a core slowed under it, so that without the host it would have finished);
//! deadline misses, the overruns of jobs not above the mode, by the same rule
//! ([`kairos_rt::table::cause`]).

use super::family::Sets;
use super::set::{self, Counts, Execution, Judged, Kept, Setup};
use kairos_analysis::overheads::tables::guard;
use kairos_analysis::overheads::Charges;
use kairos_gen::mcdag::{generate_mcdag, McDagParams};
use kairos_mc::{synthesize, SynthOptions};
use kairos_model::{Duration, McSystem, TableSet};
use kairos_policy::table::TableExecModel;
use kairos_rt::calibrate::Calibration;
use kairos_rt::table::{run_tables_detailed, RaiseCause, TableRun, TableRunConfig};
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
        ..Judged::default()
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
    let (counts, evidence) = on_cores(&system, &synthesis.tables, seed, setup, calibration)?;
    Ok(judged.with_run(counts, true, || {
        let mut kept = kept(&system, &synthesis.tables, seed, setup);
        kept.files.push((set::EVIDENCE, evidence));
        kept
    }))
}

/// The system and the tables that ran, and the arguments that run them as the study did.
fn kept(system: &McSystem, tables: &TableSet, seed: u64, setup: &Setup) -> Kept {
    let tables = tables.to_json();
    Kept {
        files: vec![
            (".toml", kairos_model::mc_load::to_toml(system)),
            (".tables.json", tables),
        ],
        run_args: format!(
            "--policy table --tables {{stem}}.tables.json --work-fraction 1.0 --duration {} --seed {seed} --compare",
            setup.duration
        ),
    }
}

/// A run of `tables` on the table dispatcher, its deadline misses attributed against the
/// tables' simulation and the jobs its mode changes discarded counted as misses; with the
/// attribution's text and each mode change's cause.
fn on_cores(
    system: &McSystem,
    tables: &TableSet,
    seed: u64,
    setup: &Setup,
    calibration: &Calibration,
) -> Result<(Counts, String), String> {
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
    run.attribute_misses(Some(&trace));
    let (host, schedule) = discards_by_cause(&run);
    let mut counts = Counts::of(&run.result);
    counts.misses += host + schedule;
    counts.host += host;
    counts.schedule += schedule;
    let evidence = crate::run::lost_time(&run.result) + &crate::run::mode_changes(system, &run);
    Ok((counts, evidence))
}

/// The jobs the run discarded, counted by the cause of the raise that discarded each (the
/// latest at or before its instant, on the schedule's clock; [`kairos_rt::table::cause`]):
/// `(host, schedule)`. No overrun is asked of the study's runs, so an `asked` raise would be a
/// fault of the run's own, counted with the schedule's.
fn discards_by_cause(run: &TableRun) -> (u64, u64) {
    let raises = &run.raises;
    let mut counts = (0, 0);
    for at in run.result.jobs.iter().filter_map(|j| j.discarded) {
        let before = raises.partition_point(|r| r.nominal <= at);
        match before.checked_sub(1).map(|i| raises[i].cause) {
            Some(RaiseCause::Host) => counts.0 += 1,
            _ => counts.1 += 1,
        }
    }
    counts
}
