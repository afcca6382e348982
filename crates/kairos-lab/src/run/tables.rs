//! An MC system's tables on real cores: kairos's table dispatcher runs them as G-MCRES does
//! (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed
//! criticality systems", sections 5-6), detecting overruns and changing mode; the same tables,
//! overruns and seed simulated alongside when asked for.

use super::{lost_time, report_header, Dispatch, Request, Run};
use crate::text::human_ns;
use crate::Failure;
use kairos_model::{Duration, McSystem};
use kairos_os::{privilege, signals::StopSignals};
use kairos_policy::JobId;
use kairos_rt::dispatcher::ModeChangeRecord;
use kairos_rt::measure::RunResult;
use kairos_rt::periodic::RunError;
use kairos_rt::table::{run_tables_detailed, Raise, RaiseCause, TableRun, TableRunConfig};
use kairos_rt::watchdog::RunControl;
use kairos_sim::table::{simulate_tables, TableExecModel, TableSimConfig, TableSimOutcome};
use kairos_sim::ExecutionTimeModel;
use kairos_trace::TraceEvent;
use serde::Serialize;

pub(super) fn run(name: &str, mut system: McSystem, request: &Request) -> Result<Run, Failure> {
    match request.policy.as_deref() {
        None | Some("table") if request.dispatch == Some(Dispatch::Kernel) => {
            return Err(Failure::bad_input(
                "--policy table runs on kairos's table dispatcher (user space); the kernel has no table-driven policy",
            ))
        }
        None | Some("table") => {}
        Some(policy) => {
            return Err(Failure::bad_input(format!(
                "{name} is a mixed-criticality system: it runs under --policy table (its scheduling tables), not {policy}"
            )))
        }
    }
    if !request.commands.is_empty() {
        return Err(Failure::bad_input(
            "--command applies to periodic workloads: table-driven jobs are calibrated busy work",
        ));
    }
    if request.overheads.is_some() {
        return Err(Failure::bad_input(
            "--overheads applies to workloads and VM systems: a table run is compared with its tables' simulation, which charges no overheads",
        ));
    }
    if let Some(cores) = request.cores {
        crate::simulate::override_mc_cores(&mut system, cores)?;
    }
    let (tables, source) = crate::simulate::tables_for(&system, request.tables.as_deref())?;
    let mut config = TableRunConfig::new(request.duration.as_nanos());
    config.overruns = request.overruns.clone();
    config.overrun_probability = request.overrun_probability;
    config.seed = request.seed;
    config.execution_times = table_exec(request.execution_times);
    config.work_fraction = request.work_fraction;
    let control = RunControl::new();
    config.control = Some(control);
    privilege::require_rt().map_err(|e| Failure::environment(e.to_string()))?;
    let signals = StopSignals::install();
    let run = run_tables_detailed(&system, &tables, &config);
    drop(signals);
    let mut run = run.map_err(|e| match e {
        RunError::Invalid(text) => Failure::bad_input(text),
        RunError::Platform(p) => Failure::environment(p.to_string()),
    })?;
    let simulated = if request.simulate {
        let sim_config = TableSimConfig {
            duration: Some(Duration::from_nanos(run.result.duration_ns)),
            overruns: config.overruns.clone(),
            overrun_probability: config.overrun_probability,
            seed: config.seed,
            execution_times: config.execution_times,
            record_trace: true,
            trace_bounds: Default::default(),
        };
        Some(
            simulate_tables(&system, &tables, &sim_config)
                .map_err(|e| Failure::bad_input(e.to_string()))?,
        )
    } else {
        None
    };
    if let Some(trace) = simulated.as_ref().and_then(|s| s.trace.as_ref()) {
        run.attribute_misses(Some(trace));
    }
    let json = serde_json::to_value(JsonRun::of(&system, &run)).expect("run result serializes");
    let mut text = summary(&system, &run, &source);
    if let Some(sim) = &simulated {
        text.push_str(&comparison(&system, &run, sim));
    }
    Ok(Run {
        title: format!("{}: measured under table", system_name(&system)),
        workload: None,
        simulated: simulated.and_then(|s| s.trace),
        compare: None,
        json,
        text,
        result: run.result,
    })
}

/// The JSON of a table run: the common run result plus its mode changes and misses per level.
#[derive(Serialize)]
struct JsonRun<'a> {
    #[serde(flatten)]
    result: &'a RunResult,
    deadline_misses_per_level: Vec<(String, u64)>,
    mode_change_log: Vec<JsonModeChange>,
}

#[derive(Serialize)]
struct JsonModeChange {
    /// End of the overrunning job's last interval (ns since the start).
    nominal_ns: u64,
    detected_ns: u64,
    switch_done_ns: u64,
    from: String,
    to: String,
    task: String,
    job: u64,
    /// Why it rose: `asked`, `host` or `schedule` (`kairos_rt::table::cause`), with the
    /// evidence weighed.
    #[serde(skip_serializing_if = "Option::is_none")]
    cause: Option<RaiseCause>,
    #[serde(skip_serializing_if = "Option::is_none")]
    lacked_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stalled_ns: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    slowed_ns: Option<u64>,
}

impl<'a> JsonRun<'a> {
    fn of(system: &McSystem, run: &'a TableRun) -> Self {
        let level = |l: usize| system.levels.get(l).cloned().unwrap_or_default();
        JsonRun {
            result: &run.result,
            deadline_misses_per_level: system
                .levels
                .iter()
                .cloned()
                .zip(run.misses_per_level.iter().copied())
                .collect(),
            mode_change_log: raises(run)
                .map(|(m, job, raise)| JsonModeChange {
                    nominal_ns: m.nominal,
                    detected_ns: m.detected_at,
                    switch_done_ns: m.decided_at,
                    from: level(m.from),
                    to: level(m.to),
                    task: run.result.trace.task_names[job.task].clone(),
                    job: job.number,
                    cause: raise.map(|r| r.cause),
                    lacked_ns: raise.map(|r| r.lacked.as_nanos()),
                    stalled_ns: raise.map(|r| r.stalled.as_nanos()),
                    slowed_ns: raise.map(|r| r.slowed.as_nanos()),
                })
                .collect(),
        }
    }
}

