//! Imprecise task sets as Chishiro and Yamasaki generate them in "Experimental Evaluation of
//! Global and Partitioned Semi-Fixed-Priority Scheduling Algorithms on Multicore Systems"
//! (ISORC 2012), section 6.1:
//! - each task's real-time utilization `U_i = (m_i + w_i) / T_i` is drawn from {0.02, 0.03,
//!   ..., 0.1} and split into the mandatory and the wind-up part;
//! - its period `T_i` from {1, 2, ..., 30} ms (implicit deadline);
//! - its optional utilization `o_i / T_i` from [0, 0.3];
//! - the system utilization per core `U` from {0.15, 0.2, ..., 0.6} ([`per_core_targets`]).
//!
//! What the paper leaves open, chosen here:
//! 1. the split of `U_i` between `m_i` and `w_i` is uniform: `m_i` is a uniform whole number
//!    of grid units in `[1, C_i - 1]` (so both parts exist), `w_i = C_i - m_i`;
//! 2. tasks are drawn until the next one would take the set's real-time utilization above the
//!    target; a last task then takes exactly what is left (on the grid) if that is at least
//!    two grid units of its period, so the set's utilization is the target to within the grid;
//! 3. all values are whole multiples of the grid (1 us by default), WCETs rounded to nearest.

use crate::error::{non_negative, GenError};
use crate::rng::{uniform_f64, uniform_inclusive, ChaCha8Rng};
use crate::taskset::grid_units;
use kairos_model::{Arrival, Duration, ImpreciseParts, Task};

/// Parameters of one imprecise set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImpreciseConfig {
    /// The set's total real-time utilization (sum of `(m_i + w_i) / T_i`): the paper's
    /// per-core `U` times the number of cores.
    pub target: f64,
    /// Time grid of every duration.
    pub grid: Duration,
    /// The range periods are drawn from, whole milliseconds `(min, max)`: the paper's
    /// [`ImpreciseConfig::PERIODS_MS`] unless a study needs fewer, longer jobs.
    pub periods_ms: (u64, u64),
}

impl ImpreciseConfig {
    /// The paper's real-time utilizations per task: 0.02 to 0.1 in steps of 0.01.
    pub const TASK_UTILIZATIONS: [u64; 9] = [2, 3, 4, 5, 6, 7, 8, 9, 10];
    /// The paper's periods: 1 to 30 ms.
    pub const PERIODS_MS: (u64, u64) = (1, 30);
    /// The paper's largest optional utilization per task.
    pub const MAX_OPTIONAL_UTILIZATION: f64 = 0.3;

    pub fn new(target: f64) -> ImpreciseConfig {
        ImpreciseConfig {
            target,
            grid: Duration::from_micros(1),
            periods_ms: ImpreciseConfig::PERIODS_MS,
        }
    }
}

/// The paper's system utilizations per core: 0.15, 0.2, ..., 0.6 (each `(3 + k) / 20`).
pub fn per_core_targets() -> Vec<f64> {
    (3..=12).map(|k| f64::from(k) / 20.0).collect()
}

/// One imprecise set (see the module documentation), tasks named `T1`, `T2`, ...
pub fn generate_imprecise(
    rng: &mut ChaCha8Rng,
    config: &ImpreciseConfig,
) -> Result<Vec<Task>, GenError> {
    non_negative("target", config.target)?;
    let grid = grid_units(config.grid)?;
    let (lo, hi) = config.periods_ms;
    if lo == 0 || lo > hi {
        return Err(GenError::invalid(
            "periods_ms",
            format!("{lo}..{hi}"),
            "a range of whole milliseconds from 1, min <= max",
        ));
    }
    if 1_000_000 % grid != 0 || grid > 1_000_000 / 100 {
        // Periods are whole milliseconds and the smallest WCET (0.02 of 1 ms) needs 2 units.
        return Err(GenError::invalid("grid", config.grid, "a divisor of 10 us"));
    }
    let mut tasks = Vec::new();
    let mut total = 0.0;
    loop {
        let index = tasks.len() + 1;
        let choices = ImpreciseConfig::TASK_UTILIZATIONS;
        let hundredths = choices[uniform_inclusive(rng, 0, choices.len() as u64 - 1) as usize];
        let u = hundredths as f64 / 100.0;
        let period_units = uniform_inclusive(rng, lo, hi) * 1_000_000 / grid;
        let optional_u = uniform_f64(rng, 0.0, ImpreciseConfig::MAX_OPTIONAL_UTILIZATION);
        let last = total + u > config.target + 1e-12;
        let u = if last { config.target - total } else { u };
        let c_units = (u * period_units as f64).round() as u64;
        if c_units < 2 {
            // Nothing left worth a task (or a period too short for two grid units).
            if last {
                return Ok(tasks);
            }
            continue;
        }
        let m_units = uniform_inclusive(rng, 1, c_units - 1);
        let o_units = (optional_u * period_units as f64).round() as u64;
        let task = imprecise_task(
            index,
            period_units,
            m_units,
            o_units,
            c_units - m_units,
            grid,
        );
        total += task.utilization();
        tasks.push(task);
        if last {
            return Ok(tasks);
        }
    }
}

