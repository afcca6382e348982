//! A mixed-criticality system's scheduling tables (given, or synthesized with GMH-MC-DAG)
//! executed as G-RES / G-MCRES do, with injected overruns and mode changes.

use super::{budget, checked_duration, Request, Simulation};
use crate::error::exit;
use crate::error::refuse;
use crate::input::read_text;
use crate::{Failure, Notify};
use kairos_mc::{synthesize, SynthOptions};
use kairos_model::{McSystem, TableSet};
use kairos_policy::PriorityOrder;
use kairos_sim::table::{simulate_tables, TableExecModel, TableSimConfig};
use kairos_sim::ExecutionTimeModel;
use std::path::Path;

pub(super) fn run(
    name: &str,
    mut system: McSystem,
    request: &Request,
    notify: Notify,
) -> Result<Simulation, Failure> {
    if let Some(policy) = request.policy.as_deref().filter(|p| *p != "table") {
        return Err(Failure::bad_input(format!(
            "{name} is a mixed-criticality system: it runs under --policy table (its scheduling tables), not {policy}"
        )));
    }
    let given = [
        (request.priorities != PriorityOrder::Auto, "--priorities"),
        (request.abort_on_miss, "--abort-on-miss"),
    ];
    let only = "applies to periodic workloads only: the table policy runs the tables as they are";
    refuse(&given, only)?;
    refuse(&request.overheads.given(), only)?;
    let duration = checked_duration(request.duration)?;
    if let Some(cores) = request.cores {
        override_mc_cores(&mut system, cores)?;
    }
    let (tables, source) = tables_for(&system, request.tables.as_deref())?;
    // The run covers one hyper-period when no duration is given (kairos_sim::table).
    let run_length = duration
        .or(system.hyperperiod())
        .unwrap_or(kairos_model::decode::MAX_DURATION);
    let periods = || (system.dags.iter()).flat_map(|d| d.tasks.iter().map(|_| d.period));
    let estimate = |span| budget::estimate_events(span, periods(), []);
    let config = TableSimConfig {
        duration,
        execution_times: match request.execution_times {
            ExecutionTimeModel::Uniform => TableExecModel::Uniform { min_fraction: 0.0 },
            _ => TableExecModel::Wcet,
        },
        overruns: request.overruns.clone(),
        overrun_probability: request.overrun_probability,
        seed: request.seed,
        record_trace: request.record_trace,
        trace_bounds: super::bounds(request, run_length, estimate, notify)?,
    };
    let mut outcome = simulate_tables(&system, &tables, &config)
        .map_err(|e| Failure::bad_input(e.to_string()))?;
    budget::end_sample(
        request.trace_scope,
        config.trace_bounds,
        outcome.trace.as_mut(),
    );
    Ok(Simulation::Tables {
        system,
        source,
        outcome,
    })
}

/// `system` on `cores` instead of its own.
pub fn override_mc_cores(system: &mut McSystem, cores: usize) -> Result<(), Failure> {
    let max = kairos_model::decode::MAX_CORES;
    if cores == 0 || cores > max {
        return Err(Failure::bad_input(format!(
            "--cores must be between 1 and {max}"
        )));
    }
    system.cores = cores;
    Ok(())
}

/// The tables in `path`, or GMH-MC-DAG's (G-EDZL slot priorities), with where they came from.
/// No schedule found is the answer "no" (exit 1), not bad input.
pub fn tables_for(system: &McSystem, path: Option<&Path>) -> Result<(TableSet, String), Failure> {
    if let Some(path) = path {
        let text = read_text(path)?;
        let tables = TableSet::from_json(&text)
            .map_err(|e| Failure::bad_input(format!("{}: {e}", path.display())))?;
        return Ok((tables, path.display().to_string()));
    }
    match synthesize(system, &SynthOptions::default()) {
        Ok(out) => Ok((
            out.tables,
            format!("synthesized with GMH-MC-DAG (gedzl), slot {}", out.slot),
        )),
        Err(e) if e.is_input_error() => {
            Err(Failure::bad_input(format!("cannot synthesize tables: {e}")))
        }
        Err(e) => Err(Failure {
            message: format!(
                "no tables to run: GMH-MC-DAG found no schedule ({e}); see `kairos synth`"
            ),
            code: exit::NO,
        }),
    }
}
