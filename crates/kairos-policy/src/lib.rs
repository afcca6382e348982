//! # kairos-policy: the execution contract
//!
//! One interface between scheduling policies and the engines that run them: the simulator
//! (`kairos-sim`, discrete events in exact integer time) and the runtime (`kairos-rt`, real
//! threads on real cores). A policy is written once against [`Policy`] and runs unchanged in
//! both; it depends on `kairos-model` only, and no engine depends on another.
//!
//! - Events, one callback each ([`Policy::job_released`], [`Policy::job_completed`],
//!   [`Policy::part_completed`], [`Policy::job_removed`], [`Policy::budget_exhausted`],
//!   [`Policy::timer_fired`], [`Policy::mode_changed`], [`Policy::server_replenished`],
//!   [`Policy::server_exhausted`]), all of an
//!   instant reported before the [`Policy::decide`] of that instant (asked again after a mode
//!   change), in the order [`contract`] states.
//! - The contract core ([`contract`]): the state every engine keeps and the rules every engine
//!   applies (reporting events, checking and carrying out decisions), written once; the
//!   simulator, the runtime's dispatcher and the replay of a record host it.
//! - What a policy sees ([`View`], [`JobView`]): stable job ids ([`JobId`]), release, absolute
//!   deadline, budget and execution received. Never the execution time a simulation drew.
//! - What it returns ([`Decision`], `#[must_use]`): the job of each core and the [`Action`]s the
//!   engine carries out (arm or cancel a policy timer, discard or stop a job, change the
//!   criticality mode). Engines refuse impossible decisions with typed errors.
//! - Servers ([`server`]: VCPUs with a budget every period on allowed cores) are declared by
//!   the policy and accounted by the engine; a decision then places servers on cores and jobs
//!   on the cores of servers that may run them. Hierarchical scheduling
//!   ([`policies::hierarchical`]) is a VMM policy and guest policies composed on them.
//! - Priorities are never bare integers: [`policies::fixed_priority::Rank`] has no `Ord`.
//! - What both engines must agree on besides the contract, so that a simulated and a measured
//!   run execute the same jobs: the job sources ([`source`]), the resolved scheduling tables, the
//!   table executor and the seeded per-job demands of a table run ([`table`]).
//!
//! `docs/policy.md` walks through writing a policy.
//!
//! ```
//! use kairos_policy::{Decision, Policy, View};
//!
//! /// First come, first served on core 0; the other cores stay idle.
//! struct FirstCome;
//!
//! impl Policy for FirstCome {
//!     fn name(&self) -> &'static str {
//!         "fcfs"
//!     }
//!     fn decide(&mut self, view: &View<'_>) -> Decision {
//!         let first = (view.jobs.iter()).min_by_key(|j| (j.release, j.id.task, j.id.number));
//!         let mut decision = Decision::idle(view.cores);
//!         decision.cores[0] = first.map(|j| j.id);
//!         decision
//!     }
//! }
//!
//! let view = View {
//!     now: kairos_model::Instant::ZERO,
//!     cores: 2,
//!     mode: 0,
//!     jobs: &[],
//!     index: None,
//!     tasks: &[],
//!     servers: &[],
//! };
//! assert_eq!(FirstCome.decide(&view), Decision::idle(2));
//! ```
#![forbid(unsafe_code)]

mod check;
pub mod contract;
mod decision;
pub mod draws;
mod job;
pub mod ordered;
pub mod parts;
pub mod policies;
mod policy;
mod record;
pub mod registry;
pub mod server;
pub mod source;
pub mod table;
mod view;

pub use decision::{Action, Ahead, Decision, TimerId};
pub use draws::{ExecutionTimeModel, JobDraws};
pub use job::{JobId, JobView};
pub use kairos_model::Part;
pub use parts::PartWork;
pub use policies::core_order::{CoreOrder, JobTimes};
pub use policies::fixed_priority::{PriorityOrder, Rank};
pub use policies::PolicyKind;
pub use policy::{Policy, Refusal};
pub use record::{Recorder, Reported, Step};
pub use server::{ServerId, ServerKind, ServerSpec, ServerView};
pub use source::{JobSource, WorkloadJobs};
pub use view::{JobIndex, View};
