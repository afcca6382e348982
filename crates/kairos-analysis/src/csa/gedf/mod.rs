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
//!   `visit_candidates`; the unit tests check the verdict against every integer `t`.

use super::supply::Supply;
use crate::SporadicTask;
use kairos_model::Duration;

/// Candidate instants a check may visit before it gives up as "not shown".
const MAX_POINTS: usize = 5_000_000;

/// Whether gEDF schedules `tasks` (constrained deadlines) on `supply` by Theorem 1 (sufficient).
/// Any [`Supply`] serves: the theorem needs only its sbf, and the choice of instants only its
/// kinks and linear bound.
pub fn gedf_fits<S: Supply + ?Sized>(tasks: &[SporadicTask], supply: &S) -> bool {
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
        let first = tasks[k].deadline_ns();
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
struct Window<'a, S: ?Sized> {
    tasks: &'a [SporadicTask],
    k: usize,
    supply: &'a S,
    /// The last instant that can fail ([`last_instant`]).
    last: u64,
}

impl<S: Supply + ?Sized> Window<'_, S> {
    fn holds_at(&self, t: u64) -> bool {
        self.demand(t) <= self.sbf(t)
    }

    fn demand(&self, t: u64) -> u64 {
        demand_ns(self.tasks, self.k, self.supply.parallelism(), t)
    }

    fn sbf(&self, t: u64) -> u64 {
        self.supply.sbf(Duration::from_nanos(t)).as_nanos()
    }

    /// Whether `DEM <= sbf` at every instant of `[lo, hi]`. Both are nondecreasing in `t`
    /// (`DEM` is the most, over which m'-1 tasks count `Ī` instead of `Î`, of sums of
    /// nondecreasing terms), so `DEM(hi) <= sbf(lo)` settles the whole window at once; else it
    /// is halved, down to windows of one supply period, where the candidate instants inside
    /// decide. A violation anywhere means one at a candidate (the convexity above), and that
    /// candidate lies in one window, which the bound cannot have settled: so the windows'
    /// own ends need no check.
    fn holds_on(&self, lo: u64, hi: u64) -> bool {
        if self.demand(hi) <= self.sbf(lo) {
            return true;
        }
        if hi - lo <= self.supply.period().as_nanos() {
            return visit_candidates(self, self.last, (lo, hi), |t| self.holds_at(t));
        }
        let mid = lo + (hi - lo) / 2;
        self.holds_on(lo, mid) && self.holds_on(mid + 1, hi)
    }
}

/// `DEM(t, m')` for task k at `t = A_k + D_k` (`t >= D_k`) on `parallelism` (m') processors.
pub fn demand(tasks: &[SporadicTask], k: usize, parallelism: u64, t: Duration) -> Duration {
    Duration::from_nanos(demand_ns(tasks, k, parallelism, t.as_nanos()))
}

fn demand_ns(tasks: &[SporadicTask], k: usize, m: u64, t: u64) -> u64 {
    let ck = tasks[k].wcet_ns();
    let ak = t - tasks[k].deadline_ns();
    let mut hat_sum = 0;
    let mut top = Largest::new(m as usize - 1);
    for (i, task) in tasks.iter().enumerate() {
        let n = match (t + task.period_ns()).checked_sub(task.deadline_ns()) {
            Some(shifted) => shifted / task.period_ns(),
            None => 0,
        };
        let carry_in = task.wcet_ns().min(t.saturating_sub(n * task.period_ns()));
        let whole = n * task.wcet_ns();
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
fn last_instant<S: Supply + ?Sized>(tasks: &[SporadicTask], k: usize, supply: &S) -> Option<u64> {
    let utilization: f64 = tasks.iter().map(SporadicTask::utilization).sum();
    let slack = supply.bandwidth() - utilization;
    if slack <= 1e-12 {
        return None;
    }
    let carry: f64 = tasks
        .iter()
        .map(|t| (t.period_ns() - t.deadline_ns()) as f64 * t.utilization())
        .sum();
    let mut wcets: Vec<u64> = tasks.iter().map(|t| t.wcet_ns()).collect();
    wcets.sort_unstable_by(|a, b| b.cmp(a));
    let largest: u64 = wcets.iter().take(supply.parallelism() as usize - 1).sum();
    let m = supply.parallelism() as f64;
    let fixed = m * tasks[k].wcet_ns() as f64 + carry + largest as f64;
    let crossing = (fixed + supply.bandwidth() * supply.linear_intercept()) / slack;
    Some((crossing.ceil() as u64).max(tasks[k].deadline_ns()))
}

/// Whether `holds` at every kink and jump of the terms of `DEM` and of `sbf` in the window
/// `[lo, hi]` of `[D_k, last]`, with the integer before each jump. The instants are visited as
/// they are generated, not sorted (the verdict needs every one, in any order; some are visited
/// twice). False also when they would be too many.
fn visit_candidates<S: Supply + ?Sized>(
    w: &Window<'_, S>,
    last: u64,
    (lo, hi): (u64, u64),
    mut holds: impl FnMut(u64) -> bool,
) -> bool {
    let (tasks, k) = (w.tasks, w.k);
    let first = tasks[k].deadline_ns();
    let mut check = |t: u64| !(lo..=hi).contains(&t) || holds(t);
    let ck = tasks[k].wcet_ns();
    let (from, to) = (Duration::from_nanos(lo), Duration::from_nanos(hi));
    if ![first, ck].into_iter().all(&mut check)
        || !(w.supply).visit_kinks(from, to, &mut |t| check(t.as_nanos()))
    {
        return false;
    }
    for (i, task) in tasks.iter().enumerate() {
        if ![task.wcet_ns(), task.wcet_ns() + ck]
            .into_iter()
            .all(&mut check)
        {
            return false;
        }
        // Job l's jumps and kinks lie in [l T, (l + 1) T + C] (D <= T); one more piece on
        // each side, so an instant at the window's very end is not lost to rounding.
        let pieces = (last.saturating_sub(task.deadline_ns())) / task.period_ns() + 1;
        let l_from = (lo.saturating_sub(task.wcet_ns()) / task.period_ns()).saturating_sub(1);
        let l_to = (hi / task.period_ns() + 1).min(pieces.saturating_sub(1));
        // The kinks of the min with the window's length: n C (+ C_k, or + D_k for task k).
        let (c, base) = if i == k {
            (ck, first)
        } else {
            (task.wcet_ns(), ck)
        };
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
            let (n, jump) = (l + 1, l * task.period_ns() + task.deadline_ns());
            let points = [
                jump.saturating_sub(1),
                jump,
                n * task.period_ns(),
                n * task.period_ns() + task.wcet_ns(),
            ];
            if !points.into_iter().all(&mut check) {
                return false;
            }
        }
        for n in n_from..=n_to.max(n_from) {
            let own = if i == k {
                [(n - 1) * ck + first, n * ck + first]
            } else {
                [n * task.wcet_ns() + ck, (n + 1) * task.wcet_ns() + ck]
            };
            if !own.into_iter().all(&mut check) {
                return false;
            }
        }
    }
    true
}

#[cfg(test)]
mod tests;
