//! Real runs on this machine's cores: a periodic workload under the kernel's policies
//! (SCHED_FIFO, SCHED_DEADLINE) or under kairos's user-space dispatcher hosting the very
//! policy object the simulator runs; an MC system's tables on the table dispatcher (G-MCRES);
//! a VM system's two levels on the dispatcher. Each run can be simulated alongside, with the
//! same draws, so a measured run and its simulation are compared job by job
//! ([`crate::compare`]). The runtime is `kairos_rt`; its safety rules are in `docs/run.md`.

#[cfg(test)]
mod fixture;
mod periodic;
mod prior;
mod seen;
mod tables;
mod text;
mod twins;
mod vm;

pub use tables::mode_changes;
pub use text::{lost_time, report_header, summary};
pub use twins::{outages_of, periodic_twins, weigh, Twins};

use crate::compare::Compare;
use crate::error::write_output;
use crate::simulate::budget;
use crate::simulate::pictures::{write_trace_files, TraceOutputs};
use crate::{Failure, Notify};
use kairos_model::input::{Input, InputKind};
use kairos_model::{Duration, Workload};
use kairos_os::PlatformError;
use kairos_policy::PriorityOrder;
use kairos_rt::measure::RunResult;
use kairos_rt::periodic::RunError;
use kairos_sim::table::Overrun;
use kairos_sim::ExecutionTimeModel;
use kairos_trace::gantt::{render_levels_svg, GanttOptions};
use kairos_trace::Trace;
use std::path::PathBuf;

/// The longest real run kairos accepts: every run holds real-time threads.
pub const MAX_RUN_DURATION: Duration = Duration::from_secs(60);

/// Who schedules the task threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dispatch {
    /// kairos's dispatcher, hosting the simulator's policy object.
    User,
    /// The kernel's SCHED_FIFO or SCHED_DEADLINE.
    Kernel,
}

/// How to run, besides the input.
#[derive(Clone, Debug)]
pub struct Request {
    /// None: the input's default (`kairos_policy::registry::default_for`).
    pub policy: Option<String>,
    /// None: the kernel for pfp, gfp and edf, kairos's dispatcher otherwise.
    pub dispatch: Option<Dispatch>,
    /// How much earlier than a release the dispatcher wakes up.
    pub lead: Duration,
    /// Imprecise tasks: optional deadlines this much earlier than the analysis sets them.
    pub od_margin: Duration,
    pub cores: Option<usize>,
    pub duration: Duration,
    pub priorities: PriorityOrder,
    /// `TASK=CMD`: the task's jobs run this shell command (kernel dispatch only).
    pub commands: Vec<String>,
    /// Simulate the same run too, for a comparison.
    pub simulate: bool,
    /// User dispatch: the overheads the comparison's simulation charges; `None`: measured on a
    /// short run of the same workload before the compared one.
    pub overheads: Option<kairos_model::Overheads>,
    /// The quantile the given `overheads` were cut at (`p99`, `p999`), if they were: the
    /// comparison then draws no cost above what an analysis at that quantile charges.
    pub overheads_cut_at: Option<&'static str>,
    /// MC systems: tables from this file instead of synthesized ones.
    pub tables: Option<PathBuf>,
    pub overruns: Vec<Overrun>,
    pub overrun_probability: f64,
    pub execution_times: ExecutionTimeModel,
    pub seed: u64,
    /// Table runs: the fraction of each job's demand its body executes.
    pub work_fraction: f64,
    /// The most events the run's trace may hold, estimated before it starts.
    pub max_events: u64,
}

/// A finished run: what was measured, its simulation when asked for, and the report in both
/// forms (the JSON and text kairos prints).
pub struct Run {
    /// "NAME: measured under POLICY", the title of charts of the run.
    pub title: String,
    pub result: RunResult,
    /// The workload the threads ran (periodic and VM runs), for the HTML page.
    pub workload: Option<Workload>,
    pub simulated: Option<Trace>,
    pub compare: Option<Compare>,
    pub json: serde_json::Value,
    pub text: String,
}

impl Run {
    /// Writes the Gantt chart (the measured schedule, over the simulated one when there is
    /// one) and the Perfetto trace of the measured schedule, where `outputs` asks; what was
    /// written.
    pub fn write_pictures(&self, outputs: &TraceOutputs) -> Result<Vec<String>, Failure> {
        let measured = &self.result.trace;
        let Some(simulated) = &self.simulated else {
            return write_trace_files(Some(measured), self.title.clone(), outputs);
        };
        let mut written = Vec::new();
        if let Some(path) = outputs.gantt {
            let options = GanttOptions {
                title: Some(self.title.clone()),
                ..outputs.view.clone()
            };
            let panels = [
                ("measured".to_string(), measured),
                ("simulated".to_string(), simulated),
            ];
            write_output(path, render_levels_svg(&panels, &options))?;
            written.push(format!("Gantt chart {}", path.display()));
        }
        let trace_only = TraceOutputs {
            gantt: None,
            view: outputs.view.clone(),
            trace: outputs.trace,
        };
        written.extend(write_trace_files(
            Some(measured),
            self.title.clone(),
            &trace_only,
        )?);
        Ok(written)
    }
}

