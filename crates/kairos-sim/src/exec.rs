//! Random choices of a run: execution times and sporadic inter-arrival gaps. One ChaCha8 stream
//! seeded by the run's seed, drawn in event order, so a seed gives the same schedule on every
//! machine.

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

pub(crate) struct RandomSource {
    rng: ChaCha8Rng,
    model: ExecutionTimeModel,
}

impl RandomSource {
    pub(crate) fn new(seed: u64, model: ExecutionTimeModel) -> Self {
        RandomSource {
            rng: ChaCha8Rng::seed_from_u64(seed),
            model,
        }
    }

    /// The work of the next job of `task`.
    pub(crate) fn execution_time(&mut self, task: &Task) -> Duration {
        match self.model {
            ExecutionTimeModel::Wcet => task.wcet,
            ExecutionTimeModel::Uniform => self.uniform(task.bcet.min(task.wcet), task.wcet),
        }
    }

    /// The gap between this release of `task` and its next.
    pub(crate) fn inter_arrival(&mut self, task: &Task) -> Duration {
        match task.arrival {
            Arrival::Periodic => task.period,
            Arrival::Sporadic { max_interarrival } => {
                self.uniform(task.period, max_interarrival.max(task.period))
            }
        }
    }

    fn uniform(&mut self, low: Duration, high: Duration) -> Duration {
        if low == high {
            return low;
        }
        Duration::from_nanos(self.rng.random_range(low.as_nanos()..=high.as_nanos()))
    }
}