/// `n` tasks drawn as [`generate_imprecise`] draws them, their mandatory and wind-up parts then
/// scaled together so that the set's real-time utilization is `target` (each part at least one
/// grid unit): the sets of an experiment over the number of tasks, such as the paper's
/// overhead measurements (section 6.2), at one utilization.
pub fn generate_imprecise_count(
    rng: &mut ChaCha8Rng,
    n: usize,
    config: &ImpreciseConfig,
) -> Result<Vec<Task>, GenError> {
    let unbounded = ImpreciseConfig {
        target: n as f64 * 0.1 + 1.0,
        ..*config
    };
    let mut tasks = generate_imprecise(rng, &unbounded)?;
    tasks.truncate(n);
    let total: f64 = tasks.iter().map(Task::utilization).sum();
    let grid = grid_units(config.grid)?;
    let factor = config.target / total;
    for t in &mut tasks {
        let p = t.imprecise.as_mut().expect("generated tasks are imprecise");
        let scaled = |d: Duration| {
            let units = (d.as_nanos() as f64 * factor / grid as f64).round() as u64;
            Duration::from_nanos(units.max(1) * grid)
        };
        (p.mandatory, p.windup) = (scaled(p.mandatory), scaled(p.windup));
        t.wcet = p.mandatory + p.windup;
        t.bcet = t.wcet;
    }
    Ok(tasks)
}

fn imprecise_task(index: usize, t: u64, m: u64, o: u64, w: u64, grid: u64) -> Task {
    let ns = |units: u64| Duration::from_nanos(units * grid);
    Task {
        name: format!("T{index}"),
        wcet: ns(m + w),
        bcet: ns(m + w),
        period: ns(t),
        deadline: ns(t),
        offset: Duration::ZERO,
        arrival: Arrival::Periodic,
        priority: None,
        core: None,
        imprecise: Some(ImpreciseParts {
            mandatory: ns(m),
            optional: ns(o),
            windup: ns(w),
            optional_deadline: None,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seeded;

    #[test]
    fn sets_follow_the_papers_distributions_and_reach_the_target() {
        for seed in 0..200 {
            let target = per_core_targets()[seed as usize % 10] * 4.0;
            let tasks = generate_imprecise(&mut seeded(seed), &ImpreciseConfig::new(target))
                .expect("valid parameters");
            let total: f64 = tasks.iter().map(Task::utilization).sum();
            assert!(
                total <= target + 1e-9,
                "seed {seed}: {total} above {target}"
            );
            assert!(
                total > target - 0.005,
                "seed {seed}: {total} far below {target}"
            );
            for (i, t) in tasks.iter().enumerate() {
                let p = t.imprecise.expect("every task is imprecise");
                let ms = t.period.as_nanos() / 1_000_000;
                assert!((1..=30).contains(&ms) && t.period.as_nanos() % 1_000_000 == 0);
                assert_eq!(t.deadline, t.period);
                assert_eq!(p.mandatory + p.windup, t.wcet);
                assert!(!p.mandatory.is_zero() && !p.windup.is_zero());
                let o = p.optional.as_nanos() as f64 / t.period.as_nanos() as f64;
                assert!((0.0..=0.3 + 1e-6).contains(&o));
                let u = t.utilization();
                // Every task but the last has one of the paper's utilizations (up to rounding).
                if i + 1 < tasks.len() {
                    let nearest = (u * 100.0).round();
                    assert!((2.0..=10.0).contains(&nearest), "seed {seed}: U_i {u}");
                    assert!((u * 100.0 - nearest).abs() * t.period.as_nanos() as f64 <= 1e5);
                }
            }
        }
    }

    #[test]
    fn the_same_seed_gives_the_same_set() {
        let config = ImpreciseConfig::new(1.2);
        let a = generate_imprecise(&mut seeded(9), &config).unwrap();
        let b = generate_imprecise(&mut seeded(9), &config).unwrap();
        let c = generate_imprecise(&mut seeded(10), &config).unwrap();
        assert_eq!(a, b);
        assert_ne!(a, c);
    }

    #[test]
    fn a_period_range_bounds_every_period_and_keeps_the_target() {
        let config = ImpreciseConfig {
            periods_ms: (5, 50),
            ..ImpreciseConfig::new(1.5)
        };
        let (mut shortest, mut longest) = (u64::MAX, 0);
        for seed in 0..50 {
            let tasks = generate_imprecise(&mut seeded(seed), &config).unwrap();
            let total: f64 = tasks.iter().map(Task::utilization).sum();
            assert!(
                total <= 1.5 + 1e-9 && total > 1.5 - 0.005,
                "seed {seed}: {total}"
            );
            for t in &tasks {
                let ms = t.period.as_nanos() / 1_000_000;
                assert_eq!(t.period.as_nanos() % 1_000_000, 0);
                assert!((5..=50).contains(&ms), "seed {seed}: {ms} ms");
                (shortest, longest) = (shortest.min(ms), longest.max(ms));
            }
        }
        // Hundreds of draws from 46 values reach both ends' neighbourhoods.
        assert!(shortest <= 7 && longest >= 48, "{shortest}..{longest}");
        for bad in [(0, 5), (9, 8)] {
            let config = ImpreciseConfig {
                periods_ms: bad,
                ..ImpreciseConfig::new(1.0)
            };
            assert!(
                generate_imprecise(&mut seeded(1), &config).is_err(),
                "{bad:?}"
            );
        }
    }

    #[test]
    fn a_counted_set_has_its_tasks_and_utilization() {
        for n in [1, 4, 16, 64] {
            let tasks =
                generate_imprecise_count(&mut seeded(n as u64), n, &ImpreciseConfig::new(1.0))
                    .unwrap();
            assert_eq!(tasks.len(), n);
            let total: f64 = tasks.iter().map(Task::utilization).sum();
            assert!((total - 1.0).abs() < 0.01, "{n} tasks: U = {total}");
            for t in &tasks {
                let p = t.imprecise.unwrap();
                assert_eq!(p.mandatory + p.windup, t.wcet);
            }
        }
    }

    #[test]
    fn per_core_targets_are_the_papers() {
        let t = per_core_targets();
        assert_eq!(t.len(), 10);
        assert!((t[0] - 0.15).abs() < 1e-12 && (t[9] - 0.6).abs() < 1e-12);
    }
}
