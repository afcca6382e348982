//! GFB: the density bound for global EDF.
//!
//! J. Goossens, S. Funk and S. Baruah, "Priority-driven scheduling of periodic task systems on
//! multiprocessors", Real-Time Systems 25(2-3):187-205, 2003, Theorem 5 (implicit deadlines:
//! `U <= m - (m - 1) u_max`), in the density form for constrained deadlines given by
//! M. Bertogna, M. Cirinei and G. Lipari, "Improved schedulability analysis of EDF on
//! multiprocessor platforms", ECRTS 2005 (Theorem 4, Eq. (5)) and "Schedulability analysis of
//! global scheduling algorithms on multiprocessor platforms", IEEE TPDS 20(4), 2009 (Theorem 3):
//!
//! `sum_i lambda_i <= m - (m - 1) lambda_max`, with density `lambda_i = C_i / D_i`.
//!
//! This is SchedCAT's `GFBGedf` (native/src/edf/gfb.cpp), including its preconditions.
//!
//! Assumptions:
//! 1. Sporadic tasks with constrained deadlines, `0 < C_i <= D_i <= T_i`; otherwise the answer is
//!    "not schedulable" naming the first offending task.
//! 2. Total utilization at most `m` (SchedCAT's precondition), `m >= 1`.
//! 3. Preemptive global EDF on `m` identical cores, no overheads; jobs independent.
//!
//! Exact: the comparison is done on rationals by cross-multiplication (multiplying by the
//! largest-density task's deadline) and `FractionSum` (`global_edf/exact.rs`); no floats.
//!
//! Cost: O(n) for n tasks (one pass over the densities, an exact fraction sum).

use super::common::{check_preconditions, normalized};
use super::exact::FractionSum;
use crate::{SporadicTask, Verdict};
use std::cmp::Ordering;

/// GFB density test for global EDF on `m` cores. Set-level: a failure names no task.
pub fn is_schedulable(tasks: &[SporadicTask], m: usize) -> Verdict {
    if let Err(verdict) = check_preconditions(tasks, m) {
        return verdict;
    }
    if tasks.is_empty() {
        return Verdict::yes();
    }
    let tasks = normalized(tasks);
    // Task of largest density C/D, by exact cross-multiplication.
    let densest = tasks
        .iter()
        .copied()
        .reduce(|a, b| {
            let (da, db) = (
                u128::from(a.wcet_ns()) * u128::from(b.deadline_ns()),
                u128::from(b.wcet_ns()) * u128::from(a.deadline_ns()),
            );
            if db > da {
                b
            } else {
                a
            }
        })
        .expect("non-empty");
    let (c_max, d_max) = (
        u128::from(densest.wcet_ns()),
        u128::from(densest.deadline_ns()),
    );
    // Multiply both sides by D_max: sum_i C_i D_max / D_i <= m D_max - (m - 1) C_max
    //                                                  = D_max + (m - 1)(D_max - C_max).
    let Some(bound) = (m as u128 - 1)
        .checked_mul(d_max - c_max)
        .and_then(|x| x.checked_add(d_max))
    else {
        // Overflow needs an absurd core count; refuse rather than guess.
        return Verdict::no(None);
    };
    let mut density = FractionSum::new();
    for t in tasks.iter() {
        density.add(u128::from(t.wcet_ns()) * d_max, t.deadline_ns());
    }
    if density.cmp_int(bound) == Ordering::Greater {
        Verdict::no(None)
    } else {
        Verdict::yes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_ns;

    fn t(c: u64, d: u64, p: u64) -> SporadicTask {
        task_ns(c, d, p)
    }

    #[test]
    fn bound_is_inclusive() {
        // Densities 1/2 + 1/2 + 1/2 = 3/2 <= 2 - 1/2.
        let tasks = [t(1, 2, 2), t(1, 2, 2), t(1, 2, 2)];
        assert!(is_schedulable(&tasks, 2).schedulable);
        // 1/2 * 3 + 1/100 > 3/2.
        let more = [t(1, 2, 2), t(1, 2, 2), t(1, 2, 2), t(1, 100, 100)];
        assert!(!is_schedulable(&more, 2).schedulable);
    }

    #[test]
    fn bcl_2005_section_3_3_example_passes_gfb() {
        // BCL ECRTS 2005, Sec. 3.3: GFB accepts this set, BAK does not.
        let tasks = [t(49, 100, 100), t(49, 100, 100), t(2, 50, 100)];
        assert!(is_schedulable(&tasks, 2).schedulable);
    }

    #[test]
    fn preconditions() {
        assert_eq!(is_schedulable(&[t(3, 2, 4)], 2), Verdict::no(Some(0)));
        assert!(is_schedulable(&[], 3).schedulable);
        assert!(!is_schedulable(&[t(1, 1, 1), t(1, 1, 1)], 1).schedulable);
    }
}
