//! A global EDF component on a multiprocessor periodic resource.
//!
//! Easwaran, Shin and Lee, "Optimal virtual cluster-based multiprocessor scheduling" (Real-Time
//! Systems 43(1), 2009), section 5, Theorem 1: a constrained-deadline sporadic task set is
//! schedulable by gEDF on μ = ⟨Π, Θ, m'⟩ if for every task k and every `A_k >= 0`, with
//! `t = A_k + D_k`, `DEM(t, m') <= sbf_μ(t)`, where
//! `DEM = m' C_k + Σ_i Î_i + Σ_{the m'-1 largest} (Ī_i - Î_i)` and, with
//! `N_i = ⌊(t + T_i - D_i) / T_i⌋`, `CI_i = min(C_i, max(0, t - N_i T_i))`, `W_i = N_i C_i + CI_i`:
//! `Î_i = min(N_i C_i, t - C_k)`, `Ī_i = min(W_i, t - C_k)` for `i != k`, and
//! `Î_k = min(N_k C_k - C_k, A_k)`, `Ī_k = min(W_k - C_k, A_k)`.
//!
//! Which `A_k` (kairos' derivation; the paper bounds `A_k` too but leaves the points open):
//! - Bound. `Î_i <= N_i C_i <= U_i t + U_i max(0, T_i - D_i)` and each `Ī_i - Î_i <= C_i`, so
//!   `DEM <= m' C_k + U t + Ū + C_Σ` (`C_Σ` the m'-1 largest C). Once that is below the linear
//!   supply bound `(Θ/Π)(t - 2(Π - Θ/m') - 2)` nothing can fail: beyond
//!   `t* = (m' C_k + Ū + C_Σ + (Θ/Π)(2(Π - Θ/m') + 2)) / (Θ/Π - U)`. It needs `U < Θ/Π`.
//! - Points. Between two consecutive kinks or jumps of the terms `Î_i`, `Ī_i` and of `sbf`,
//!   every term is linear; the sum of the m'-1 largest of linear functions is convex, so
//!   `DEM - sbf` is convex there and largest at an end. The ends (integers) are visited by
//!   [`visit_candidates`]; the unit tests check the verdict against every integer `t`.

use super::supply::Mpr;
use crate::SporadicTask;

/// Candidate instants a check may visit before it gives up as "not shown".
const MAX_POINTS: usize = 5_000_000;

/// Whether gEDF schedules `tasks` (constrained deadlines) on `supply` by Theorem 1 (sufficient).
pub fn gedf_fits(tasks: &[SporadicTask], supply: &Mpr) -> bool {
    if tasks
        .iter()
        .any(|t| t.deadline > t.period || t.wcet > t.deadline)
    {
        return false;
    }
    (0..tasks.len()).all(|k| {
        let Some(last) = last_instant(tasks, k, supply) else {
            return false;
        };
        let first = tasks[k].deadline;
        Window {
            tasks,
            k,
            supply,
            last,
        }
        .holds_on(first, last)
    })
}

/// The check of one task `k`, over windows of `t`.
struct Window<'a> {
    tasks: &'a [SporadicTask],
    k: usize,
    supply: &'a Mpr,
    /// The last instant that can fail ([`last_instant`]).
    last: u64,
}

impl Window<'_> {
    fn holds_at(&self, t: u64) -> bool {
        demand(self.tasks, self.k, self.supply.parallelism, t) <= self.supply.sbf(t)
    }

    /// Whether `DEM <= sbf` at every instant of `[lo, hi]`. Both are nondecreasing in `t`
    /// (`DEM` is the most, over which m'-1 tasks count `Ī` instead of `Î`, of sums of
    /// nondecreasing terms), so `DEM(hi) <= sbf(lo)` settles the whole window at once; else it
    /// is halved, down to windows of one supply period, where the candidate instants inside
    /// decide. A violation anywhere means one at a candidate (the convexity above), and that
    /// candidate lies in one window, which the bound cannot have settled: so the windows'
    /// own ends need no check.
    fn holds_on(&self, lo: u64, hi: u64) -> bool {
        let m = self.supply.parallelism;
        if demand(self.tasks, self.k, m, hi) <= self.supply.sbf(lo) {
            return true;
        }
        if hi - lo <= self.supply.period {
            return visit_candidates(self, self.last, (lo, hi), |t| self.holds_at(t));
        }
        let mid = lo + (hi - lo) / 2;
        self.holds_on(lo, mid) && self.holds_on(mid + 1, hi)
    }
}

