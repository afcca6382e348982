//! The order in which each core of a partitioned policy runs its jobs, as data: what a real
//! run's records are read with after the policy is gone (the attribution of a miss to the
//! work ahead of the job on its core, `kairos-rt`'s `attribution`).
//!
//! Only orders in which a job's place never changes while it is open qualify: earliest
//! deadline first (P-EDF) and fixed task priorities (P-FP, P-RM, and P-RMWP's mandatory and
//! wind-up parts, which run at their task's rate-monotonic priority).

use super::fixed_priority::Rank;
use kairos_model::Instant;

/// What a core order reads of a job.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct JobTimes {
    pub task: usize,
    /// Its number among its task's jobs.
    pub number: u64,
    pub release: Instant,
    pub deadline: Instant,
}

/// How one core of a partitioned policy orders its jobs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CoreOrder {
    /// Earliest absolute deadline first; ties by release, task, number (as [`super::edf`]).
    Deadline,
    /// By the rank of the job's task, each task's jobs in release order (as
    /// [`super::fixed_priority`] and [`super::rmwp`]).
    Ranks(Vec<Rank>),
}

impl CoreOrder {
    /// Whether `job` runs before `other` when both are pending on one core.
    pub fn runs_before(&self, job: JobTimes, other: JobTimes) -> bool {
        let key = |j: JobTimes| (j.deadline, j.release, j.task, j.number);
        match self {
            CoreOrder::Deadline => key(job) < key(other),
            CoreOrder::Ranks(_) if job.task == other.task => job.number < other.number,
            CoreOrder::Ranks(ranks) => ranks[job.task].is_more_important_than(ranks[other.task]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{PolicyKind, PriorityOrder};
    use kairos_model::{Arrival, Duration, Task, Workload};

    fn job(task: usize, number: u64, release_ms: u64, deadline_ms: u64) -> JobTimes {
        let ms = |v| Instant::ZERO + Duration::from_millis(v);
        JobTimes {
            task,
            number,
            release: ms(release_ms),
            deadline: ms(deadline_ms),
        }
    }

    #[test]
    fn edf_runs_the_earlier_deadline_first_and_ties_by_release_then_task() {
        let edf = CoreOrder::Deadline;
        assert!(edf.runs_before(job(1, 0, 5, 9), job(0, 0, 0, 10)));
        assert!(!edf.runs_before(job(0, 0, 0, 10), job(1, 0, 5, 9)));
        assert!(edf.runs_before(job(1, 0, 0, 10), job(0, 0, 2, 10)));
        // Equal deadlines and releases: the lower task first.
        assert!(edf.runs_before(job(0, 3, 0, 10), job(1, 0, 0, 10)));
        assert!(!edf.runs_before(job(0, 0, 0, 10), job(0, 0, 0, 10)));
    }

    /// `slow` (5 ms) and `fast` (2 ms) on core 0.
    fn two_tasks() -> Workload {
        let task = |name: &str, period_ms| Task {
            name: name.into(),
            wcet: Duration::from_millis(1),
            bcet: Duration::from_millis(1),
            period: Duration::from_millis(period_ms),
            deadline: Duration::from_millis(period_ms),
            offset: Duration::ZERO,
            arrival: Arrival::Periodic,
            priority: None,
            core: Some(kairos_model::CoreId(0)),
            imprecise: None,
        };
        Workload {
            name: None,
            cores: 2,
            tasks: vec![task("slow", 5), task("fast", 2)],
            overheads: Default::default(),
        }
    }

    #[test]
    fn fixed_priority_runs_the_higher_task_first_and_a_tasks_jobs_in_order() {
        // Rate monotonic: the 2 ms task above the 5 ms one, whatever their deadlines.
        let fp = CoreOrder::Ranks(PriorityOrder::RateMonotonic.ranks(&two_tasks()));
        assert!(fp.runs_before(job(1, 7, 14, 16), job(0, 0, 0, 5)));
        assert!(!fp.runs_before(job(0, 0, 0, 5), job(1, 7, 14, 16)));
        assert!(fp.runs_before(job(0, 1, 5, 10), job(0, 2, 10, 15)));
        assert!(!fp.runs_before(job(0, 2, 10, 15), job(0, 2, 10, 15)));
    }

    #[test]
    fn only_partitioned_policies_with_a_static_order_tell_theirs() {
        use crate::PolicyKind::*;
        let workload = two_tasks();
        let rm = CoreOrder::Ranks(PriorityOrder::RateMonotonic.ranks(&workload));
        let kinds = PolicyKind::ALL.into_iter().chain(PolicyKind::RMWP_FAMILY);
        for kind in kinds {
            let mut policy = kind.build(PriorityOrder::Auto);
            policy.prepare(&workload).expect("prepared");
            let expected = match kind {
                PartitionedEdf => Some(CoreOrder::Deadline),
                PartitionedFp | PartitionedRmwp | PartitionedRm => Some(rm.clone()),
                GlobalEdf | GlobalFp | GlobalEdzl | GlobalRmwp | GlobalRm => None,
            };
            assert_eq!(policy.core_order(), expected, "{kind:?}");
        }
    }
}
