//! Per-core admission: may this set of tasks share one core?
//!
//! The exact tests are the uniprocessor ones: EDF processor demand with QPA
//! ([`crate::uniprocessor::edf_qpa`]) and fixed-priority RTA under deadline-monotonic priorities
//! on the core's tasks ([`crate::uniprocessor::fp_rta`]; DM is optimal among fixed-priority
//! orders for constrained deadlines on one core, Leung & Whitehead 1982; with some D_i > T_i DM
//! is still used, which is sufficient but no longer optimal). The bounds: total density
//! sum C_i / min(D_i, T_i) <= 1, decided exactly (sufficient for EDF; for implicit deadlines
//! it is U <= 1, Liu & Layland's exact condition), and Liu & Layland's RM bound
//! ([`crate::uniprocessor::bounds::liu_layland`], with densities for constrained deadlines).

use crate::uniprocessor::{bounds, edf_qpa, fp_rta, utilization};
use crate::SporadicTask;

/// How a core decides whether it can take one more task.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Admission {
    /// Exact EDF processor-demand test (QPA).
    EdfExact,
    /// Exact fixed-priority RTA, deadline-monotonic order (ties by task index).
    FpExact,
    /// Total density <= 1 (exactly U <= 1 for implicit deadlines), under EDF.
    EdfUtilization,
    /// Liu & Layland bound (densities for constrained deadlines), under RM/DM.
    FpLiuLayland,
}

impl Admission {
    /// Whether `core_tasks` (listed by increasing task index, so DM ties go to the lower index
    /// as in the simulator) is schedulable on one core under this admission rule.
    pub fn admits(self, core_tasks: &[SporadicTask]) -> bool {
        match self {
            Admission::EdfExact => edf_qpa::is_schedulable(core_tasks).schedulable,
            Admission::FpExact => fp_rta::deadline_monotonic(core_tasks).schedulable,
            Admission::EdfUtilization => utilization::density_at_most_one(core_tasks),
            Admission::FpLiuLayland => bounds::liu_layland(core_tasks).schedulable,
        }
    }

    /// Whether the rule is a fixed-priority one (the tasks then run under P-FP with DM).
    pub fn is_fixed_priority(self) -> bool {
        matches!(self, Admission::FpExact | Admission::FpLiuLayland)
    }
}
