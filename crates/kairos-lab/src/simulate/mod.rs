//! Simulation of any input kairos simulates: a periodic workload under a policy of
//! `kairos_policy::registry`, a mixed-criticality system's scheduling tables executed as
//! G-RES / G-MCRES do (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling
//! of mixed criticality systems", sections 5-6), or a VM system's two-level schedule (RT-Xen
//! 2.0's schedulers over the guests' own).

pub mod budget;
pub mod jobs;
mod periodic;
pub mod pictures;
mod tables;
mod vm;

pub use periodic::{override_cores, resolve_duration, run_policy, DEFAULT_DURATION_CAP};
pub use tables::{override_mc_cores, tables_for};

use crate::{Failure, Notify};
use kairos_model::input::{Input, SimsoRun};
use kairos_model::{Duration, McSystem, Overheads, VmSystem, Workload};
use kairos_policy::policies::hierarchical::VmPlan;
use kairos_policy::PriorityOrder;
use kairos_sim::table::{Overrun, TableSimOutcome};
use kairos_sim::vm::VmMetrics;
use kairos_sim::{ExecutionTimeModel, SimOutcome};
use kairos_trace::Trace;
use std::path::PathBuf;

/// What to simulate besides the input. Fields that do not apply to the input's kind are
/// refused when set (a policy for a VM system, overruns for a periodic workload, ...).
#[derive(Clone, Debug)]
pub struct Request {
    /// None: the input's default (`kairos_policy::registry::default_for`; `table` for an MC
    /// system; a VM system runs its `[vmm]`), or the policy a SimSo configuration names.
    pub policy: Option<String>,
    /// Cores instead of the file's.
    pub cores: Option<usize>,
    /// None: the feasibility interval, capped at [`DEFAULT_DURATION_CAP`] (a SimSo
    /// configuration's own duration when it names one).
    pub duration: Option<Duration>,
    pub seed: u64,
    pub execution_times: ExecutionTimeModel,
    pub priorities: PriorityOrder,
    pub abort_on_miss: bool,
    /// Keep the trace (for a Gantt chart, a Perfetto trace or per-job rows).
    pub record_trace: bool,
    /// What of the trace is needed, decided before the run within `max_events`.
    pub trace_scope: budget::TraceScope,
    /// The most events the trace may hold ([`budget::DEFAULT_MAX_TRACE_EVENTS`]).
    pub max_events: u64,
    pub overheads: OverheadRequest,
    /// MC systems: tables from this file instead of synthesized ones.
    pub tables: Option<PathBuf>,
    /// MC systems: injected overruns.
    pub overruns: Vec<Overrun>,
    /// MC systems: each job above the lowest level overruns with this probability.
    pub overrun_probability: f64,
}

impl Default for Request {
    fn default() -> Self {
        Request {
            policy: None,
            cores: None,
            duration: None,
            seed: 0,
            execution_times: ExecutionTimeModel::Wcet,
            priorities: PriorityOrder::Auto,
            abort_on_miss: false,
            record_trace: false,
            trace_scope: budget::TraceScope::Whole,
            max_events: budget::DEFAULT_MAX_TRACE_EVENTS,
            overheads: OverheadRequest::default(),
            tables: None,
            overruns: Vec::new(),
            overrun_probability: 0.0,
        }
    }
}

/// The overheads a periodic simulation charges: a profile (else the workload's own
/// `[overheads]`), with single costs fixed on top.
#[derive(Clone, Debug, Default)]
pub struct OverheadRequest {
    pub profile: Option<Overheads>,
    pub scheduling: Option<Duration>,
    pub context_switch: Option<Duration>,
    pub migration: Option<Duration>,
}

impl OverheadRequest {
    /// Each overhead option and whether it is set, for a kind that takes none.
    fn given(&self) -> [(bool, &'static str); 4] {
        [
            (self.profile.is_some(), "--overheads"),
            (self.scheduling.is_some(), "--overhead-scheduling"),
            (self.context_switch.is_some(), "--overhead-context-switch"),
            (self.migration.is_some(), "--overhead-migration"),
        ]
    }
}

/// A finished simulation, by input kind.
// One value per simulation, moved once: the variants' sizes do not matter.
#[allow(clippy::large_enum_variant)]
pub enum Simulation {
    Periodic {
        workload: Workload,
        outcome: SimOutcome,
    },
    Tables {
        system: McSystem,
        /// Where the tables came from (a file, or the synthesis and its slot).
        source: String,
        outcome: TableSimOutcome,
    },
    Vm {
        system: VmSystem,
        plan: VmPlan,
        outcome: SimOutcome,
        metrics: VmMetrics,
    },
}

impl Simulation {
    /// The metrics, as `kairos simulate --json` prints them.
    pub fn metrics_json(&self) -> serde_json::Value {
        let value = match self {
            Simulation::Periodic { outcome, .. } => serde_json::to_value(&outcome.metrics),
            Simulation::Tables { outcome, .. } => serde_json::to_value(&outcome.metrics),
            Simulation::Vm { metrics, .. } => serde_json::to_value(metrics),
        };
        value.expect("metrics serialize")
    }

