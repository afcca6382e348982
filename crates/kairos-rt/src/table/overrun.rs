//! Overrun injection for table-driven runs (issue 5, item 2: "Overruns are injected on request
//! (`--overrun TASK@JOB`, or seeded probability) by making a job run longer"; seed
//! `000_5feb7fca5a4f9943.txt`, section 6.1: a job that has not completed at the end of its
//! last interval in the current mode is a budget overrun).
//!
//! Every job's demand is fixed before the run: `C_i(0)` normally, `C_i(chi_i)` (or `C_i(l)` for
//! `TASK@JOB:LEVEL`) for an injected overrun. `JOB` counts the task's jobs from 0 since time 0,
//! across hyper-periods. Random overruns draw from a ChaCha8 generator seeded by the user, task
//! by task and job by job, so the same seed gives the same overruns on every machine.

use super::plan::{OverrunRequest, PlanTask};
use crate::periodic::RunError;
use std::str::FromStr;

/// One `TASK@JOB[:LEVEL]` request.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct OverrunSpec {
    /// `dag/task`.
    pub task: String,
    pub job: u64,
    /// A level name or index; `None` = the task's own criticality level.
    pub level: Option<String>,
}

impl FromStr for OverrunSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, String> {
        let usage = || format!("{text:?}: expected TASK@JOB or TASK@JOB:LEVEL, e.g. g/a@3:HI");
        let (task, rest) = text.split_once('@').ok_or_else(usage)?;
        let (job, level) = match rest.split_once(':') {
            Some((job, level)) if !level.is_empty() => (job, Some(level.to_string())),
            Some(_) => return Err(usage()),
            None => (rest, None),
        };
        if task.is_empty() {
            return Err(usage());
        }
        let job = job.parse().map_err(|_| usage())?;
        Ok(OverrunSpec {
            task: task.to_string(),
            job,
            level,
        })
    }
}

/// `demand[task][n]` in ns of CPU work for every job of a run of `duration` ns, already scaled
/// by the request's work fraction.
pub fn demands(
    tasks: &[PlanTask],
    duration: u64,
    request: &OverrunRequest,
    levels: &[String],
) -> Result<Vec<Vec<u64>>, RunError> {
    if !(0.0..=1.0).contains(&request.probability) {
        return Err(RunError::Invalid(format!(
            "overrun probability {} is not in [0, 1]",
            request.probability
        )));
    }
    if !(request.work_fraction > 0.0 && request.work_fraction <= 1.0) {
        return Err(RunError::Invalid(format!(
            "work fraction {} is not in (0, 1]",
            request.work_fraction
        )));
    }
    let mut rng = kairos_gen::rng::seeded(request.seed);
    let mut demand: Vec<Vec<u64>> = tasks
        .iter()
        .map(|t| {
            (0..duration / t.period)
                .map(|_| {
                    let overrun = request.probability > 0.0
                        && t.criticality > 0
                        && kairos_gen::rng::unit_f64(&mut rng) < request.probability;
                    t.wcet[if overrun { t.criticality } else { 0 }]
                })
                .collect()
        })
        .collect();
    for spec in &request.jobs {
        let (task, level) = resolve(spec, tasks, levels)?;
        let slot = demand[task].get_mut(spec.job as usize).ok_or_else(|| {
            RunError::Invalid(format!(
                "--overrun {}@{}: the run has only {} job(s) of that task",
                spec.task,
                spec.job,
                duration / tasks[task].period
            ))
        })?;
        *slot = tasks[task].wcet[level];
    }
    for per_task in &mut demand {
        for d in per_task.iter_mut() {
            *d = (*d as f64 * request.work_fraction).round() as u64;
        }
    }
    Ok(demand)
}

