//! # kairos-mc
//!
//! Offline part of GMH-MC-DAG (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 4.2): one
//! time-triggered table per criticality level, built with G-EDZL (or G-EDF / G-LLF) slot
//! priorities and the safe-transition constraint between every pair of consecutive levels;
//! table quality (preemptions, migrations) and a federated baseline.
//!
//! ```
//! use kairos_mc::{synthesize, Policy, SynthOptions};
//! use kairos_model::{Dag, Duration, McSystem, McTask};
//!
//! let ms = Duration::from_millis;
//! let task = |name: &str, wcet: &[u64]| McTask {
//!     name: name.into(),
//!     wcet: wcet.iter().map(|&w| ms(w)).collect(),
//! };
//! let system = McSystem {
//!     name: None,
//!     cores: 2,
//!     levels: vec!["LO".into(), "HI".into()],
//!     dags: vec![Dag {
//!         name: "g".into(),
//!         period: ms(10),
//!         deadline: ms(10),
//!         tasks: vec![task("a", &[2, 4]), task("b", &[3]), task("c", &[2, 3])],
//!         edges: vec![(0, 1), (0, 2)],
//!     }],
//! };
//! let result = synthesize(&system, &SynthOptions::default()).unwrap();
//! assert_eq!(result.tables.tables.len(), 2);
//! assert_eq!(result.quality.levels[1].counts.jobs, 2); // a and c run at HI
//! ```
#![forbid(unsafe_code)]

mod bounds;
pub mod deadlines;
mod engine;
mod error;
mod federated;
mod gmh;
pub mod grid;
mod layout;
mod output;
pub mod quality;

pub use error::SynthFailure;
pub use federated::federated;
pub use quality::{measure, Quality};

use kairos_model::{Duration, McSystem, TableSet};

/// The slot priority policy used to fill each table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum Policy {
    /// Zero laxity first, then earliest deadline (the GMH-MC-DAG default).
    #[default]
    Gedzl,
    /// Earliest deadline first.
    Gedf,
    /// Least laxity first.
    Gllf,
}

impl Policy {
    pub const ALL: [Policy; 3] = [Policy::Gedzl, Policy::Gedf, Policy::Gllf];

    /// The name used on the command line and in table files.
    pub fn name(self) -> &'static str {
        match self {
            Policy::Gedzl => "gedzl",
            Policy::Gedf => "gedf",
            Policy::Gllf => "gllf",
        }
    }

    /// Parses [`Policy::name`].
    pub fn from_name(name: &str) -> Option<Policy> {
        Policy::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// How to synthesize.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SynthOptions {
    pub policy: Policy,
    /// Number of cores; the system's own when `None`.
    pub cores: Option<usize>,
}

/// Tables and their quality.
#[derive(Clone, Debug, PartialEq)]
pub struct Synthesis {
    /// One table per level, times in ns.
    pub tables: TableSet,
    pub quality: Quality,
    /// The slot the tables were built on (gcd of every period, deadline and WCET).
    pub slot: Duration,
}

/// GMH-MC-DAG: one table per level, or why none could be built.
pub fn synthesize(system: &McSystem, options: &SynthOptions) -> Result<Synthesis, SynthFailure> {
    let grid = grid::Grid::of(system)?;
    let cores = options.cores.unwrap_or(system.cores);
    if cores == 0 {
        return Err(SynthFailure::Input(
            "synthesis needs at least one core".into(),
        ));
    }
    let ctx = gmh::Context {
        system,
        grid,
        cores,
        policy: options.policy,
    };
    let levels = gmh::build_levels(&ctx)?;
    let labels = output::Labels::new(&ctx);
    let level_jobs: Vec<_> = (levels.iter())
        .map(|built| output::level_jobs(&labels, built))
        .collect();
    let tables = output::table_set(&ctx, &labels, &levels, &level_jobs);
    let quality = quality::of_built(&labels, &levels, &level_jobs, &system.levels)
        .unwrap_or_else(|| measure(&tables));
    Ok(Synthesis {
        tables,
        quality,
        slot: Duration::from_nanos(grid.slot_ns),
    })
}
