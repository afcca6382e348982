//! Whole task sets: utilizations, periods on a time grid, WCETs and deadlines.
//!
//! Two ways to size a set, as in SchedCAT (`schedcat/generator/tasksets.py`, `TaskGenerator`)
//! and in Bini & Buttazzo (2005) / Emberson, Stafford & Davis (WATERS 2010):
//! 1. [`generate_until_cap`]: draw tasks from named distributions until the next one would push
//!    the total utilization above the cap; that task is dropped, or with `squeeze` shrunk to
//!    fill the remaining room.
//! 2. [`generate_with_uunifast`] / [`generate_with_randfixedsum`] / [`generate_with_utilizations`]:
//!    a fixed number of tasks with a given utilization vector.
//!
//! Rounding to the grid `g` (every value an integer multiple of `g`):
//! 1. `T` = the drawn period (whole ms) rounded to the nearest multiple of `g`, at least `g`.
//! 2. `C = round(u T / g) g`, at least `g` and at most `T`.
//! 3. `D = T` (implicit) or `D = C + round(f (T - C) / g) g` with the deadline factor `f`, so
//!    `C <= D`, and `D <= T` for constrained deadlines.
//!
//! Utilization totals are always those of the rounded tasks, `sum C_i / T_i` summed in task
//! order in `f64`, exactly as `Workload::total_utilization` computes it.
//!
//! Draws per task, in order: the period, the utilization, then the deadline factor (none for
//! implicit deadlines). Tasks are named `T1..Tn`, periodic, released at 0, with `bcet = wcet`
//! and no priority or core.

use crate::distributions::{DeadlineDist, PeriodDist, UtilDist};
use crate::error::{non_negative, GenError};
use crate::randfixedsum::RandFixedSum;
use crate::rng::ChaCha8Rng;
use crate::uunifast::{uunifast_discard, Discard};
use kairos_model::{Arrival, Duration, Overheads, Task, Workload};

/// [`generate_until_cap`] refuses caps that would need more tasks than this.
pub const MAX_TASKS: usize = 1_000_000;

/// Tasks drawn until the utilization cap (SchedCAT's `TaskGenerator.tasks(max_util, squeeze)`).
///
/// Stops at the first task whose utilization would take the total above `cap`: without
/// `squeeze` it is dropped; with `squeeze` its WCET becomes the largest multiple of the grid
/// that keeps the total at most `cap` (its deadline recomputed from the same factor), and it is
/// dropped only if that is zero. So the total is `<= cap`, and with `squeeze` it falls short of
/// `cap` by less than `g / T` of the last task.
pub fn generate_until_cap(
    rng: &mut ChaCha8Rng,
    cap: f64,
    util_dist: UtilDist,
    period_dist: PeriodDist,
    deadline_dist: DeadlineDist,
    grid: Duration,
    squeeze: bool,
) -> Result<Vec<Task>, GenError> {
    non_negative("cap", cap)?;
    let grid = grid_units(grid)?;
    period_dist.validate()?;
    let mut tasks = Vec::new();
    let mut total = 0.0;
    loop {
        if tasks.len() == MAX_TASKS {
            return Err(GenError::invalid(
                "cap",
                cap,
                "a cap reached within 10^6 tasks",
            ));
        }
        let d = draw(rng, util_dist, period_dist, deadline_dist, grid)?;
        let task = d.task(tasks.len() + 1, d.wcet_units(), grid);
        if total + task.utilization() <= cap {
            total += task.utilization();
            tasks.push(task);
            continue;
        }
        if squeeze {
            let mut c = ((cap - total) * d.t_units as f64).floor() as u64;
            while c > 0 && total + c as f64 / d.t_units as f64 > cap {
                c -= 1;
            }
            if c > 0 {
                tasks.push(d.task(tasks.len() + 1, c, grid));
            }
        }
        return Ok(tasks);
    }
}

