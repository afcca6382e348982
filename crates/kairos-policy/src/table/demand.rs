//! How much work each job of a table run really has: the execution-time model for the nominal
//! case and the injected budget overruns (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 6.1: a job
//! overruns when it needs more than its WCET at the current mode).
//!
//! Random draws come from one ChaCha8 stream seeded by the run's seed, taken in release order
//! (by instant, then DAG, then task), so a seed gives the same run on every machine.

use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

use kairos_model::{parse_duration, Duration};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::plan::TablePlan;
use super::TableError;

/// The actual execution time of a job that does not overrun.
#[derive(Clone, Copy, Debug, PartialEq, Default)]
pub enum TableExecModel {
    /// Exactly the task's level-0 WCET `C(0)`: the nominal case, the run follows table 0.
    #[default]
    Wcet,
    /// Uniform in `[max(1 ns, ceil(min_fraction * C(0))), C(0)]` integer nanoseconds.
    Uniform { min_fraction: f64 },
}

/// How much an injected overrun asks for.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum OverrunDemand {
    /// The WCET at the task's own criticality level (the largest it declares).
    OwnLevel,
    /// The WCET at this level, by name (`HI`) or index (`1`); at most the task's own level.
    Level(String),
    /// Exactly this much work; more than the WCET at the task's own level exhausts its budget.
    Exactly(Duration),
}

/// One injected overrun: `TASK@JOB`, `TASK@JOB:LEVEL` or `TASK@JOB=DURATION`, where `TASK` is
/// `dag/task` and `JOB` counts the task's jobs from 0 since time 0 across hyper-periods.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Overrun {
    pub task: String,
    pub job: u64,
    pub demand: OverrunDemand,
}

impl FromStr for Overrun {
    type Err = String;

    fn from_str(text: &str) -> Result<Overrun, String> {
        let syntax = "expected TASK@JOB, TASK@JOB:LEVEL or TASK@JOB=DURATION (e.g. g1/a@0:HI)";
        let (task, rest) = text
            .rsplit_once('@')
            .ok_or_else(|| format!("{text:?}: {syntax}"))?;
        let split = rest.find([':', '=']).unwrap_or(rest.len());
        let (job, demand) = rest.split_at(split);
        let job = job
            .parse()
            .map_err(|_| format!("{text:?}: the job {job:?} is not a number; {syntax}"))?;
        let demand = match demand.split_at(demand.len().min(1)) {
            ("", _) => OverrunDemand::OwnLevel,
            (":", level) if !level.is_empty() => OverrunDemand::Level(level.to_string()),
            ("=", work) => {
                OverrunDemand::Exactly(parse_duration(work).map_err(|e| format!("{text:?}: {e}"))?)
            }
            _ => return Err(format!("{text:?}: {syntax}")),
        };
        if task.is_empty() {
            return Err(format!("{text:?}: no task name; {syntax}"));
        }
        Ok(Overrun {
            task: task.to_string(),
            job,
            demand,
        })
    }
}

impl fmt::Display for Overrun {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}@{}", self.task, self.job)?;
        match &self.demand {
            OverrunDemand::OwnLevel => Ok(()),
            OverrunDemand::Level(level) => write!(f, ":{level}"),
            OverrunDemand::Exactly(work) => write!(f, "={work}"),
        }
    }
}

/// What decides the work of every job of a table run: the execution-time model, the injected
/// overruns, the probability of a random overrun and the seed of every draw.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct DemandSpec {
    pub execution_times: TableExecModel,
    /// Injected overruns; an injection wins over the probability for its job.
    pub overruns: Vec<Overrun>,
    /// Each job of a task whose criticality is above the lowest level overruns with this
    /// probability; its work is then its WCET at a level drawn uniformly from 1 to its own.
    pub overrun_probability: f64,
    pub seed: u64,
}

/// The work in ns of every job released in `[0, duration)`, drawn in release order exactly as
/// a run draws them: `demands[task][n]` for job `n` (since time 0) of flat task `task`.
pub fn job_demands(
    plan: &TablePlan,
    spec: &DemandSpec,
    duration: u64,
) -> Result<Vec<Vec<u64>>, TableError> {
    let mut demands = Demands::new(plan, spec, duration)?;
    let mut work: Vec<Vec<u64>> = vec![Vec::new(); plan.tasks.len()];
    let (mut base, mut generation) = (0u64, 0u64);
    while base < duration {
        let releases = plan.instants.iter().filter(|&&rel| rel < plan.hyperperiod);
        for &rel in releases.take_while(|&&rel| base + rel < duration) {
            for dag in plan.dags.iter().filter(|d| rel.is_multiple_of(d.period)) {
                let k = rel / dag.period;
                for &task in &dag.tasks {
                    let job = generation * dag.jobs_per_hyperperiod + k;
                    work[task].push(demands.draw(plan, task, job));
                }
            }
        }
        base += plan.hyperperiod;
        generation += 1;
    }
    Ok(work)
}

/// Draws the work of every job: injected overruns first, then the random overrun, then the
/// execution-time model.
pub struct Demands {
    rng: ChaCha8Rng,
    model: TableExecModel,
    probability: f64,
    /// `(task, job since time 0)` to work in ns.
    injected: HashMap<(usize, u64), u64>,
}