    /// The trace, when the request kept it.
    pub fn trace(&self) -> Option<&Trace> {
        match self {
            Simulation::Periodic { outcome, .. } | Simulation::Vm { outcome, .. } => {
                outcome.trace.as_ref()
            }
            Simulation::Tables { outcome, .. } => outcome.trace.as_ref(),
        }
    }

    /// The report in text, as `kairos simulate` prints it.
    pub fn text(&self) -> String {
        match self {
            Simulation::Periodic { workload, outcome } => {
                crate::text::metrics_table(workload, &outcome.metrics)
            }
            Simulation::Tables {
                system,
                source,
                outcome,
            } => crate::text::table_summary(system, &outcome.metrics, source),
            Simulation::Vm { plan, metrics, .. } => format!(
                "{}\n{}",
                crate::text::metrics_table(&plan.workload, &metrics.totals),
                crate::text::vm_tables(metrics)
            ),
        }
    }

    /// The title of a chart or trace of the run, the file named `file` when the system has
    /// no name.
    pub fn title(&self, file: &std::path::Path) -> String {
        match self {
            Simulation::Periodic { workload, outcome } => format!(
                "{} under {}",
                workload.name.as_deref().unwrap_or("workload"),
                outcome.metrics.policy
            ),
            Simulation::Tables {
                system, outcome, ..
            } => format!(
                "{} under table ({} mode change(s))",
                system_name(system, file),
                outcome.metrics.mode_changes.len()
            ),
            Simulation::Vm { system, .. } => format!(
                "{} under {}",
                system.name.as_deref().unwrap_or("system"),
                crate::vm::vmm_name(system)
            ),
        }
    }

    pub fn deadline_misses(&self) -> u64 {
        match self {
            Simulation::Periodic { outcome, .. } => outcome.metrics.deadline_misses,
            Simulation::Tables { outcome, .. } => outcome.metrics.deadline_misses,
            Simulation::Vm { metrics, .. } => metrics.totals.deadline_misses,
        }
    }
}

/// Simulates `input` (named `name` in messages) as `request` asks. `simso` is the run a SimSo
/// configuration names, taken when the request names no policy.
pub fn simulate(
    name: &str,
    input: Input,
    simso: Option<&SimsoRun>,
    request: &Request,
    notify: Notify,
) -> Result<Simulation, Failure> {
    if !(0.0..=1.0).contains(&request.overrun_probability) {
        return Err(Failure::bad_input(
            "the overrun probability is between 0 and 1",
        ));
    }
    match input {
        Input::Workload(workload) => periodic::run(name, workload, simso, request, notify),
        Input::Mc(system) => tables::run(name, system, request, notify),
        Input::Vm(system) => vm::run(&system, request, notify),
        _ => Err(Failure::bad_input(format!(
            "{name}: only workloads, mixed-criticality and VM systems are simulated"
        ))),
    }
}

/// A duration the caller gave: above zero and within the model's maximum.
fn checked_duration(requested: Option<Duration>) -> Result<Option<Duration>, Failure> {
    let max = kairos_model::decode::MAX_DURATION;
    match requested {
        Some(d) if d.is_zero() => Err(Failure::bad_input("--duration must be greater than zero")),
        Some(d) if d > max => Err(Failure::bad_input(format!(
            "--duration exceeds the maximum {max}"
        ))),
        d => Ok(d),
    }
}

/// The bounds of the trace `request` asks for over a run of `duration` (none recorded: the
/// defaults, unused); `estimate` gives the events of a span.
fn bounds(
    request: &Request,
    duration: Duration,
    estimate: impl Fn(Duration) -> u64,
    notify: Notify,
) -> Result<kairos_sim::TraceBounds, Failure> {
    if !request.record_trace {
        return Ok(kairos_sim::TraceBounds::default());
    }
    let (scope, max) = (request.trace_scope, request.max_events);
    budget::trace_bounds(scope, duration, max, estimate, notify)
}

fn system_name(system: &McSystem, file: &std::path::Path) -> String {
    system.name.clone().unwrap_or_else(|| {
        file.file_stem()
            .map_or("system".into(), |s| s.to_string_lossy().into_owned())
    })
}