/// The mode changes an overrun raised, each with its first overrunning job and the cause the
/// run found for it.
fn raises(run: &TableRun) -> impl Iterator<Item = (&ModeChangeRecord, JobId, Option<&Raise>)> {
    (run.mode_changes.iter()).filter_map(|m| {
        let job = *m.triggers.first()?;
        let raise = (run.raises.iter()).find(|r| (r.nominal, r.job) == (m.nominal, job));
        Some((m, job, raise))
    })
}

/// The cause of a raise in words, with the evidence weighed.
fn cause_text(raise: &Raise) -> String {
    let (lacked, stalled, slowed) = (
        human_ns(raise.lacked.as_nanos()),
        human_ns(raise.stalled.as_nanos()),
        human_ns(raise.slowed.as_nanos()),
    );
    let evidence = format!(
        "it lacked {lacked} of work; stalls in its intervals {stalled}, slowed core {slowed}"
    );
    match raise.cause {
        RaiseCause::Asked => "asked: its work exceeds its WCET at that level".into(),
        RaiseCause::Host => format!("the host's: {evidence}"),
        RaiseCause::Schedule => format!("the schedule's: {evidence}"),
    }
}

fn system_name(system: &McSystem) -> &str {
    system.name.as_deref().unwrap_or("system")
}

/// The readable report: counts, distributions, per-level misses and mode changes.
fn summary(system: &McSystem, run: &TableRun, source: &str) -> String {
    let r = &run.result;
    let under = format!("table (tables: {source})");
    let mut out = report_header(system_name(system), &under, r);
    out.push_str(&format!(
        "jobs: {} released, {} completed, {} discarded, {} deadline miss(es), {} migration(s), \
         {} mode change(s); /dev/cpu_dma_latency {}\n",
        r.jobs_released,
        r.jobs_completed,
        r.jobs_discarded,
        r.deadline_misses,
        r.migrations,
        r.mode_changes,
        if r.dma_latency_held {
            "held at 0"
        } else {
            "not held"
        }
    ));
    out.push_str(&lost_time(r));
    for (name, h) in &r.histograms {
        out.push_str(&format!("{name:<38} {}\n", h.summary.display_us()));
    }
    out.push_str(&mode_changes(system, run));
    for note in &r.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

/// Each mode change of the run with the job that raised it and its cause, a line or two each.
pub fn mode_changes(system: &McSystem, run: &TableRun) -> String {
    let r = &run.result;
    let mut out = String::new();
    for (m, job, raise) in raises(run) {
        out.push_str(&format!(
            "mode change {} -> {} at {} (detected {} after the end of {}#{}'s budget)\n",
            system.levels[m.from],
            system.levels[m.to],
            human_ns(m.detected_at),
            human_ns(m.detected_at.saturating_sub(m.nominal)),
            r.trace.task_names[job.task],
            job.number
        ));
        if let Some(raise) = raise {
            out.push_str(&format!("  cause: {}\n", cause_text(raise)));
        }
    }
    out
}

/// Measured and simulated side by side: the totals and every mode change.
fn comparison(system: &McSystem, run: &TableRun, sim: &TableSimOutcome) -> String {
    let r = &run.result;
    let m = &sim.metrics;
    let mut out = String::from("\nmeasured vs simulated (same tables, overruns and seed):\n");
    out.push_str(&format!(
        "{:<22} {:>10} {:>10}\n",
        "", "measured", "simulated"
    ));
    let raises = |events: &[TraceEvent]| -> Vec<(u64, usize, usize)> {
        events
            .iter()
            .filter_map(|e| match *e {
                TraceEvent::ModeChange { at, from, to } if to > from => {
                    Some((at.as_nanos(), from, to))
                }
                _ => None,
            })
            .collect()
    };
    let measured = raises(&r.trace.events);
    let simulated = sim
        .trace
        .as_ref()
        .map(|t| raises(&t.events))
        .unwrap_or_default();
    let rows = [
        ("jobs released", r.jobs_released, m.jobs_released),
        ("jobs completed", r.jobs_completed, m.jobs_completed),
        ("deadline misses", r.deadline_misses, m.deadline_misses),
        (
            "mode changes up",
            measured.len() as u64,
            simulated.len() as u64,
        ),
    ];
    for (what, measured, simulated) in rows {
        out.push_str(&format!("{what:<22} {measured:>10} {simulated:>10}\n"));
    }
    for i in 0..measured.len().max(simulated.len()) {
        let show = |v: Option<&(u64, usize, usize)>| {
            v.map_or("-".to_string(), |&(at, from, to)| {
                format!(
                    "{} {}->{}",
                    human_ns(at),
                    system.levels[from],
                    system.levels[to]
                )
            })
        };
        out.push_str(&format!(
            "{:<22} {:>20} {:>20}\n",
            format!("mode change {}", i + 1),
            show(measured.get(i)),
            show(simulated.get(i))
        ));
    }
    out
}

/// `--exec` for a table run: the level-0 WCET, or uniform in [1 ns, C(0)] as `kairos simulate
/// --tables --exec uniform` draws it.
fn table_exec(model: ExecutionTimeModel) -> TableExecModel {
    match model {
        ExecutionTimeModel::Uniform => TableExecModel::Uniform { min_fraction: 0.0 },
        _ => TableExecModel::Wcet,
    }
}