/// The task index and the level whose WCET the overrunning job demands.
fn resolve(
    spec: &OverrunSpec,
    tasks: &[PlanTask],
    levels: &[String],
) -> Result<(usize, usize), RunError> {
    let task = tasks
        .iter()
        .position(|t| t.name == spec.task)
        .ok_or_else(|| {
            let names: Vec<&str> = tasks.iter().map(|t| t.name.as_str()).collect();
            RunError::Invalid(format!(
                "--overrun {}: no such task (tasks: {})",
                spec.task,
                names.join(", ")
            ))
        })?;
    let own = tasks[task].criticality;
    let level = match &spec.level {
        None => own,
        Some(name) => levels
            .iter()
            .position(|l| l == name)
            .or_else(|| name.parse().ok())
            .ok_or_else(|| {
                RunError::Invalid(format!(
                    "--overrun {}@{}:{name}: no such level (levels: {})",
                    spec.task,
                    spec.job,
                    levels.join(", ")
                ))
            })?,
    };
    if level > own {
        return Err(RunError::Invalid(format!(
            "--overrun {}@{}: the task has no WCET above its own level {}",
            spec.task,
            spec.job,
            levels.get(own).map_or("?", String::as_str)
        )));
    }
    Ok((task, level))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tasks() -> Vec<PlanTask> {
        vec![
            PlanTask {
                name: "g/hi".into(),
                criticality: 1,
                wcet: vec![100, 300],
                period: 1000,
                deadline: 1000,
            },
            PlanTask {
                name: "g/lo".into(),
                criticality: 0,
                wcet: vec![200],
                period: 500,
                deadline: 500,
            },
        ]
    }

    fn levels() -> Vec<String> {
        vec!["LO".into(), "HI".into()]
    }

    fn request() -> OverrunRequest {
        OverrunRequest::default()
    }

    #[test]
    fn parses_specs() {
        let spec: OverrunSpec = "g/a@3:HI".parse().unwrap();
        assert_eq!(spec.task, "g/a");
        assert_eq!(spec.job, 3);
        assert_eq!(spec.level.as_deref(), Some("HI"));
        assert_eq!("g/a@0".parse::<OverrunSpec>().unwrap().level, None);
        for bad in ["g/a", "@1", "g/a@x", "g/a@1:"] {
            assert!(bad.parse::<OverrunSpec>().is_err(), "{bad}");
        }
    }

    #[test]
    fn explicit_overruns_demand_the_higher_wcet() {
        let mut r = request();
        r.jobs = vec!["g/hi@1".parse().unwrap(), "g/hi@2:0".parse().unwrap()];
        let d = demands(&tasks(), 3000, &r, &levels()).unwrap();
        assert_eq!(d[0], vec![100, 300, 100]);
        assert_eq!(d[1], vec![200; 6]);
    }

    #[test]
    fn bad_requests_are_explained() {
        let mut r = request();
        r.jobs = vec!["g/lo@0:HI".parse().unwrap()];
        assert!(demands(&tasks(), 3000, &r, &levels()).is_err());
        r.jobs = vec!["g/hi@9".parse().unwrap()];
        let e = demands(&tasks(), 3000, &r, &levels())
            .unwrap_err()
            .to_string();
        assert!(e.contains("only 3 job"), "{e}");
        r.jobs = vec!["g/x@0".parse().unwrap()];
        assert!(demands(&tasks(), 3000, &r, &levels()).is_err());
    }

    #[test]
    fn random_overruns_follow_the_seed_and_spare_low_tasks() {
        let mut r = request();
        r.probability = 0.5;
        r.seed = 7;
        let a = demands(&tasks(), 100_000, &r, &levels()).unwrap();
        let b = demands(&tasks(), 100_000, &r, &levels()).unwrap();
        assert_eq!(a, b);
        let overruns = a[0].iter().filter(|&&d| d == 300).count();
        assert!((20..=80).contains(&overruns), "{overruns} of 100");
        assert!(a[1].iter().all(|&d| d == 200));
        r.seed = 8;
        assert_ne!(demands(&tasks(), 100_000, &r, &levels()).unwrap(), a);
    }

    #[test]
    fn work_fraction_scales_every_job() {
        let mut r = request();
        r.work_fraction = 0.5;
        let d = demands(&tasks(), 1000, &r, &levels()).unwrap();
        assert_eq!(d[0], vec![50]);
    }
}