/// `DEM(t, m')` for task k at `t = A_k + D_k` (`t >= D_k`).
pub fn demand(tasks: &[SporadicTask], k: usize, m: u64, t: u64) -> u64 {
    let ck = tasks[k].wcet;
    let ak = t - tasks[k].deadline;
    let mut hat_sum = 0;
    let mut top = Largest::new(m as usize - 1);
    for (i, task) in tasks.iter().enumerate() {
        let n = match (t + task.period).checked_sub(task.deadline) {
            Some(shifted) => shifted / task.period,
            None => 0,
        };
        let carry_in = task.wcet.min(t.saturating_sub(n * task.period));
        let whole = n * task.wcet;
        let (hat, bar) = if i == k {
            ((whole - ck).min(ak), (whole + carry_in - ck).min(ak))
        } else {
            ((whole).min(t - ck), (whole + carry_in).min(t - ck))
        };
        hat_sum += hat;
        top.offer(bar - hat);
    }
    m * ck + hat_sum + top.sum()
}

/// The sum of the `n` largest values offered, kept in place: `demand` runs at every candidate
/// instant, and m' (so `n`) is at most the host's cores.
struct Largest {
    kept: [u64; Largest::MOST],
    n: usize,
    /// More than [`Largest::MOST`] wanted: every value, sorted at the end.
    spill: Option<Vec<u64>>,
}

impl Largest {
    const MOST: usize = 16;

    fn new(n: usize) -> Largest {
        Largest {
            kept: [0; Largest::MOST],
            n,
            spill: (n > Largest::MOST).then(Vec::new),
        }
    }

    fn offer(&mut self, value: u64) {
        if let Some(all) = &mut self.spill {
            all.push(value);
            return;
        }
        // `kept[..n]` descending; the smallest falls off the end.
        let kept = &mut self.kept[..self.n];
        if let Some(at) = kept.iter().position(|&v| value > v) {
            kept[at..].rotate_right(1);
            kept[at] = value;
        }
    }

    fn sum(self) -> u64 {
        match self.spill {
            Some(mut all) => {
                all.sort_unstable_by(|a, b| b.cmp(a));
                all.iter().take(self.n).sum()
            }
            None => self.kept[..self.n].iter().sum(),
        }
    }
}

/// `t*` above: the last instant that can fail, or `None` when `U >= Θ/Π`.
fn last_instant(tasks: &[SporadicTask], k: usize, supply: &Mpr) -> Option<u64> {
    let utilization: f64 = tasks.iter().map(SporadicTask::utilization).sum();
    let slack = supply.bandwidth() - utilization;
    if slack <= 1e-12 {
        return None;
    }
    let carry: f64 = tasks
        .iter()
        .map(|t| (t.period - t.deadline) as f64 * t.utilization())
        .sum();
    let mut wcets: Vec<u64> = tasks.iter().map(|t| t.wcet).collect();
    wcets.sort_unstable_by(|a, b| b.cmp(a));
    let largest: u64 = wcets.iter().take(supply.parallelism as usize - 1).sum();
    let m = supply.parallelism as f64;
    let fixed = m * tasks[k].wcet as f64 + carry + largest as f64;
    let crossing = (fixed + supply.bandwidth() * supply.linear_intercept()) / slack;
    Some((crossing.ceil() as u64).max(tasks[k].deadline))
}

