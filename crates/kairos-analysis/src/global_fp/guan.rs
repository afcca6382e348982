//! Response-time analysis for global fixed-priority scheduling with limited carry-in.
//!
//! N. Guan, M. Stigge, W. Yi and G. Yu, "New response time bounds for fixed priority
//! multiprocessor scheduling", RTSS 2009, pp. 387-397: the non-carry-in and carry-in workloads
//! (Eqs. (5), (6)), their interference caps (Eqs. (7), (8)), the total interference with at most
//! `m - 1` carry-in tasks (Eq. (9), after Baruah RTSS 2007) and the response-time recurrence
//! (Eq. (12)). For task `k`, with the response times `R_i` of the higher-priority tasks:
//!
//! `W^NC_i(x) = floor(x / T_i) C_i + min(x mod T_i, C_i)`;
//! `W^CI_i(x) = floor(y / T_i) C_i + C_i + alpha`, `y = max(x - C_i, 0)`,
//! `alpha = min(max(y mod T_i - (T_i - R_i), 0), C_i - 1)`;
//! `I^NC_i = min(W^NC_i, x - C_k + 1)`, `I^CI_i = min(W^CI_i, x - C_k + 1)`;
//! `Omega_k(x) = sum_i I^NC_i + (sum of the m - 1 largest positive I^CI_i - I^NC_i)`;
//! `R_k` = the least `x >= C_k` with `x = C_k + floor(Omega_k(x) / m)`, failing above `D_k`.
//!
//! The `m` most important tasks have `R_k = C_k`. (SchedCAT's `fp/guan.py` adds the `m - 1`
//! largest differences even when negative; the paper maximises over carry-in sets of at most
//! `m - 1` tasks, so a negative difference is never chosen. We follow the paper.)
//!
//! Assumptions:
//! 1. Sporadic tasks with `0 < C_i <= D_i <= T_i`; otherwise "not schedulable" naming the task.
//! 2. Total utilization at most `m`, `m >= 1`.
//! 3. Preemptive global fixed-priority scheduling on `m` identical cores, one distinct priority
//!    per task given by `order` (most important first), no overheads; jobs independent.
//! 4. Discrete time: all releases happen at integer nanoseconds.
//!
//! Cost: O(F n^2) for n tasks: one fixed point of F steps per task (pseudo-polynomial), each
//! step a sum over its higher-priority tasks with the m - 1 largest carry-in differences picked
//! by linear selection. Each search starts from the largest wait `R_j - C_j` of a
//! higher-priority task with `C_j <= C_k`, a lower bound of the fixed point
//! (`super::warm_start`), so F is usually one or two steps; the workload pieces are cached
//! between steps (`CachedPiece`), so a step after the first mostly adds and selects.

use super::bertogna_cirinei::rate_monotonic_order;
use super::warm_start::WarmStart;
use crate::global_edf::common::check_preconditions;
use crate::global_edf::fixpoint::{
    div_rem, least_fixed_point, per_slope, sawtooth, workload_lower_bound, CachedPiece, Piece,
};
use crate::{SporadicTask, Verdict};
use std::cmp::Reverse;

/// Guan et al.'s test in rate-monotonic order. When schedulable, the verdict carries the
/// response-time bounds (input order); otherwise it names the first task (by priority) that
/// failed.
pub fn is_schedulable(tasks: &[SporadicTask], m: usize) -> Verdict {
    is_schedulable_with_order(tasks, m, &rate_monotonic_order(tasks))
}