/// One task as [`generate_until_cap`] draws it (same draws, same rounding), named `T{index}`.
///
/// Exposed so that callers and tests can replay a generator step by step.
pub fn draw_task(
    rng: &mut ChaCha8Rng,
    index: usize,
    util_dist: UtilDist,
    period_dist: PeriodDist,
    deadline_dist: DeadlineDist,
    grid: Duration,
) -> Result<Task, GenError> {
    let grid = grid_units(grid)?;
    period_dist.validate()?;
    let d = draw(rng, util_dist, period_dist, deadline_dist, grid)?;
    Ok(d.task(index, d.wcet_units(), grid))
}

/// `n` tasks whose utilizations come from UUniFast-discard with per-task cap `discard_cap`
/// (in `(0, 1]`; 1 is Davis & Burns' rule), then rounded to the grid as described above.
pub fn generate_with_uunifast(
    rng: &mut ChaCha8Rng,
    n: usize,
    total_u: f64,
    period_dist: PeriodDist,
    deadline_dist: DeadlineDist,
    grid: Duration,
    discard_cap: f64,
) -> Result<Vec<Task>, GenError> {
    check_unit_cap("discard_cap", discard_cap)?;
    let utils = uunifast_discard(rng, n, total_u, Discard::with_cap(discard_cap))?;
    generate_with_utilizations(rng, &utils, period_dist, deadline_dist, grid)
}

/// `n` tasks whose utilizations come from RandFixedSum on `[0, max_u]` (`max_u` in `(0, 1]`),
/// Emberson, Stafford and Davis' generator (WATERS 2010) when used with log-uniform periods.
pub fn generate_with_randfixedsum(
    rng: &mut ChaCha8Rng,
    n: usize,
    total_u: f64,
    max_u: f64,
    period_dist: PeriodDist,
    deadline_dist: DeadlineDist,
    grid: Duration,
) -> Result<Vec<Task>, GenError> {
    check_unit_cap("max_u", max_u)?;
    non_negative("total_u", total_u)?;
    let utils = RandFixedSum::new(n, total_u, 0.0, max_u)?.sample(rng);
    generate_with_utilizations(rng, &utils, period_dist, deadline_dist, grid)
}

/// One task per utilization in `utils` (each in `[0, 1]`), periods and deadlines drawn.
pub fn generate_with_utilizations(
    rng: &mut ChaCha8Rng,
    utils: &[f64],
    period_dist: PeriodDist,
    deadline_dist: DeadlineDist,
    grid: Duration,
) -> Result<Vec<Task>, GenError> {
    let grid = grid_units(grid)?;
    period_dist.validate()?;
    if let Some(&u) = utils.iter().find(|u| !(0.0..=1.0).contains(*u)) {
        return Err(GenError::invalid("utilization", u, "a number in [0, 1]"));
    }
    let mut tasks = Vec::with_capacity(utils.len());
    for (i, &u) in utils.iter().enumerate() {
        let t_units = period_units(period_dist.sample_ms(rng), grid)?;
        let d = Draw {
            t_units,
            util: u,
            factor: deadline_dist.sample_factor(rng),
        };
        tasks.push(d.task(i + 1, d.wcet_units(), grid));
    }
    Ok(tasks)
}

/// A workload of `tasks` on `cores` identical cores, without overheads.
pub fn make_workload(name: Option<String>, cores: usize, tasks: Vec<Task>) -> Workload {
    Workload {
        name,
        cores,
        tasks,
        overheads: Overheads::default(),
    }
}

/// The draws of one task, before rounding to the grid.
struct Draw {
    /// The period in grid units.
    t_units: u64,
    util: f64,
    /// `f` in `D = C + f (T - C)`; `None` for implicit deadlines.
    factor: Option<f64>,
}

fn draw(
    rng: &mut ChaCha8Rng,
    util_dist: UtilDist,
    period_dist: PeriodDist,
    deadline_dist: DeadlineDist,
    grid: u64,
) -> Result<Draw, GenError> {
    let t_units = period_units(period_dist.sample_ms(rng), grid)?;
    let util = util_dist.sample(rng);
    let factor = deadline_dist.sample_factor(rng);
    Ok(Draw {
        t_units,
        util,
        factor,
    })
}

