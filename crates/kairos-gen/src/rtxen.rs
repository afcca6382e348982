//! The RT-Xen 2.0 task-set generator: bimodal utilizations, then a pad task to hit the target.
//!
//! S. Xi, M. Xu, C. Lu, L. T. X. Phan, C. Gill, O. Sokolsky and I. Lee, "Real-Time Multi-Core
//! Virtual Machine Scheduling in Xen", EMSOFT 2014, evaluation setup: periods uniform in
//! [350, 850] ms, implicit deadlines, utilizations from the bimodal distributions (light,
//! medium, heavy), tasks generated until the total utilization exceeds the target, the last one
//! dropped and a pad task added so that the total equals the target; targets 1.1 to 4.9 in
//! steps of 0.2, 25 sets per point, tasks distributed over 4 domains.
//!
//! Here:
//! 1. Tasks are drawn exactly as [`crate::generate_until_cap`] draws them (without squeeze), with
//!    the config's periods (the paper's [`RtXenConfig::PERIODS`] by default; a scaled-down
//!    range serves short real runs) and implicit deadlines.
//! 2. The pad task gets a fresh period from the same distribution and
//!    `C = round((target - total) T / g) g`; the total then equals the target to within
//!    `g / (2 T_pad)` (the grid's resolution). If that `C` is zero there is no pad.
//! 3. Then each task (pad included) goes to a domain chosen independently and uniformly.
//!    Domains are not part of the workload model yet, so they come back as an index per task.

use crate::distributions::{DeadlineDist, PeriodDist, UtilDist};
use crate::error::{non_negative, GenError};
use crate::rng::{below, ChaCha8Rng};
use crate::taskset::{draw_task, generate_until_cap, grid_units};
use kairos_model::{Duration, Task};

/// Parameters of one RT-Xen set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RtXenConfig {
    /// Total utilization the set must reach.
    pub target: f64,
    /// The per-task distribution; RT-Xen uses `bimo-light`, `bimo-medium` or `bimo-heavy`.
    pub util: UtilDist,
    /// Number of domains the tasks are spread over (RT-Xen: 4).
    pub domains: usize,
    /// Time grid for WCETs and periods.
    pub grid: Duration,
    /// The periods' distribution (RT-Xen: [`RtXenConfig::PERIODS`]).
    pub periods: PeriodDist,
}

impl RtXenConfig {
    /// RT-Xen's periods: uniform in [350, 850] ms.
    pub const PERIODS: PeriodDist = PeriodDist::Uniform {
        min_ms: 350,
        max_ms: 850,
    };

    /// RT-Xen's setup: 4 domains, its periods, on a 1 us grid.
    pub fn new(target: f64, util: UtilDist) -> RtXenConfig {
        RtXenConfig {
            target,
            util,
            domains: 4,
            grid: Duration::from_micros(1),
            periods: RtXenConfig::PERIODS,
        }
    }
}

/// A generated RT-Xen set.
#[derive(Clone, Debug, PartialEq)]
pub struct RtXenSet {
    /// `T1..Tn`; the pad task, if any, is the last.
    pub tasks: Vec<Task>,
    /// `domain_of[i]` is the domain (from 0) of `tasks[i]`.
    pub domain_of: Vec<usize>,
    /// Index of the pad task in `tasks`.
    pub pad: Option<usize>,
}

/// One RT-Xen task set (see the module documentation for the steps).
pub fn generate_rtxen(rng: &mut ChaCha8Rng, config: &RtXenConfig) -> Result<RtXenSet, GenError> {
    non_negative("target", config.target)?;
    if config.domains == 0 {
        return Err(GenError::invalid("domains", 0, "at least one domain"));
    }
    let grid = grid_units(config.grid)?;
    let (util, periods, implicit) = (config.util, config.periods, DeadlineDist::Implicit);
    let mut tasks = generate_until_cap(
        rng,
        config.target,
        util,
        periods,
        implicit,
        config.grid,
        false,
    )?;
    let total: f64 = tasks.iter().map(Task::utilization).sum();

    // The pad: a fresh period, and the WCET that fills the remaining room.
    let mut pad_task = draw_task(rng, tasks.len() + 1, util, periods, implicit, config.grid)?;
    let t_units = pad_task.period.as_nanos() / grid;
    let c_units = (((config.target - total) * t_units as f64).round() as u64).min(t_units);
    let pad = (c_units > 0).then(|| {
        pad_task.wcet = Duration::from_nanos(c_units * grid);
        pad_task.bcet = pad_task.wcet;
        tasks.push(pad_task);
        tasks.len() - 1
    });

    let domain_of = tasks
        .iter()
        .map(|_| below(rng, config.domains as u64) as usize)
        .collect();
    Ok(RtXenSet {
        tasks,
        domain_of,
        pad,
    })
}

/// RT-Xen's target utilizations: 1.1, 1.3, ..., 4.9 (each computed as `(11 + 2k) / 10`).
pub fn rtxen_targets() -> Vec<f64> {
    (0..20).map(|k| f64::from(11 + 2 * k) / 10.0).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn targets_are_the_papers() {
        let t = rtxen_targets();
        assert_eq!(t.len(), 20);
        assert_eq!(t[0], 1.1);
        assert_eq!(t[19], 4.9);
    }

    #[test]
    fn rejects_bad_config() {
        let rng = &mut crate::rng::seeded(1);
        let mut config = RtXenConfig::new(1.1, UtilDist::BimoLight);
        config.domains = 0;
        assert!(generate_rtxen(rng, &config).is_err());
        config = RtXenConfig::new(-1.0, UtilDist::BimoLight);
        assert!(generate_rtxen(rng, &config).is_err());
    }
}
