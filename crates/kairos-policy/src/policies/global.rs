//! Global scheduling: one queue for all cores; at every scheduling point the `m` most important
//! jobs by the job order run (G-EDF, G-FP, G-EDZL). Work-conserving: no core idles while a job
//! waits.

use super::order::{JobOrder, Precedence};
use super::placement::place_on_cores;
use super::ReorderTimer;
use crate::decision::{Decision, TimerId};
use crate::policy::{Policy, Refusal};
use crate::view::View;
use kairos_model::{Instant, Workload};

pub struct Global<O: JobOrder> {
    name: &'static str,
    order: O,
    /// Reused between calls to avoid an allocation per scheduling point.
    keyed: Vec<(Precedence, usize)>,
    reorder: ReorderTimer,
}

impl<O: JobOrder> Global<O> {
    pub fn new(name: &'static str, order: O) -> Self {
        Global {
            name,
            order,
            keyed: Vec::new(),
            reorder: ReorderTimer::default(),
        }
    }
}

impl<O: JobOrder> Policy for Global<O> {
    fn name(&self) -> &'static str {
        self.name
    }

    fn prepare(&mut self, workload: &Workload) -> Result<(), Refusal> {
        self.order.prepare(workload);
        Ok(())
    }

    fn timer_fired(&mut self, _now: Instant, timer: TimerId) {
        self.reorder.fired(timer);
    }

    fn decide(&mut self, view: &View<'_>) -> Decision {
        self.keyed.clear();
        self.keyed.extend(
            (view.jobs.iter().enumerate())
                .map(|(i, job)| (self.order.precedence(job, view.now), i)),
        );
        let running = view.cores.min(self.keyed.len());
        if running < self.keyed.len() && running > 0 {
            self.keyed.select_nth_unstable(running - 1);
        }
        self.keyed[..running].sort_unstable();
        let chosen = (self.keyed[..running].iter()).map(|&(_, i)| &view.jobs[i]);
        let mut waiting = self.keyed[running..].iter().map(|&(_, i)| &view.jobs[i]);
        let reorder = self.order.reorder_at(view.now, &mut waiting);
        Decision {
            servers: Vec::new(),
            cores: place_on_cores(view.cores, chosen),
            actions: self.reorder.update(reorder),
            ahead: None,
        }
    }
}
