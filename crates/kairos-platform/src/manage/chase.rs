//! A cache-sensitive job: a pointer chase through a buffer that fits the shared last-level
//! cache but not a core's own caches, each load depending on the one before. It is the
//! inter-core interference of the OS-latency study's taxonomy (section IV-A: "cache misses in
//! shared cache levels among cores") in its plainest form: while best-effort work on another
//! core streams through memory, the chain's lines are evicted and every hop waits for memory.
//! The chain visits every line once in an order drawn from a fixed seed, so runs compare.

use crate::oslat::Sampler;
use kairos_os::{clock, PlatformError};

/// The buffer: 4 MiB, twice a core's 2 MiB L2 on the machines here, well inside a shared L3.
pub const CHASE_BYTES: usize = 4 << 20;
/// Dependent loads per call.
pub const HOPS: usize = 20_000;
/// The seed of the visiting order.
const SEED: u64 = 0x6b61_6972_6f73;

const LINE_WORDS: usize = 64 / std::mem::size_of::<usize>();

pub struct Chase {
    /// One word per cache line is used: the index of the next line's word.
    buf: Vec<usize>,
    at: usize,
}

impl Chase {
    pub fn new() -> Chase {
        let lines = CHASE_BYTES / 64;
        let mut order: Vec<usize> = (0..lines).collect();
        let mut state = SEED;
        // Fisher-Yates with a 64-bit LCG (Knuth's MMIX constants): a fixed, seeded order.
        for i in (1..lines).rev() {
            state = state
                .wrapping_mul(6_364_136_223_846_793_005)
                .wrapping_add(1_442_695_040_888_963_407);
            order.swap(i, ((state >> 33) as usize) % (i + 1));
        }
        let mut buf = vec![0usize; lines * LINE_WORDS];
        for (i, &line) in order.iter().enumerate() {
            buf[line * LINE_WORDS] = order[(i + 1) % lines] * LINE_WORDS;
        }
        Chase { buf, at: 0 }
    }
}

impl Default for Chase {
    fn default() -> Self {
        Chase::new()
    }
}

impl Sampler for Chase {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        let start = clock::now_ns();
        let mut at = self.at;
        for _ in 0..HOPS {
            at = self.buf[at];
        }
        // Keeps the chain's result live: the loads cannot be optimised away.
        self.at = std::hint::black_box(at);
        Ok(clock::now_ns() - start)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_chain_visits_every_line_once_before_it_returns() {
        let chase = Chase::new();
        let lines = CHASE_BYTES / 64;
        let (mut at, mut seen) = (0, vec![false; lines]);
        for _ in 0..lines {
            assert!(!seen[at / LINE_WORDS], "line {} twice", at / LINE_WORDS);
            seen[at / LINE_WORDS] = true;
            at = chase.buf[at];
        }
        assert_eq!(at, 0);
        assert!(seen.iter().all(|s| *s));
    }
}
