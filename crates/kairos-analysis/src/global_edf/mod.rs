//! Sufficient schedulability tests for global EDF on `m` identical cores, one module per test,
//! each with one entry point `is_schedulable(tasks, m) -> Verdict`:
//!
//! | module | test | CLI name |
//! |---|---|---|
//! | [`gfb`] | Goossens, Funk, Baruah 2003 density bound | `gfb` |
//! | [`bak`] | Baker 2003/2005 | `bak` |
//! | [`bcl`] | Bertogna, Cirinei, Lipari ECRTS 2005 | `bcl` |
//! | [`bcl_iterative`] | Bertogna, Cirinei, Lipari TPDS 2009, iterative slack | `bcl-iterative` |
//! | [`rta`] | Bertogna & Cirinei RTSS 2007 response-time analysis | `gedf-rta` |
//!
//! All of them reproduce SchedCAT's verdicts (see `docs/analysis-oracle.md`), use exact integer
//! arithmetic, never panic and never depend on machine speed. [`GlobalEdfTest`] lists them for
//! callers that run several.

pub mod bak;
pub mod bcl;
pub mod bcl_iterative;
pub(crate) mod common;
pub(crate) mod exact;
pub(crate) mod fixpoint;
pub mod gfb;
pub mod rta;

use crate::{SporadicTask, Verdict};

/// The global EDF tests, by name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum GlobalEdfTest {
    Gfb,
    Bak,
    Bcl,
    BclIterative,
    Rta,
}

impl GlobalEdfTest {
    pub const ALL: [GlobalEdfTest; 5] = [
        GlobalEdfTest::Gfb,
        GlobalEdfTest::Bak,
        GlobalEdfTest::Bcl,
        GlobalEdfTest::BclIterative,
        GlobalEdfTest::Rta,
    ];

    /// The CLI name (`gfb`, `bak`, `bcl`, `bcl-iterative`, `gedf-rta`).
    pub fn cli_name(self) -> &'static str {
        match self {
            GlobalEdfTest::Gfb => "gfb",
            GlobalEdfTest::Bak => "bak",
            GlobalEdfTest::Bcl => "bcl",
            GlobalEdfTest::BclIterative => "bcl-iterative",
            GlobalEdfTest::Rta => "gedf-rta",
        }
    }

    pub fn from_cli_name(name: &str) -> Option<GlobalEdfTest> {
        GlobalEdfTest::ALL
            .into_iter()
            .find(|t| t.cli_name() == name)
    }

    /// Runs the test.
    pub fn run(self, tasks: &[SporadicTask], m: usize) -> Verdict {
        match self {
            GlobalEdfTest::Gfb => gfb::is_schedulable(tasks, m),
            GlobalEdfTest::Bak => bak::is_schedulable(tasks, m),
            GlobalEdfTest::Bcl => bcl::is_schedulable(tasks, m),
            GlobalEdfTest::BclIterative => bcl_iterative::is_schedulable(tasks, m),
            GlobalEdfTest::Rta => rta::is_schedulable(tasks, m),
        }
    }
}
