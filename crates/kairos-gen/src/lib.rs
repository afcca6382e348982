//! # kairos-gen
//!
//! Task-set generators for schedulability experiments, each in its own module citing its
//! source:
//!
//! | module | generator |
//! |---|---|
//! | [`uunifast`](mod@uunifast) | UUniFast (Bini & Buttazzo 2005), UUniFast-discard (Davis & Burns 2009) |
//! | [`randfixedsum`](mod@randfixedsum) | RandFixedSum (Stafford 2006; Emberson, Stafford & Davis, WATERS 2010) |
//! | [`distributions`] | SchedCAT's named utilization, period and deadline distributions |
//! | [`taskset`] | whole sets: draw until a utilization cap, or from a utilization vector |
//! | [`rtxen`] | RT-Xen 2.0's bimodal generator with a pad task and domains |
//! | [`imprecise`] | imprecise tasks (mandatory, optional, wind-up) as Chishiro and Yamasaki generate them |
//! | [`mcdag`] | mixed-criticality DAG systems (the MC-DAG framework's generator, seeded) |
//!
//! ## Reproducibility
//!
//! Every generator takes an explicit [`ChaCha8Rng`] (build one with [`seeded`]); nothing reads
//! the OS's randomness. The same seed and parameters give the same sets, bit for bit, on every
//! machine:
//! 1. random numbers come from the generator's raw 64-bit output through the integer and
//!    correctly rounded float operations of [`rng`], not through `rand`'s distributions, whose
//!    algorithms may change between releases;
//! 2. logarithms, exponentials and roots come from [`portable_math`], built from `+ - * /`
//!    only, because the platform's `ln`/`exp`/`powf` may differ in the last bit;
//! 3. integer results (periods, WCETs, deadlines) are then deterministic functions of those
//!    bits.
//!
//! This holds on every target whose `f64` arithmetic is IEEE 754 binary64 with round-to-nearest
//! (all 64-bit targets, and 32-bit x86 with SSE2, Rust's default since `i686`); an x87-only
//! target (`i586`) would round intermediates differently.
//!
//! Tests pin the first values of fixed seeds, so an accidental change of any algorithm shows.
//!
//! ```
//! use kairos_gen::{generate_until_cap, make_workload, seeded, DeadlineDist, PeriodDist, UtilDist};
//! use kairos_model::Duration;
//!
//! let mut rng = seeded(7);
//! let util: UtilDist = "uni-medium".parse().unwrap();
//! let tasks = generate_until_cap(
//!     &mut rng, 2.0, util, PeriodDist::LogUniModerate, DeadlineDist::Implicit,
//!     Duration::from_micros(1), false,
//! ).unwrap();
//! let workload = make_workload(Some("example".into()), 2, tasks);
//! assert!(workload.total_utilization() <= 2.0);
//! ```
#![forbid(unsafe_code)]

pub mod distributions;
pub mod error;
pub mod imprecise;
pub mod mcdag;
pub mod portable_math;
pub mod randfixedsum;
pub mod rng;
pub mod rtxen;
pub mod taskset;
pub mod uunifast;

pub use distributions::{DeadlineDist, ParseDistError, PeriodDist, UtilDist};
pub use error::GenError;
pub use randfixedsum::{randfixedsum, RandFixedSum};
pub use rng::{seeded, ChaCha8Rng};
pub use rtxen::{generate_rtxen, rtxen_targets, RtXenConfig, RtXenSet};
pub use taskset::{
    draw_task, generate_until_cap, generate_with_randfixedsum, generate_with_utilizations,
    generate_with_uunifast, make_workload, MAX_TASKS,
};
pub use uunifast::{uunifast, uunifast_discard, Discard};