/// Runs `input` (named `name` in messages, loaded as `kind`) for real as `request` asks.
pub fn run(
    name: &str,
    kind: InputKind,
    input: Input,
    request: &Request,
    notify: Notify,
) -> Result<Run, Failure> {
    check_duration(request.duration)?;
    check_events(&input, request)?;
    match input {
        Input::Vm(system) => vm::run(&system, request, notify),
        Input::Mc(system) => tables::run(name, system, request),
        Input::Workload(workload) => periodic::run(name, kind, workload, request, notify),
        _ => Err(Failure::bad_input(format!(
            "{name}: only workloads, mixed-criticality and VM systems run"
        ))),
    }
}

fn check_duration(duration: Duration) -> Result<(), Failure> {
    if duration.is_zero() {
        return Err(Failure::bad_input("--duration must be greater than zero"));
    }
    if duration > MAX_RUN_DURATION {
        return Err(Failure::bad_input(format!(
            "--duration {duration} is longer than the {MAX_RUN_DURATION} a real-time run may take (every run holds real-time threads on the machine's cores)"
        )));
    }
    Ok(())
}

/// Refuses a run whose trace would pass `request.max_events`, before any thread starts: a run
/// records every job and switch of its cores (and its comparison's simulation as many), so a
/// workload of microsecond periods would fill the memory long before its duration is up.
fn check_events(input: &Input, request: &Request) -> Result<(), Failure> {
    let span = request.duration;
    let events = match input {
        Input::Workload(w) => budget::estimate_events(span, w.tasks.iter().map(|t| t.period), []),
        Input::Mc(s) => {
            let periods = s.dags.iter().flat_map(|d| d.tasks.iter().map(|_| d.period));
            budget::estimate_events(span, periods, [])
        }
        Input::Vm(s) => {
            let tasks = s
                .domains
                .iter()
                .flat_map(|d| d.tasks.iter().map(|t| t.period));
            budget::estimate_events(span, tasks, vcpu_periods(s))
        }
        _ => 0,
    };
    if events <= request.max_events {
        return Ok(());
    }
    Err(Failure::bad_input(format!(
        "a real run of {span} would record about {events} events, more than the cap of {}: shorten --duration, or raise the cap with --max-events N",
        request.max_events
    )))
}

/// The VCPU periods of `system`: those given, and the VMM's period for a domain whose VCPUs
/// kairos sizes (at least one each).
fn vcpu_periods(system: &kairos_model::VmSystem) -> Vec<Duration> {
    let per_domain = |d: &kairos_model::vm::Domain| match &d.vcpus {
        Some(vcpus) => vcpus.iter().map(|v| v.period).collect(),
        None => vec![system.vmm.vcpu_period],
    };
    system.domains.iter().flat_map(per_domain).collect()
}

/// The machine refused what a run needs.
pub fn platform_failure(e: PlatformError) -> Failure {
    if e.is_environment() {
        Failure::environment(e.to_string())
    } else {
        Failure::environment(format!("the runtime could not start: {e}"))
    }
}

/// A run that could not be made: bad input, or the machine refused.
pub fn run_failure(e: RunError) -> Failure {
    match e {
        RunError::Platform(p) => platform_failure(p),
        RunError::Invalid(text) => Failure::bad_input(text),
    }
}

/// What a kind of run reports besides the common result: JSON fields and a text section.
#[derive(Default)]
struct Extra {
    fields: Vec<(&'static str, serde_json::Value)>,
    text: String,
}

/// The report of a run of `workload`'s threads: the result (its misses weighed against its
/// twins when there are: [`twins`]), its comparison with the simulation, then `extra`.
fn finish(workload: Workload, mut result: RunResult, twins: Option<Twins>, extra: Extra) -> Run {
    let simulated = twins.map(|twins| twins::weigh(&mut result, twins));
    let compare = (simulated.as_ref()).map(|sim| crate::compare::compare(&result.trace, sim));
    let mut json = serde_json::to_value(&result).expect("run result serializes");
    let map = json.as_object_mut().expect("a run result is an object");
    if let Some(c) = &compare {
        let value = serde_json::to_value(c).expect("comparison serializes");
        map.insert("compare".into(), value);
    }
    for (key, value) in extra.fields {
        map.insert(key.into(), value);
    }
    let mut text = summary(&workload, &result);
    if let (Some(sim), Some(c)) = (&simulated, &compare) {
        text.push_str(&crate::compare::job_by_job(&workload, &result.trace, sim));
        text.push_str(&c.line());
    }
    text.push_str(&extra.text);
    let name = workload.name.as_deref().unwrap_or("workload");
    Run {
        title: format!("{name}: measured under {}", result.policy),
        result,
        workload: Some(workload),
        simulated,
        compare,
        json,
        text,
    }
}
