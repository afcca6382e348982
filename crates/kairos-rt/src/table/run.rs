//! A whole table-driven run: the plan resolved from the system and its tables, the run rounded
//! up to whole hyper-periods, the jobs drawn with their overruns, and the table policy run by
//! the user-space dispatcher ([`crate::dispatcher::run_user_from`]), whose threads, watchdog,
//! memory locking and `/dev/cpu_dma_latency` guard every real run shares.

use super::overrun::{asked, demands};
use super::result::{build, TableRun};
use super::TableRunConfig;
use crate::dispatcher::{run_user_from, RunSource, UserRunConfig};
use crate::periodic::RunError;
use kairos_model::{McSystem, TableSet};
use kairos_policy::table::{TableJobs, TablePlan, TablePolicy};
use std::sync::Arc;

/// Runs `tables` of `system` for real (see [`super::run_tables`]) and returns the result with
/// the details tests and benchmarks look at.
pub fn run_tables_detailed(
    system: &McSystem,
    tables: &TableSet,
    config: &TableRunConfig,
) -> Result<TableRun, RunError> {
    let plan = TablePlan::new(system, tables).map_err(|e| RunError::Invalid(e.to_string()))?;
    let plan = Arc::new(plan);
    let h = plan.hyperperiod;
    let duration = (config.duration_ns.div_ceil(h).max(1))
        .checked_mul(h)
        .ok_or_else(|| RunError::Invalid("the run length overflows 64-bit ns".into()))?;
    let workload = plan.workload();
    if let Some(cpus) = &config.cpus {
        check_cpus(cpus.len(), plan.cores)?;
    } else {
        check_cpus(kairos_os::online_cpus().len(), plan.cores)?;
    }
    let source = RunSource {
        source: Box::new(TableJobs::new(
            Arc::clone(&plan),
            demands(&plan, duration, config)?,
        )),
        work_scale: config.work_fraction,
    };
    // The same draws again, for the causes of its raises ([`super::cause`]).
    let asked = asked(&plan, duration, config)?;
    let policy = Box::new(TablePolicy::new(Arc::clone(&plan)));
    let run = run_user_from(&workload, policy, source, &user_config(config, duration))?;
    Ok(build(plan, run, asked))
}

fn user_config(config: &TableRunConfig, duration: u64) -> UserRunConfig {
    UserRunConfig {
        duration_ns: duration,
        cpus: config.cpus.clone(),
        calibration: config.calibration.clone(),
        control: config.control.clone(),
        start_delay_ns: config.start_delay_ns,
        grace_ns: config.grace_ns,
        stall_ns: config.stall_ns,
        lead_ns: config.lead_ns,
        record_steps: config.record_steps,
        ..UserRunConfig::new(duration)
    }
}

fn check_cpus(available: usize, cores: usize) -> Result<(), RunError> {
    if available < cores {
        return Err(RunError::Invalid(format!(
            "the tables use {cores} cores but only {available} CPU(s) are available here; \
             synthesize for at most {available} cores or run on a bigger machine"
        )));
    }
    Ok(())
}
