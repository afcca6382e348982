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
//!   `DEM - sbf` is convex there and largest at an end. The ends (integers) are listed by
//!   [`candidates`]; the unit tests check the verdict against every integer `t`.

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
        candidates(tasks, k, supply, last).is_some_and(|points| {
            (points.iter()).all(|&t| demand(tasks, k, supply.parallelism, t) <= supply.sbf(t))
        })
    })
}

/// `DEM(t, m')` for task k at `t = A_k + D_k` (`t >= D_k`).
pub fn demand(tasks: &[SporadicTask], k: usize, m: u64, t: u64) -> u64 {
    let ck = tasks[k].wcet;
    let ak = t - tasks[k].deadline;
    let mut hat_sum = 0;
    let mut extras: Vec<u64> = Vec::with_capacity(tasks.len());
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
        extras.push(bar - hat);
    }
    extras.sort_unstable_by(|a, b| b.cmp(a));
    let largest: u64 = extras.iter().take(m as usize - 1).sum();
    m * ck + hat_sum + largest
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

/// Every kink and jump of the terms of `DEM` and of `sbf` in `[D_k, last]`, with the integer
/// before each jump, sorted and without repeats; `None` when they would be too many.
fn candidates(tasks: &[SporadicTask], k: usize, supply: &Mpr, last: u64) -> Option<Vec<u64>> {
    let first = tasks[k].deadline;
    let ck = tasks[k].wcet;
    let mut points = vec![first, last, ck];
    for (i, task) in tasks.iter().enumerate() {
        points.extend([task.wcet, task.wcet + ck]);
        let pieces = (last.saturating_sub(task.deadline)) / task.period + 1;
        if pieces as usize > MAX_POINTS {
            return None;
        }
        for l in 0..pieces {
            let (n, jump) = (l + 1, l * task.period + task.deadline);
            points.extend([jump.saturating_sub(1), jump]);
            points.extend([n * task.period, n * task.period + task.wcet]);
            if i == k {
                points.extend([(n - 1) * ck + first, n * ck + first]);
            } else {
                points.extend([n * task.wcet + ck, (n + 1) * task.wcet + ck]);
            }
        }
    }
    supply_kinks(supply, last, &mut points);
    points.retain(|&t| (first..=last).contains(&t));
    points.sort_unstable();
    points.dedup();
    Some(points).filter(|p| p.len() <= MAX_POINTS)
}

fn supply_kinks(supply: &Mpr, last: u64, points: &mut Vec<u64>) {
    let (pi, theta, m) = (supply.period, supply.budget, supply.parallelism);
    let start = pi - theta.div_ceil(m);
    let alpha = theta / m;
    let drop = pi - theta / m;
    points.extend([start.saturating_sub(1), start]);
    for j in 0..=(last.saturating_sub(start)) / pi {
        let base = start + j * pi;
        for x in [0, 1, pi - alpha, pi - alpha + 1, drop, drop + 1, pi - 1] {
            points.push(base + x);
        }
    }
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