/// Whether `holds` at every kink and jump of the terms of `DEM` and of `sbf` in the window
/// `[lo, hi]` of `[D_k, last]`, with the integer before each jump. The instants are visited as
/// they are generated, not sorted (the verdict needs every one, in any order; some are visited
/// twice). False also when they would be too many.
fn visit_candidates(
    w: &Window<'_>,
    last: u64,
    (lo, hi): (u64, u64),
    mut holds: impl FnMut(u64) -> bool,
) -> bool {
    let (tasks, k) = (w.tasks, w.k);
    let first = tasks[k].deadline;
    let mut check = |t: u64| !(lo..=hi).contains(&t) || holds(t);
    let ck = tasks[k].wcet;
    if ![first, ck].into_iter().all(&mut check) || !supply_kinks(w.supply, (lo, hi), &mut check) {
        return false;
    }
    for (i, task) in tasks.iter().enumerate() {
        if ![task.wcet, task.wcet + ck].into_iter().all(&mut check) {
            return false;
        }
        // Job l's jumps and kinks lie in [l T, (l + 1) T + C] (D <= T); one more piece on
        // each side, so an instant at the window's very end is not lost to rounding.
        let pieces = (last.saturating_sub(task.deadline)) / task.period + 1;
        let l_from = (lo.saturating_sub(task.wcet) / task.period).saturating_sub(1);
        let l_to = (hi / task.period + 1).min(pieces.saturating_sub(1));
        // The kinks of the min with the window's length: n C (+ C_k, or + D_k for task k).
        let (c, base) = if i == k { (ck, first) } else { (task.wcet, ck) };
        let n_from = match c {
            0 => 1,
            c => (lo.saturating_sub(base) / c).saturating_sub(1).max(1),
        };
        let n_to = match c {
            0 => 1,
            c => (hi.saturating_sub(base) / c + 1).min(pieces),
        };
        if l_to.saturating_sub(l_from) as usize > MAX_POINTS
            || n_to.saturating_sub(n_from) as usize > MAX_POINTS
        {
            return false;
        }
        for l in l_from..=l_to {
            let (n, jump) = (l + 1, l * task.period + task.deadline);
            let points = [
                jump.saturating_sub(1),
                jump,
                n * task.period,
                n * task.period + task.wcet,
            ];
            if !points.into_iter().all(&mut check) {
                return false;
            }
        }
        for n in n_from..=n_to.max(n_from) {
            let own = if i == k {
                [(n - 1) * ck + first, n * ck + first]
            } else {
                [n * task.wcet + ck, (n + 1) * task.wcet + ck]
            };
            if !own.into_iter().all(&mut check) {
                return false;
            }
        }
    }
    true
}

