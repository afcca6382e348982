//! The jobs of a table run: every task of a DAG released at each period of its DAG, its work
//! drawn with overruns ([`Demands`], the draw the runtime makes too), its budget the WCET of the
//! current mode, and no job outliving its hyper-period.

use std::sync::Arc;

use kairos_model::{Duration, Task};

use super::{Demands, TablePlan};
use crate::source::JobSource;

/// The jobs of `plan` ([`TablePlan::workload`]'s tasks), their work drawn by `demands`.
pub struct TableJobs {
    plan: Arc<TablePlan>,
    demands: Demands,
}

impl TableJobs {
    pub fn new(plan: Arc<TablePlan>, demands: Demands) -> TableJobs {
        TableJobs { plan, demands }
    }
}

impl JobSource for TableJobs {
    fn work(&mut self, task: usize, _spec: &Task, number: u64) -> Duration {
        Duration::from_nanos(self.demands.draw(&self.plan, task, number))
    }

    fn inter_arrival(&mut self, _task: usize, spec: &Task, _number: u64) -> Duration {
        spec.period
    }

    fn levels(&self) -> Vec<String> {
        self.plan.levels.clone()
    }

    /// The WCET at the mode, or at the task's own level when the mode is above it (such a job
    /// is discarded at once).
    fn budget(&self, task: usize, _spec: &Task, mode: usize) -> Duration {
        let wcet = &self.plan.tasks[task].wcet;
        Duration::from_nanos(wcet[mode.min(wcet.len() - 1)])
    }

    fn frame(&self) -> Option<Duration> {
        Some(Duration::from_nanos(self.plan.hyperperiod))
    }

    fn releases_at_end(&self) -> bool {
        false
    }
}