/// The test for an explicit priority `order` (task indices, most important first; it must be a
/// permutation of `0..tasks.len()`, else "not schedulable" naming no task).
pub fn is_schedulable_with_order(tasks: &[SporadicTask], m: usize, order: &[usize]) -> Verdict {
    if let Err(verdict) = check_preconditions(tasks, m) {
        return verdict;
    }
    if !super::is_permutation(order, tasks.len()) {
        return Verdict::no(None);
    }
    let mut response = vec![0u64; tasks.len()];
    let mut scratch = Scratch::default();
    let mut warm = WarmStart::new(tasks);
    let (ordered, ranks) = super::by_priority(tasks, order);
    let mut ordered_response = vec![0u64; tasks.len()];
    for (rank, &k) in order.iter().enumerate() {
        let tk = &tasks[k];
        let start = tk.wcet_ns().saturating_add(warm.wait_below(tk.wcet_ns()));
        let r = if rank < m {
            Some(tk.wcet_ns())
        } else if start > tk.deadline_ns() {
            None
        } else {
            let (higher, search) = (&ranks[..rank], (rank, start));
            fixed_point(&ordered, &ordered_response, higher, search, m, &mut scratch)
        };
        match r {
            Some(r) => {
                (response[k], ordered_response[rank]) = (r, r);
                warm.record(tk.wcet_ns(), r - tk.wcet_ns());
            }
            None => return Verdict::no(Some(k)),
        }
    }
    Verdict::yes().with_response_times(crate::durations(response))
}

/// Eq. (5): workload of `ti` in a window of length `x` without a carried-in job, as a
/// [`Piece`] (value at `x` and how it continues).
fn non_carry_in(ti: &SporadicTask, x: u64) -> Piece {
    sawtooth(u128::from(x), ti.wcet_ns(), ti.period_ns())
}

/// Eq. (6): workload of `ti` (response time `r_i`) in a window of length `x` with a carried-in
/// job, as a [`Piece`]: `floor(y / T) C + C + alpha`, `y = max(x - C, 0)`, where `alpha` is 0
/// until `y mod T` reaches `T - R_i`, then rises with slope 1 up to `C - 1`.
fn carry_in(ti: &SporadicTask, r_i: u64, x: u64) -> Piece {
    let (c, t) = (ti.wcet_ns(), ti.period_ns());
    if x < c {
        return Piece {
            value: i128::from(c),
            slope: 0,
            len: c - x,
        };
    }
    let (jobs, rho) = div_rem(u128::from(x - c), t);
    let jobs = jobs as u64; // at most x / T
    let base = i128::from(jobs) * i128::from(c) + i128::from(c);
    let ramp_start = t - r_i; // alpha > 0 once rho passes this
    let ramp_end = ramp_start + c - 1; // alpha = C - 1 from here (<= T - 1 as R_i >= C)
    if rho < ramp_start {
        Piece {
            value: base,
            slope: 0,
            len: ramp_start - rho,
        }
    } else if rho < ramp_end {
        Piece {
            value: base + i128::from(rho - ramp_start),
            slope: 1,
            len: ramp_end - rho,
        }
    } else {
        Piece {
            value: base + i128::from(c - 1),
            slope: 0,
            len: t - 1 - rho,
        }
    }
}

/// The sum of the `k` largest pieces (all values `>= 0`), linear as long as the selection stays
/// the largest: until a selected piece with a smaller slope meets an unselected one.
fn largest_sum(pieces: &mut [Piece], k: usize) -> Piece {
    let k = k.min(pieces.len());
    if k > 0 && k < pieces.len() {
        // Only which pieces are the k largest matters (the sum and the per-slope extremes do
        // not depend on order, and ties are equal in value and slope): a linear selection,
        // not a sort, per evaluation.
        pieces.select_nth_unstable_by_key(k - 1, |p| Reverse((p.value, p.slope)));
    }
    let (chosen, rest) = pieces.split_at(k);
    let mut sum = chosen.iter().fold(Piece::constant(0), |acc, p| acc.add(*p));
    // Every piece must stay linear, the others too.
    sum = sum.shorten(rest.iter().map(|p| p.len).min().unwrap_or(u64::MAX));
    // Slopes are -1, 0 or 1: compare the lowest chosen and the highest other piece per slope.
    let lowest = |slope: i128| {
        chosen
            .iter()
            .filter(|p| p.slope == slope)
            .map(|p| p.value)
            .min()
    };
    let highest = |slope: i128| {
        rest.iter()
            .filter(|p| p.slope == slope)
            .map(|p| p.value)
            .max()
    };
    for s_low in -1..=1i128 {
        let Some(low) = lowest(s_low) else { continue };
        for s_high in (s_low + 1)..=1 {
            if let Some(high) = highest(s_high) {
                let until = per_slope(low - high, s_high - s_low);
                sum = sum.shorten(u64::try_from(until).unwrap_or(0));
            }
        }
    }
    sum
}

