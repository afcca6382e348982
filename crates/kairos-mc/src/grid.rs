//! The slot grid GMH-MC-DAG builds its tables on (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 4.2:
//! tables assign unit time slots to cores).
//!
//! One slot is the greatest common divisor of every period, deadline and WCET in nanoseconds, so
//! every quantity of the system is a whole number of slots and the tables lose nothing
//! ([`McSystem::slot`]; a system with more than [`kairos_model::mc::MAX_TABLE_SLOTS`] slots per
//! hyper-period is refused, by `kairos check` as here). The grid
//! also validates what synthesis relies on (at least one DAG and core, `deadline <= period`, no
//! cycle, WCET vectors that fit the levels), so bad input gives an error, never a panic.

use crate::error::SynthFailure;
use kairos_model::{Duration, McSystem};

/// Slot length and hyper-period in slots.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Grid {
    /// Length of one slot in nanoseconds.
    pub slot_ns: u64,
    /// Hyper-period in slots.
    pub hyperperiod: u64,
}

impl Grid {
    /// The grid of `system`, after checking that it can be synthesized at all.
    pub fn of(system: &McSystem) -> Result<Grid, SynthFailure> {
        check_shape(system)?;
        if let Some(problem) = system.table_grid_problem() {
            return Err(SynthFailure::Input(problem));
        }
        let (Some(slot), Some(hyperperiod)) = (system.slot(), system.table_slots()) else {
            return Err(SynthFailure::Input(
                "the hyper-period does not fit in 64-bit nanoseconds".into(),
            ));
        };
        Ok(Grid {
            slot_ns: slot.as_nanos(),
            hyperperiod,
        })
    }

    /// `d` in slots (exact: every time of the system is a multiple of the slot).
    pub fn slots(&self, d: Duration) -> u64 {
        d.as_nanos() / self.slot_ns
    }

    /// `slots` slots as a duration.
    pub fn duration(&self, slots: u64) -> Duration {
        Duration::from_nanos(slots * self.slot_ns)
    }
}

/// Everything the synthesis needs from the system's shape, reported as bad input.
fn check_shape(system: &McSystem) -> Result<(), SynthFailure> {
    let fail = |msg: String| Err(SynthFailure::Input(msg));
    if system.dags.is_empty() {
        return fail("the system has no DAG".into());
    }
    if system.cores == 0 {
        return fail("the system has no core".into());
    }
    let levels = system.level_count();
    if levels == 0 {
        return fail("the system has no criticality level".into());
    }
    for dag in &system.dags {
        if dag.period.is_zero() || dag.deadline.is_zero() || dag.deadline > dag.period {
            return fail(format!(
                "DAG {}: need 0 < deadline <= period (deadline {}, period {})",
                dag.name, dag.deadline, dag.period
            ));
        }
        if dag.tasks.is_empty() {
            return fail(format!("DAG {} has no task", dag.name));
        }
        if dag
            .edges
            .iter()
            .any(|&(a, b)| a >= dag.tasks.len() || b >= dag.tasks.len())
        {
            return fail(format!(
                "DAG {}: an edge names a task that does not exist",
                dag.name
            ));
        }
        if dag.topological_order().is_none() {
            return fail(format!("DAG {} has a cycle", dag.name));
        }
        for task in &dag.tasks {
            let ok = !task.wcet.is_empty()
                && task.wcet.len() <= levels
                && task.wcet.iter().all(|w| !w.is_zero())
                && task.wcet.windows(2).all(|w| w[0] <= w[1]);
            if !ok {
                return fail(format!(
                    "task {}/{}: needs 1 to {levels} non-zero, non-decreasing WCETs, one per level",
                    dag.name, task.name
                ));
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_model::{Dag, McTask};

    fn system(period_us: u64, wcets_us: &[u64]) -> McSystem {
        McSystem {
            name: None,
            cores: 1,
            levels: vec!["LO".into()],
            dags: vec![Dag {
                name: "g".into(),
                period: Duration::from_micros(period_us),
                deadline: Duration::from_micros(period_us),
                tasks: wcets_us
                    .iter()
                    .enumerate()
                    .map(|(i, &w)| McTask {
                        name: format!("t{i}"),
                        wcet: vec![Duration::from_micros(w)],
                    })
                    .collect(),
                edges: vec![],
            }],
        }
    }

    #[test]
    fn slot_is_the_gcd_of_every_time() {
        let grid = Grid::of(&system(1200, &[300, 450])).unwrap();
        assert_eq!(grid.slot_ns, 150_000);
        assert_eq!(grid.hyperperiod, 8);
        assert_eq!(grid.slots(Duration::from_micros(450)), 3);
        assert_eq!(grid.duration(2), Duration::from_micros(300));
    }

    #[test]
    fn absurd_grids_and_bad_shapes_are_input_errors() {
        let mut fine = system(1_000_000, &[1]);
        fine.dags[0].tasks[0].wcet[0] = Duration::from_nanos(1);
        let err = Grid::of(&fine).unwrap_err();
        assert!(
            err.is_input_error() && err.to_string().contains("too fine"),
            "{err}"
        );
        let mut cyclic = system(10, &[1, 1]);
        cyclic.dags[0].edges = vec![(0, 1), (1, 0)];
        assert!(Grid::of(&cyclic).unwrap_err().to_string().contains("cycle"));
        let mut late = system(10, &[1]);
        late.dags[0].deadline = Duration::from_micros(11);
        assert!(Grid::of(&late).unwrap_err().is_input_error());
    }
}
