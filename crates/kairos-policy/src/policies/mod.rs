//! The standard policies, written only against the contract: [`global::Global`] and
//! [`partitioned::Partitioned`] combined with a job order ([`edf::Edf`],
//! [`fixed_priority::FixedPriority`], [`edzl::Edzl`]).

pub mod core_order;
pub mod edf;
pub mod edzl;
pub mod fixed_priority;
pub mod global;
pub mod hierarchical;
pub mod order;
pub mod partition;
pub mod partitioned;
mod placement;
mod ready;
pub mod rmwp;

use crate::decision::{Action, TimerId};
use crate::policy::Policy;
use fixed_priority::{FixedPriority, PriorityOrder};
use kairos_model::Instant;

/// The policies the CLI offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PolicyKind {
    GlobalEdf,
    PartitionedEdf,
    GlobalFp,
    PartitionedFp,
    GlobalEdzl,
    /// Semi-fixed-priority scheduling of imprecise tasks ([`rmwp`]), and its fixed-priority
    /// baselines (rate-monotonic, imprecise tasks run as plain ones with `C = m + w`).
    GlobalRmwp,
    PartitionedRmwp,
    GlobalRm,
    PartitionedRm,
}

impl PolicyKind {
    pub const ALL: [PolicyKind; 5] = [
        PolicyKind::GlobalEdf,
        PolicyKind::PartitionedEdf,
        PolicyKind::GlobalFp,
        PolicyKind::PartitionedFp,
        PolicyKind::GlobalEdzl,
    ];

    /// The semi-fixed-priority family (Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP): policies that need imprecise tasks' optional
    /// deadlines and, partitioned, the analysis' core mapping before they run.
    pub const RMWP_FAMILY: [PolicyKind; 4] = [
        PolicyKind::GlobalRmwp,
        PolicyKind::PartitionedRmwp,
        PolicyKind::GlobalRm,
        PolicyKind::PartitionedRm,
    ];

    /// The CLI name.
    pub fn cli_name(self) -> &'static str {
        match self {
            PolicyKind::GlobalEdf => "gedf",
            PolicyKind::PartitionedEdf => "pedf",
            PolicyKind::GlobalFp => "gfp",
            PolicyKind::PartitionedFp => "pfp",
            PolicyKind::GlobalEdzl => "edzl",
            PolicyKind::GlobalRmwp => "grmwp",
            PolicyKind::PartitionedRmwp => "prmwp",
            PolicyKind::GlobalRm => "grm",
            PolicyKind::PartitionedRm => "prm",
        }
    }

    pub fn from_cli_name(name: &str) -> Option<PolicyKind> {
        (PolicyKind::ALL.into_iter())
            .chain(PolicyKind::RMWP_FAMILY)
            .find(|k| k.cli_name() == name)
    }

    /// Whether the policy is global (one queue for all cores).
    pub fn is_global(self) -> bool {
        matches!(
            self,
            PolicyKind::GlobalEdf
                | PolicyKind::GlobalFp
                | PolicyKind::GlobalEdzl
                | PolicyKind::GlobalRmwp
                | PolicyKind::GlobalRm
        )
    }

    /// A fresh policy object; `gfp` and `pfp` use `priorities` (the RMWP family is
    /// rate-monotonic by definition).
    pub fn build(self, priorities: PriorityOrder) -> Box<dyn Policy + Send> {
        use global::Global;
        use partitioned::Partitioned;
        let rm = PriorityOrder::RateMonotonic;
        match self {
            PolicyKind::GlobalEdf => Box::new(Global::new("gedf", edf::Edf)),
            PolicyKind::PartitionedEdf => Box::new(Partitioned::new("pedf", edf::Edf)),
            PolicyKind::GlobalFp => Box::new(Global::new("gfp", FixedPriority::new(priorities))),
            PolicyKind::PartitionedFp => {
                Box::new(Partitioned::new("pfp", FixedPriority::new(priorities)))
            }
            PolicyKind::GlobalEdzl => Box::new(Global::new("edzl", edzl::Edzl)),
            PolicyKind::GlobalRmwp => Box::new(rmwp::Rmwp::new(rmwp::Scope::Global)),
            PolicyKind::PartitionedRmwp => Box::new(rmwp::Rmwp::new(rmwp::Scope::Partitioned)),
            PolicyKind::GlobalRm => Box::new(Global::new("grm", FixedPriority::new(rm))),
            PolicyKind::PartitionedRm => Box::new(Partitioned::new("prm", FixedPriority::new(rm))),
        }
    }
}

/// The one timer of an order that can change with no job event: armed at the next such
/// instant, cancelled when there is none. Emits an action only when something changes, so
/// orders without such instants (EDF, FP) cost nothing.
#[derive(Clone, Copy, Debug, Default)]
struct ReorderTimer {
    armed: Option<Instant>,
}

impl ReorderTimer {
    const ID: TimerId = TimerId(0);

    /// The engine disarmed it by firing it.
    fn fired(&mut self, timer: TimerId) {
        if timer == Self::ID {
            self.armed = None;
        }
    }

    fn update(&mut self, at: Option<Instant>) -> Vec<Action> {
        let was = std::mem::replace(&mut self.armed, at);
        match at {
            Some(at) if was != Some(at) => vec![Action::ArmTimer {
                timer: Self::ID,
                at,
            }],
            None if was.is_some() => vec![Action::CancelTimer(Self::ID)],
            _ => Vec::new(),
        }
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod choice_twin;
