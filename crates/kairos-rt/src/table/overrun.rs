//! Overrun injection for table-driven runs: on request (`--overrun TASK@JOB`, or a seeded
//! probability) a job runs longer than its budget (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 6.1: a job that has not completed at the end of its
//! last interval in the current mode is a budget overrun).
//!
//! Every job's demand is fixed before the run by the draw the simulator makes
//! ([`kairos_policy::table::job_demands`]): `C_i(0)` normally; for `TASK@JOB` the WCET at the
//! task's own level, for `TASK@JOB:LEVEL` at that level, for `TASK@JOB=DURATION` exactly that;
//! with a probability, a job of a task above level 0 asks for its WCET at a level drawn
//! uniformly from 1 to its own, from one ChaCha8 stream seeded by the user in release order.
//! `JOB` counts the task's jobs from 0 since time 0, across hyper-periods. Sharing the draw
//! means a measured run and a simulated run with the same seed execute the same demands.

use super::plan::OverrunRequest;
use crate::periodic::RunError;
use kairos_policy::table::{job_demands, DemandSpec, TablePlan};

/// One `TASK@JOB[:LEVEL|=DURATION]` request (the simulator's syntax and type).
pub use kairos_policy::table::Overrun as OverrunSpec;

/// `demand[task][n]` in ns of CPU work for every job of a run of `duration` ns, indexed by the
/// plan's flat tasks, already scaled by the request's work fraction.
pub fn demands(
    table: &TablePlan,
    duration: u64,
    request: &OverrunRequest,
) -> Result<Vec<Vec<u64>>, RunError> {
    if !(request.work_fraction > 0.0 && request.work_fraction <= 1.0) {
        return Err(RunError::Invalid(format!(
            "work fraction {} is not in (0, 1]",
            request.work_fraction
        )));
    }
    let spec = DemandSpec {
        overruns: request.jobs.clone(),
        overrun_probability: request.probability,
        seed: request.seed,
        execution_times: request.execution_times,
    };
    let drawn =
        job_demands(table, &spec, duration).map_err(|e| RunError::Invalid(e.to_string()))?;
    for spec in &request.jobs {
        let task = table.tasks.iter().position(|t| t.name == spec.task);
        if let Some(jobs) = task.map(|task| drawn[task].len() as u64) {
            if spec.job >= jobs {
                return Err(RunError::Invalid(format!(
                    "--overrun {spec}: the run has only {jobs} job(s) of {}",
                    spec.task
                )));
            }
        }
    }
    let scale = |d: u64| (d as f64 * request.work_fraction).round() as u64;
    Ok(drawn
        .into_iter()
        .map(|jobs| jobs.into_iter().map(scale).collect())
        .collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::table::plan::tests::{small_system, small_tables};
    use crate::table::plan::Plan;

    fn demands_of(request: &OverrunRequest, duration: u64) -> Result<Vec<Vec<u64>>, RunError> {
        Plan::build(&small_system(), &small_tables(), duration, request).map(|p| p.demand)
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
    fn explicit_overruns_demand_the_higher_wcet() {
        let request = OverrunRequest {
            jobs: vec!["g/hi@1".parse().unwrap(), "g/hi@2=3ms".parse().unwrap()],
            ..OverrunRequest::default()
        };
        let d = demands_of(&request, 30_000_000).unwrap();
        assert_eq!(d[0], vec![2_000_000, 4_000_000, 3_000_000]);
        assert_eq!(d[1], vec![2_000_000; 3]);
    }

    #[test]
    fn bad_requests_are_explained() {
        let mut request = OverrunRequest {
            jobs: vec!["g/lo@0:HI".parse().unwrap()],
            ..OverrunRequest::default()
        };
        assert!(demands_of(&request, 30_000_000).is_err());
        request.jobs = vec!["g/hi@9".parse().unwrap()];
        let e = demands_of(&request, 30_000_000).unwrap_err().to_string();
        assert!(e.contains("only 3 job"), "{e}");
        request.jobs = vec!["g/x@0".parse().unwrap()];
        assert!(demands_of(&request, 30_000_000).is_err());
        request.jobs.clear();
        request.probability = 2.0;
        assert!(demands_of(&request, 30_000_000).is_err());
    }

    #[test]
    fn random_overruns_follow_the_seed_and_spare_low_tasks() {
        let mut request = OverrunRequest {
            probability: 0.5,
            seed: 7,
            ..OverrunRequest::default()
        };
        let a = demands_of(&request, 1_000_000_000).unwrap();
        assert_eq!(a, demands_of(&request, 1_000_000_000).unwrap());
        let overruns = a[0].iter().filter(|&&d| d == 4_000_000).count();
        assert!((20..=80).contains(&overruns), "{overruns} of 100");
        assert!(a[1].iter().all(|&d| d == 2_000_000));
        request.seed = 8;
        assert_ne!(demands_of(&request, 1_000_000_000).unwrap(), a);
    }

    #[test]
    fn work_fraction_scales_every_job() {
        let request = OverrunRequest {
            work_fraction: 0.5,
            ..OverrunRequest::default()
        };
        assert_eq!(
            demands_of(&request, 10_000_000).unwrap()[0],
            vec![1_000_000]
        );
    }
}