/// Buffers reused from one fixed point to the next: each higher-priority task's last pieces
/// of `I^NC` and of the carry-in surplus, and the surpluses at the current point.
#[derive(Default)]
struct Scratch {
    cache: Vec<Option<(CachedPiece, CachedPiece)>>,
    diffs: Vec<Piece>,
}

/// The least fixed point of Eq. (12) for task `k` at or above `start`, `None` once above `D_k`:
/// the point the plain iteration from `C_k` reaches when `start` is at most that point
/// ([`super::warm_start`]), found in fewer steps by [`least_fixed_point`].
fn fixed_point(
    tasks: &[SporadicTask],
    response: &[u64],
    higher: &[usize],
    (k, start): (usize, u64),
    m: usize,
    scratch: &mut Scratch,
) -> Option<u64> {
    let tk = &tasks[k];
    let Scratch { cache, diffs } = scratch;
    cache.clear();
    cache.resize(higher.len(), None);
    // I^NC_i and max(I^CI_i - I^NC_i, 0) as pieces, read from the cache while they last.
    let terms = |i: usize, x: u64, cached: &mut Option<(CachedPiece, CachedPiece)>| {
        if let Some((nc, diff)) = cached.and_then(|(a, b)| a.at(x).zip(b.at(x))) {
            return (nc, diff);
        }
        let cap = Piece::ramp(i128::from(x - tk.wcet_ns()) + 1);
        let nc = non_carry_in(&tasks[i], x).min_rising(cap);
        let ci = carry_in(&tasks[i], response[i], x).min_rising(cap);
        let diff = ci.sub(nc).max(Piece::constant(0));
        *cached = Some((CachedPiece::new(x, nc), CachedPiece::new(x, diff)));
        (nc, diff)
    };
    let piece = |x: u64| {
        let mut omega = Piece::constant(0);
        diffs.clear();
        for (&i, cached) in higher.iter().zip(cache.iter_mut()) {
            let (nc, diff) = terms(i, x, cached);
            omega = omega.add(nc);
            diffs.push(diff);
        }
        omega.add(largest_sum(diffs, m - 1))
    };
    // Omega is at least its non-carry-in part (the differences are never negative).
    let bound = |from: u64, to: u64, at: u64| {
        let cap = i128::from(at - tk.wcet_ns()) + 1;
        let window = (u128::from(from), u128::from(to), u128::from(at));
        higher
            .iter()
            .map(|&i| {
                let ti = &tasks[i];
                workload_lower_bound(window.0, window.1, window.2, ti.wcet_ns(), ti.period_ns())
                    .min(cap)
            })
            .sum()
    };
    least_fixed_point(tk.wcet_ns(), start, tk.deadline_ns(), m, piece, bound)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_ns;

    fn t(c: u64, d: u64, p: u64) -> SporadicTask {
        task_ns(c, d, p)
    }

    #[test]
    fn workloads_by_hand() {
        let ti = t(2, 10, 10);
        assert_eq!(non_carry_in(&ti, 11).value, 3);
        assert_eq!(non_carry_in(&ti, 25).value, 6);
        // R_i = 2: alpha = min(max(y mod 10 - 8, 0), 1).
        assert_eq!(carry_in(&ti, 2, 11).value, 3); // y = 9: 0 + 2 + 1
        assert_eq!(carry_in(&ti, 2, 12).value, 4); // y = 10: 2 + 2 + 0
        assert_eq!(carry_in(&ti, 2, 1).value, 2); // y = 0
    }

    /// Eq. (6) written out directly, the obvious twin of the piecewise form.
    fn carry_in_plain(ti: &SporadicTask, r_i: u64, x: u64) -> i128 {
        let y = x.saturating_sub(ti.wcet_ns());
        let alpha = (y % ti.period_ns())
            .saturating_sub(ti.period_ns() - r_i)
            .min(ti.wcet_ns() - 1);
        i128::from((y / ti.period_ns()) * ti.wcet_ns() + ti.wcet_ns() + alpha)
    }

    #[test]
    fn pieces_predict_the_plain_workloads() {
        for (c, p) in [(1, 1), (1, 7), (3, 7), (7, 7), (2, 10)] {
            let ti = t(c, p, p);
            for r in c..=p {
                for x in 0..40 {
                    let piece = carry_in(&ti, r, x);
                    for dt in 0..=piece.len.min(40) {
                        let expect = carry_in_plain(&ti, r, x + dt);
                        assert_eq!(
                            piece.value + piece.slope * i128::from(dt),
                            expect,
                            "{ti:?} r={r} x={x} dt={dt}"
                        );
                    }
                }
            }
        }
    }

    /// Plain iteration of Eq. (12), the obvious twin of the accelerated search.
    fn plain_response(tasks: &[SporadicTask], m: usize) -> Option<Vec<u64>> {
        let order = rate_monotonic_order(tasks);
        let mut response = vec![0; tasks.len()];
        for (rank, &k) in order.iter().enumerate() {
            let tk = tasks[k];
            if rank < m {
                response[k] = tk.wcet_ns();
                continue;
            }
            let mut x = tk.wcet_ns();
            loop {
                let cap = i128::from(x - tk.wcet_ns() + 1);
                let mut omega = 0i128;
                let mut diffs = Vec::new();
                for &i in &order[..rank] {
                    let nc = non_carry_in(&tasks[i], x).value.min(cap);
                    let ci = carry_in_plain(&tasks[i], response[i], x).min(cap);
                    omega += nc;
                    diffs.push((ci - nc).max(0));
                }
                diffs.sort_unstable_by(|a, b| b.cmp(a));
                omega += diffs.iter().take(m - 1).sum::<i128>();
                let next = i128::from(tk.wcet_ns()) + omega / m as i128;
                if next > i128::from(tk.deadline_ns()) {
                    return None;
                }
                if next as u64 == x {
                    break;
                }
                x = next as u64;
            }
            response[k] = x;
        }
        Some(response)
    }

    #[test]
    fn accelerated_search_matches_plain_iteration() {
        let mut next = crate::test_rng(0x853c49e6748fea9b);
        for _ in 0..2000 {
            let m = 1 + next(4) as usize;
            let tasks: Vec<SporadicTask> = (0..2 + next(7))
                .map(|_| {
                    let p = 2 + next(60);
                    let d = 1 + next(p);
                    t(1 + next(d), d, p)
                })
                .collect();
            let fast = is_schedulable(&tasks, m);
            let total: f64 = tasks.iter().map(|t| t.utilization()).sum();
            if total > m as f64 {
                continue;
            }
            assert_eq!(
                crate::nanos_of(&fast.response_times),
                plain_response(&tasks, m),
                "{tasks:?} m={m}"
            );
        }
    }

    #[test]
    fn guan_is_at_least_as_good_as_bertogna_cirinei_here() {
        let tasks = [t(4, 10, 10), t(4, 10, 10), t(3, 20, 20), t(5, 40, 40)];
        let guan = is_schedulable(&tasks, 2);
        assert!(guan.schedulable);
        let bc = super::super::bertogna_cirinei::is_schedulable(&tasks, 2);
        let (rg, rb) = (guan.response_times.unwrap(), bc.response_times.unwrap());
        assert!(rg.iter().zip(&rb).all(|(g, b)| g <= b), "{rg:?} {rb:?}");
    }
}
