//! The random choices of a run of periodic and sporadic tasks: each job's execution time and the
//! gap to its task's next release. Both engines draw them here, so a simulation and a measured
//! run with one seed execute the same work for every job.
//!
//! Each draw is a function of the seed, the task index and the job number alone, never of the
//! order in which an engine asks: ChaCha8 (`rand_chacha`) seeded by the run's seed, with one
//! stream per (task, kind of draw) and the job number selecting the position in it. A real run,
//! whose events come in a slightly different order from the simulation's, still gets the same
//! execution time for job 7 of task 2; and the same seed gives the same draws on every machine.

use kairos_model::{Arrival, Duration, Task};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// How long each job actually runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
pub enum ExecutionTimeModel {
    /// Every job runs exactly its WCET.
    #[default]
    Wcet,
    /// Uniform in `[bcet, wcet]` (integer nanoseconds).
    Uniform,
}

/// 32-bit words of the stream reserved for one job's draw. One draw from an interval takes two
/// words, or more when the sampler rejects a value (each time with probability below 1/2), so
/// neighbouring jobs' draws overlap with probability below 2^-15.
const WORDS_PER_JOB: u128 = 32;

/// The per-job draws of one run.
#[derive(Clone, Debug)]
pub struct JobDraws {
    base: ChaCha8Rng,
    model: ExecutionTimeModel,
}

#[derive(Clone, Copy)]
enum Kind {
    ExecutionTime = 0,
    InterArrival = 1,
}

impl JobDraws {
    pub fn new(seed: u64, model: ExecutionTimeModel) -> Self {
        JobDraws {
            base: ChaCha8Rng::seed_from_u64(seed),
            model,
        }
    }

    /// The work of job `job` of `task` (at index `task_index` in the workload).
    pub fn execution_time(&self, task_index: usize, task: &Task, job: u64) -> Duration {
        match self.model {
            ExecutionTimeModel::Wcet => task.wcet,
            ExecutionTimeModel::Uniform => {
                let low = task.bcet.min(task.wcet);
                self.uniform(Kind::ExecutionTime, task_index, job, low, task.wcet)
            }
        }
    }

    /// The gap between the release of job `job` of `task` and the release of its next job.
    pub fn inter_arrival(&self, task_index: usize, task: &Task, job: u64) -> Duration {
        match task.arrival {
            Arrival::Periodic => task.period,
            Arrival::Sporadic { max_interarrival } => {
                let high = max_interarrival.max(task.period);
                self.uniform(Kind::InterArrival, task_index, job, task.period, high)
            }
        }
    }

    fn uniform(
        &self,
        kind: Kind,
        task: usize,
        job: u64,
        low: Duration,
        high: Duration,
    ) -> Duration {
        if low == high {
            return low;
        }
        let mut rng = self.base.clone();
        rng.set_stream(task as u64 * 2 + kind as u64);
        rng.set_word_pos(u128::from(job) * WORDS_PER_JOB);
        Duration::from_nanos(rng.random_range(low.as_nanos()..=high.as_nanos()))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_model::{check_source, Format};

    fn tasks() -> Vec<Task> {
        let source = r#"
name = "draws"
cores = 1
[[tasks]]
name = "a"
wcet = "2ms"
bcet = "1ms"
period = "10ms"
[[tasks]]
name = "b"
wcet = "3ms"
bcet = "0ms"
period = "10ms"
kind = "sporadic"
max_interarrival = "30ms"
"#;
        check_source(source, Format::Toml).workload.unwrap().tasks
    }

    #[test]
    fn a_draw_depends_on_seed_task_and_job_not_on_the_order_of_asking() {
        let tasks = tasks();
        let draws = JobDraws::new(7, ExecutionTimeModel::Uniform);
        let forward: Vec<Duration> = (0..50)
            .flat_map(|job| (0..2).map(move |t| (t, job)))
            .map(|(t, job)| draws.execution_time(t, &tasks[t], job))
            .collect();
        let mut backward: Vec<Duration> = (0..50)
            .rev()
            .flat_map(|job| (0..2).rev().map(move |t| (t, job)))
            .map(|(t, job)| draws.execution_time(t, &tasks[t], job))
            .collect();
        backward.reverse();
        assert_eq!(forward, backward);
        let again = JobDraws::new(7, ExecutionTimeModel::Uniform);
        assert_eq!(
            draws.execution_time(1, &tasks[1], 3),
            again.execution_time(1, &tasks[1], 3)
        );
        let other = JobDraws::new(8, ExecutionTimeModel::Uniform);
        let other: Vec<Duration> = (0..50)
            .map(|job| other.execution_time(0, &tasks[0], job))
            .collect();
        let same_seed: Vec<Duration> = (0..50)
            .map(|job| draws.execution_time(0, &tasks[0], job))
            .collect();
        assert_ne!(other, same_seed);
    }

    #[test]
    fn draws_stay_in_their_intervals_and_spread_over_them() {
        let tasks = tasks();
        let draws = JobDraws::new(1, ExecutionTimeModel::Uniform);
        let work: Vec<u64> = (0..2000)
            .map(|job| draws.execution_time(0, &tasks[0], job).as_nanos())
            .collect();
        assert!(work.iter().all(|w| (1_000_000..=2_000_000).contains(w)));
        let low_half = work.iter().filter(|&&w| w < 1_500_000).count();
        assert!(
            (800..=1200).contains(&low_half),
            "{low_half} of 2000 in the lower half"
        );
        let gaps: Vec<u64> = (0..2000)
            .map(|job| draws.inter_arrival(1, &tasks[1], job).as_nanos())
            .collect();
        assert!(gaps.iter().all(|g| (10_000_000..=30_000_000).contains(g)));
        assert!(gaps.iter().any(|&g| g != gaps[0]));
        assert_eq!(draws.inter_arrival(0, &tasks[0], 5), tasks[0].period);
        let wcet = JobDraws::new(1, ExecutionTimeModel::Wcet);
        assert_eq!(wcet.execution_time(1, &tasks[1], 9), tasks[1].wcet);
    }
}
