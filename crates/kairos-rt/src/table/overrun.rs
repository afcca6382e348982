//! Overrun injection for table-driven runs: on request (`--overrun TASK@JOB`, or a seeded
//! probability) a job runs longer than its budget (Pautet, Robert, Tardieu, "Litmus-RT plugins
//! for global static scheduling of mixed criticality systems", section 6.1: a job that has not
//! completed at the end of its last interval in the current mode is a budget overrun).
//!
//! Every job's work is drawn as the simulator draws it ([`kairos_policy::table::Demands`]):
//! `C_i(0)` normally; for `TASK@JOB` the WCET at the task's own level, for `TASK@JOB:LEVEL` at
//! that level, for `TASK@JOB=DURATION` exactly that; with a probability, a job of a task above
//! level 0 asks for its WCET at a level drawn uniformly from 1 to its own, from one ChaCha8
//! stream seeded by the user in release order. `JOB` counts the task's jobs from 0 since time
//! 0, across hyper-periods. Sharing the draw means a measured run and a simulated run with the
//! same seed execute the same demands.

use super::TableRunConfig;
use crate::periodic::RunError;
use kairos_policy::table::{job_demands, DemandSpec, Demands, TablePlan};

/// One `TASK@JOB[:LEVEL|=DURATION]` request (the simulator's syntax and type).
pub use kairos_policy::table::Overrun as OverrunSpec;

/// The draw of every job's work for a run of `duration` ns (whole hyper-periods), after
/// checking the request against the plan: known tasks and levels, jobs inside the run, a
/// probability and a work fraction in range.
pub fn demands(
    plan: &TablePlan,
    duration: u64,
    config: &TableRunConfig,
) -> Result<Demands, RunError> {
    let fraction = config.work_fraction;
    if !(fraction > 0.0 && fraction <= 1.0) {
        return Err(RunError::Invalid(format!(
            "work fraction {fraction} is not in (0, 1]"
        )));
    }
    Demands::new(plan, &spec(config), duration).map_err(|e| RunError::Invalid(e.to_string()))
}

/// What the run's config asks of the draws.
fn spec(config: &TableRunConfig) -> DemandSpec {
    DemandSpec {
        overruns: config.overruns.clone(),
        overrun_probability: config.overrun_probability,
        seed: config.seed,
        execution_times: config.execution_times,
    }
}

/// The work each job's body runs (`[task][job since time 0]`, ns) in a run of `duration` ns:
/// the draws of [`demands`] made again in release order, scaled by the work fraction as the
/// dispatcher scales them.
pub fn asked(
    plan: &TablePlan,
    duration: u64,
    config: &TableRunConfig,
) -> Result<Vec<Vec<u64>>, RunError> {
    let drawn =
        job_demands(plan, &spec(config), duration).map_err(|e| RunError::Invalid(e.to_string()))?;
    let scale = |work: u64| (work as f64 * config.work_fraction).round() as u64;
    Ok((drawn.into_iter())
        .map(|jobs| jobs.into_iter().map(scale).collect())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::scenarios;

    fn check(config: &TableRunConfig) -> Result<(), RunError> {
        let (system, tables) = scenarios::mode_change(2, 2, 1_000_000);
        let plan = TablePlan::new(&system, &tables).unwrap();
        demands(&plan, 3 * plan.hyperperiod, config).map(|_| ())
    }

    #[test]
    fn specs_use_the_simulators_syntax() {
        let spec: OverrunSpec = "g/hi@3:HI".parse().unwrap();
        assert_eq!((spec.task.as_str(), spec.job), ("g/hi", 3));
        assert!("g/hi@0=3ms".parse::<OverrunSpec>().is_ok());
        for bad in ["g/hi", "g/hi@x", "g/hi@1:"] {
            assert!(bad.parse::<OverrunSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn bad_requests_are_explained() {
        let mut config = TableRunConfig::new(0);
        config.overruns = vec!["mc/t0@2".parse().unwrap()];
        assert!(check(&config).is_ok());
        config.overruns = vec!["mc/t0@3".parse().unwrap()];
        let e = check(&config).unwrap_err().to_string();
        assert!(e.contains("only 3 job"), "{e}");
        config.overruns = vec!["mc/nope@0".parse().unwrap()];
        assert!(check(&config).is_err());
        config.overruns.clear();
        config.overrun_probability = 2.0;
        assert!(check(&config).is_err());
        config.overrun_probability = 0.0;
        config.work_fraction = 0.0;
        assert!(check(&config).is_err());
    }
}
