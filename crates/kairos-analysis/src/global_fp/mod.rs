//! Sufficient schedulability tests for global fixed-priority scheduling on `m` identical cores,
//! one module per test:
//!
//! | module | test | CLI name |
//! |---|---|---|
//! | [`bertogna_cirinei`] | Bertogna & Cirinei RTSS 2007 response-time analysis | `gfp-bc` |
//! | [`guan`] | Guan, Stigge, Yi, Yu RTSS 2009 response-time analysis | `gfp-guan` |
//!
//! Each module's `is_schedulable(tasks, m)` uses rate-monotonic priorities
//! ([`rate_monotonic_order`]); `is_schedulable_with_order` takes any order as a list of task
//! indices, most important first. Both fill in response-time bounds.

pub mod bertogna_cirinei;
pub mod guan;
mod warm_start;

pub use bertogna_cirinei::rate_monotonic_order;

use crate::{SporadicTask, Verdict};

/// The global fixed-priority tests, by name (rate-monotonic order).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GlobalFpTest {
    /// Bertogna & Cirinei, as published (interference capped at `R - C_k + 1`).
    BertognaCirinei,
    /// Guan, Stigge, Yi, Yu 2009.
    Guan,
}

impl GlobalFpTest {
    pub const ALL: [GlobalFpTest; 2] = [GlobalFpTest::BertognaCirinei, GlobalFpTest::Guan];

    /// The CLI name (`gfp-bc`, `gfp-guan`).
    pub fn cli_name(self) -> &'static str {
        match self {
            GlobalFpTest::BertognaCirinei => "gfp-bc",
            GlobalFpTest::Guan => "gfp-guan",
        }
    }

    pub fn from_cli_name(name: &str) -> Option<GlobalFpTest> {
        GlobalFpTest::ALL.into_iter().find(|t| t.cli_name() == name)
    }

    /// Runs the test in rate-monotonic order.
    pub fn run(self, tasks: &[SporadicTask], m: usize) -> Verdict {
        match self {
            GlobalFpTest::BertognaCirinei => bertogna_cirinei::is_schedulable(tasks, m),
            GlobalFpTest::Guan => guan::is_schedulable(tasks, m),
        }
    }

    /// Runs the test for an explicit priority order (task indices, most important first).
    pub fn run_with_order(self, tasks: &[SporadicTask], m: usize, order: &[usize]) -> Verdict {
        match self {
            GlobalFpTest::BertognaCirinei => bertogna_cirinei::is_schedulable_with_order(
                tasks,
                m,
                order,
                bertogna_cirinei::Variant::Paper,
            ),
            GlobalFpTest::Guan => guan::is_schedulable_with_order(tasks, m, order),
        }
    }
}

/// The tasks in priority order, and the ranks `0..n` that index them. A search reads every
/// higher-priority task in turn: in input order, with thousands of tasks, each read would be a
/// cache miss, costing more than the workload it reads.
pub(crate) fn by_priority(
    tasks: &[SporadicTask],
    order: &[usize],
) -> (Vec<SporadicTask>, Vec<usize>) {
    let ordered = order.iter().map(|&i| tasks[i]).collect();
    (ordered, (0..tasks.len()).collect())
}

/// Whether `order` lists every index of `0..n` exactly once.
pub(crate) fn is_permutation(order: &[usize], n: usize) -> bool {
    if order.len() != n {
        return false;
    }
    let mut seen = vec![false; n];
    order
        .iter()
        .all(|&i| i < n && !std::mem::replace(&mut seen[i], true))
}
