//! Overhead charges: a fixed cost as it is, a measured distribution (`kairos_model::Quantiles`)
//! by a draw of its quantile function. Draws come from the run's seed on a ChaCha8 stream no
//! job draw uses (`kairos_policy::draws` takes streams 0 to 2 x tasks), one per charge in event
//! order, so charging overheads leaves every job's execution time and arrival unchanged.

use kairos_model::{Cost, Duration};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

pub(crate) struct Charges {
    draws: ChaCha8Rng,
}

impl Charges {
    pub(crate) fn new(seed: u64) -> Self {
        let mut draws = ChaCha8Rng::seed_from_u64(seed);
        draws.set_stream(u64::MAX);
        Charges { draws }
    }

    /// One charge of `cost`.
    pub(crate) fn charge(&mut self, cost: &Cost) -> Duration {
        match cost {
            Cost::Fixed(d) => *d,
            Cost::Measured(q) => q.at(self.draws.random::<f64>()),
        }
    }
}