/// Visits the supply's kinks in `[lo, hi]` in increasing order while `check` holds.
fn supply_kinks(supply: &Mpr, (lo, hi): (u64, u64), check: &mut impl FnMut(u64) -> bool) -> bool {
    let (pi, theta, m) = (supply.period, supply.budget, supply.parallelism);
    let start = pi - theta.div_ceil(m);
    let alpha = theta / m;
    let drop = pi - theta / m;
    let from = lo.saturating_sub(start) / pi;
    let periods = hi.saturating_sub(start) / pi + 1;
    if (periods - from) as usize > MAX_POINTS {
        return false;
    }
    // `drop` is where the supply starts rising again within a period, Π - Θ/m' rounded up;
    // when Θ/m' is not whole the rise begins between two integers, and the integer before it
    // (Π - ⌈Θ/m'⌉) is a kink of the sbf on integers too.
    let mut offsets = [
        0,
        1,
        pi - alpha,
        pi - alpha + 1,
        pi - theta.div_ceil(m),
        drop,
        drop + 1,
        pi - 1,
    ];
    offsets.sort_unstable();
    [start.saturating_sub(1), start]
        .into_iter()
        .all(&mut *check)
        && (from..periods).all(|j| offsets.iter().all(|&x| check(start + j * pi + x)))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::test_rng;

    fn random_set(next: &mut impl FnMut(u64) -> u64) -> Vec<SporadicTask> {
        (0..2 + next(3))
            .map(|_| {
                let period = 3 + next(30);
                let deadline = 2 + next(period - 1);
                let wcet = 1 + next(deadline.min(8));
                SporadicTask::new(wcet, deadline, period)
            })
            .collect()
    }

    /// The theorem at every integer instant up to the bound.
    fn brute(tasks: &[SporadicTask], supply: &Mpr) -> bool {
        (0..tasks.len()).all(|k| {
            let Some(last) = last_instant(tasks, k, supply) else {
                return false;
            };
            (tasks[k].deadline..=last)
                .all(|t| demand(tasks, k, supply.parallelism, t) <= supply.sbf(t))
        })
    }

    #[test]
    fn the_candidate_instants_decide_as_every_instant_does() {
        let mut next = test_rng(0x06ed_f00d);
        let (mut yes, mut no) = (0, 0);
        for _ in 0..40_000 {
            let tasks = random_set(&mut next);
            let m = 1 + next(3);
            let period = 2 + next(15);
            let supply = Mpr::new(period, 1 + next(m * period), m).unwrap();
            let fits = gedf_fits(&tasks, &supply);
            assert_eq!(fits, brute(&tasks, &supply), "{tasks:?} on {supply:?}");
            if fits {
                yes += 1
            } else {
                no += 1
            }
        }
        assert!(yes > 200 && no > 200, "{yes} schedulable, {no} not");
    }

    #[test]
    fn a_supply_rising_between_two_integers_has_a_kink_before_it() {
        // Θ/m' = 59/3 is not whole: the supply rises from between x = 8 and x = 9 of each
        // period, and the violation at t = 128 (x = 8) is seen only with that kink listed
        // (kairos missed it before and accepted this set).
        let tasks = [
            SporadicTask::new(26, 125, 155),
            SporadicTask::new(16, 186, 204),
            SporadicTask::new(106, 319, 339),
            SporadicTask::new(57, 182, 186),
        ];
        let supply = Mpr::new(28, 59, 3).unwrap();
        assert!(demand(&tasks, 0, 3, 128) > supply.sbf(128));
        assert!(!brute(&tasks, &supply));
        assert!(!gedf_fits(&tasks, &supply));
    }

    /// Longer horizons than the test above (periods up to 440, Π up to 44), where the windows
    /// of [`Window::holds_on`] are many and cut the pieces; budgets from the tasks' utilization
    /// up, so that about half the sets fit.
    #[test]
    fn the_windows_decide_as_every_instant_does_on_longer_horizons() {
        let mut next = test_rng(0x5eed_0001);
        let mut fitting = 0;
        for _ in 0..30_000 {
            let tasks: Vec<SporadicTask> = (0..2 + next(4))
                .map(|_| {
                    let period = 40 + next(400);
                    let deadline = period - next(period / 4);
                    let wcet = 1 + next(deadline / 3);
                    SporadicTask::new(wcet, deadline, period)
                })
                .collect();
            let m = 1 + next(3);
            let period = 5 + next(40);
            let u: f64 = tasks.iter().map(|t| t.utilization()).sum();
            let low = ((u * period as f64) as u64).min(m * period);
            let supply = Mpr::new(period, low + next(m * period - low + 1), m).unwrap();
            let Some(_) = (0..tasks.len())
                .map(|k| last_instant(&tasks, k, &supply))
                .collect::<Option<Vec<_>>>()
            else {
                continue;
            };
            if (0..tasks.len()).any(|k| last_instant(&tasks, k, &supply).unwrap() > 200_000) {
                continue;
            }
            let fits = gedf_fits(&tasks, &supply);
            fitting += usize::from(fits);
            assert_eq!(fits, brute(&tasks, &supply), "{tasks:?} on {supply:?}");
        }
        assert!(fitting > 5_000, "only {fitting} sets fit");
    }

    #[test]
    fn a_failure_only_the_supplys_own_kinks_reveal() {
        // Found by dropping the supply's kinks from the candidates: no task's point sees it.
        let tasks = [SporadicTask::new(6, 19, 24), SporadicTask::new(3, 16, 21)];
        let supply = Mpr::new(13, 16, 2).unwrap();
        assert_eq!(gedf_fits(&tasks, &supply), brute(&tasks, &supply));
        assert!(!brute(&tasks, &supply));
    }

    #[test]
    fn the_demand_of_one_task_alone_is_its_own_jobs() {
        // One task, m' = 1: DEM = C_k + min(N_k C_k - C_k, A_k): the earlier jobs due inside
        // the window; with m' - 1 = 0 no carry-in enters.
        let tasks = [SporadicTask::new(2, 5, 5)];
        assert_eq!(demand(&tasks, 0, 1, 5), 2);
        assert_eq!(demand(&tasks, 0, 1, 10), 4);
        assert_eq!(
            demand(&tasks, 0, 1, 7),
            2,
            "no earlier job is due in a window of 7"
        );
        assert_eq!(demand(&tasks, 0, 2, 7), 6, "m' C_k plus one carry-in of 2");
    }

    #[test]
    fn a_dedicated_cluster_schedules_what_global_edf_tests_accept() {
        let tasks = [
            SporadicTask::new(2, 10, 10),
            SporadicTask::new(3, 12, 12),
            SporadicTask::new(4, 15, 15),
        ];
        let two = Mpr::new(1, 2, 2).unwrap();
        assert!(gedf_fits(&tasks, &two));
        assert!(
            !gedf_fits(&tasks, &Mpr::new(10, 5, 1).unwrap()),
            "bandwidth 0.5 < U"
        );
    }
}
