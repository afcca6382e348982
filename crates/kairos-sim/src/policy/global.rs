//! Global scheduling: one queue for all cores; at every scheduling point the `m` most important
//! jobs by the job order run (G-EDF, G-FP, G-EDZL). Work-conserving: no core idles while a job
//! waits.

use super::placement::place_on_cores;
use super::{Dispatch, JobOrder, OrderKey, Policy, View};
use crate::SimError;
use kairos_model::Workload;

pub struct Global<O: JobOrder> {
    name: &'static str,
    order: O,
    /// Reused between calls to avoid an allocation per scheduling point.
    keyed: Vec<(OrderKey, usize)>,
}

impl<O: JobOrder> Global<O> {
    pub fn new(name: &'static str, order: O) -> Self {
        Global {
            name,
            order,
            keyed: Vec::new(),
        }
    }
}

impl<O: JobOrder> Policy for Global<O> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn prepare(&mut self, workload: &Workload) -> Result<(), SimError> {
        self.order.prepare(workload);
        Ok(())
    }

    fn schedule(&mut self, view: &View<'_>) -> Dispatch {
        self.keyed.clear();
        self.keyed.extend(
            view.jobs
                .iter()
                .enumerate()
                .map(|(i, job)| (self.order.key(job, view.now), i)),
        );
        let running = view.cores.min(self.keyed.len());
        if running < self.keyed.len() && running > 0 {
            self.keyed.select_nth_unstable(running - 1);
        }
        self.keyed[..running].sort_unstable();
        let chosen: Vec<usize> = self.keyed[..running].iter().map(|&(_, i)| i).collect();
        let wake_at = self.order.wake_at(
            view,
            &mut self.keyed[running..].iter().map(|&(_, i)| &view.jobs[i]),
        );
        Dispatch {
            cores: place_on_cores(view, &chosen),
            wake_at,
        }
    }
}