impl Demands {
    /// The draws for a run of `horizon` ns from time 0; an injected overrun must name a task of
    /// the plan, a level it has, and a job released before the horizon (a later one would never
    /// happen, silently).
    pub fn new(plan: &TablePlan, spec: &DemandSpec, horizon: u64) -> Result<Demands, TableError> {
        let probability = spec.overrun_probability;
        if !(0.0..=1.0).contains(&probability) {
            return Err(TableError::Config(format!(
                "the overrun probability must be in [0, 1], not {probability}"
            )));
        }
        if let TableExecModel::Uniform { min_fraction } = spec.execution_times {
            if !(0.0..=1.0).contains(&min_fraction) {
                return Err(TableError::Config(format!(
                    "the uniform model's minimum fraction must be in [0, 1], not {min_fraction}"
                )));
            }
        }
        let injected = spec
            .overruns
            .iter()
            .map(|overrun| resolve(plan, overrun, horizon))
            .collect::<Result<_, _>>()?;
        Ok(Demands {
            rng: ChaCha8Rng::seed_from_u64(spec.seed),
            model: spec.execution_times,
            probability,
            injected,
        })
    }

    /// The work of job `job` (counted since time 0) of task `task`, in ns. Every draw is made
    /// even when an injection overrides it, so adding an injection leaves other jobs unchanged.
    pub fn draw(&mut self, plan: &TablePlan, task: usize, job: u64) -> u64 {
        let wcet = &plan.tasks[task].wcet;
        let mut work = match self.model {
            TableExecModel::Wcet => wcet[0],
            TableExecModel::Uniform { min_fraction } => {
                let low = ((min_fraction * wcet[0] as f64).ceil() as u64).clamp(1, wcet[0]);
                self.rng.random_range(low..=wcet[0])
            }
        };
        let top = wcet.len() - 1;
        if self.probability > 0.0 && top > 0 && self.rng.random_bool(self.probability) {
            work = wcet[self.rng.random_range(1..=top)];
        }
        self.injected.get(&(task, job)).copied().unwrap_or(work)
    }
}

/// Why job `overrun.job` (released at `job * period`) is not in a run of `horizon` ns.
fn past_horizon(overrun: &Overrun, period: u64, horizon: u64) -> Option<String> {
    let release = overrun.job.checked_mul(period);
    if release.is_some_and(|r| r < horizon) {
        return None;
    }
    let at = release.map_or("beyond 64-bit nanoseconds".into(), |r| {
        Duration::from_nanos(r).to_string()
    });
    let jobs = horizon.div_ceil(period);
    Some(format!(
        "job {} of {} is released at {at}, not before the end of the run at {}: \
         the run has only {jobs} job(s) of it, 0 to {}",
        overrun.job,
        overrun.task,
        Duration::from_nanos(horizon),
        jobs.saturating_sub(1)
    ))
}

/// "no task ...", with the closest task name when the name looks like a typo.
fn unknown_task(plan: &TablePlan, name: &str) -> String {
    let names: Vec<&str> = plan.tasks.iter().map(|t| t.name.as_str()).collect();
    match kairos_model::mc_load::closest_name(name, &names) {
        Some(best) => format!("no task {name:?}: did you mean {best:?}?"),
        None => format!("no task {name:?} (name it dag/task)"),
    }
}

/// `(task index, job)` and the work in ns of one injected overrun.
fn resolve(
    plan: &TablePlan,
    overrun: &Overrun,
    horizon: u64,
) -> Result<((usize, u64), u64), TableError> {
    let bad = |what: String| TableError::Overrun(format!("{overrun}: {what}"));
    let task = plan
        .tasks
        .iter()
        .position(|t| t.name == overrun.task)
        .ok_or_else(|| bad(unknown_task(plan, &overrun.task)))?;
    let period = plan.dags[plan.tasks[task].dag].period;
    if let Some(late) = past_horizon(overrun, period, horizon) {
        return Err(bad(late));
    }
    let wcet = &plan.tasks[task].wcet;
    let work = match &overrun.demand {
        OverrunDemand::OwnLevel => wcet[wcet.len() - 1],
        OverrunDemand::Exactly(work) if work.is_zero() => {
            return Err(bad("the work must be positive".into()))
        }
        OverrunDemand::Exactly(work) => work.as_nanos(),
        OverrunDemand::Level(level) => {
            let index = plan
                .levels
                .iter()
                .position(|l| l == level)
                .or_else(|| level.parse().ok().filter(|&i| i < plan.levels.len()))
                .ok_or_else(|| {
                    bad(format!(
                        "no level {level:?} (levels: {})",
                        plan.levels.join(", ")
                    ))
                })?;
            *wcet.get(index).ok_or_else(|| {
                bad(format!(
                    "the task has no WCET at level {} (its own level is {}); \
                     give the work as {}@{}=DURATION",
                    plan.levels[index],
                    plan.levels[wcet.len() - 1],
                    overrun.task,
                    overrun.job
                ))
            })?
        }
    };
    Ok(((task, overrun.job), work))
}