impl Draw {
    /// `C = round(u T)` in grid units, within `[1, T]`.
    fn wcet_units(&self) -> u64 {
        ((self.util * self.t_units as f64).round() as u64).clamp(1, self.t_units)
    }

    fn task(&self, index: usize, c_units: u64, grid: u64) -> Task {
        let t = self.t_units;
        let d = match self.factor {
            None => t,
            Some(f) => c_units + (f * (t - c_units) as f64).round() as u64,
        };
        let wcet = Duration::from_nanos(c_units * grid);
        Task {
            name: format!("T{index}"),
            wcet,
            bcet: wcet,
            period: Duration::from_nanos(t * grid),
            deadline: Duration::from_nanos(d * grid),
            offset: Duration::ZERO,
            arrival: Arrival::Periodic,
            priority: None,
            core: None,
            imprecise: None,
        }
    }
}

pub(crate) fn grid_units(grid: Duration) -> Result<u64, GenError> {
    if grid.is_zero() {
        return Err(GenError::invalid("grid", grid, "a positive duration"));
    }
    Ok(grid.as_nanos())
}

/// A period of `ms` milliseconds in grid units: the nearest multiple, at least one.
pub(crate) fn period_units(ms: u64, grid: u64) -> Result<u64, GenError> {
    let ns = ms
        .checked_mul(1_000_000)
        .ok_or_else(|| GenError::invalid("period", format!("{ms}ms"), "at most 10^9 ms"))?;
    let (q, r) = (ns / grid, ns % grid);
    Ok(if r >= grid - r { q + 1 } else { q }.max(1))
}

fn check_unit_cap(name: &'static str, cap: f64) -> Result<(), GenError> {
    if cap > 0.0 && cap <= 1.0 {
        Ok(())
    } else {
        Err(GenError::invalid(name, cap, "a number in (0, 1]"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn periods_round_to_the_nearest_grid_multiple() {
        assert_eq!(period_units(10, 1_000_000).unwrap(), 10);
        assert_eq!(period_units(10, 3_000_000).unwrap(), 3);
        assert_eq!(period_units(1, 2_000_000).unwrap(), 1); // 0.5 rounds up
        assert_eq!(period_units(1, 5_000_000).unwrap(), 1); // at least one unit
        assert!(period_units(u64::MAX / 1000, 1).is_err());
    }

    #[test]
    fn wcet_and_deadline_rounding() {
        let d = Draw {
            t_units: 10,
            util: 0.001,
            factor: Some(0.5),
        };
        assert_eq!(d.wcet_units(), 1);
        let task = d.task(3, 1, 1_000);
        assert_eq!(task.name, "T3");
        assert_eq!(task.wcet.as_nanos(), 1_000);
        assert_eq!(task.deadline.as_nanos(), 6_000); // 1 + round(0.5 * 9) = 1 + 5
        assert_eq!(task.period.as_nanos(), 10_000);
    }

    #[test]
    fn rejects_bad_parameters() {
        let rng = &mut crate::rng::seeded(1);
        let (u, p, d) = (
            UtilDist::UniLight,
            PeriodDist::UniShort,
            DeadlineDist::Implicit,
        );
        let ms = Duration::from_millis(1);
        assert!(generate_until_cap(rng, f64::NAN, u, p, d, ms, false).is_err());
        assert!(generate_until_cap(rng, 1.0, u, p, d, Duration::ZERO, false).is_err());
        assert!(generate_with_uunifast(rng, 3, 1.0, p, d, ms, 1.5).is_err());
        assert!(generate_with_utilizations(rng, &[0.5, 1.2], p, d, ms).is_err());
        assert!(generate_until_cap(rng, 0.0, u, p, d, ms, true)
            .unwrap()
            .is_empty());
    }
}
