//! One decision of a policy through VCPUs: servers taken in the policy's order, each with its
//! guest's next job, on the cores they allow.

use super::guest::{QueueMap, Queues};
use super::plan::VmPlan;
use super::vmm::Placement;
use crate::decision::{Action, Decision};
use crate::job::JobId;
use crate::server::{ServerId, ServerKind, ServerSpec};
use crate::view::View;

/// One decision being built.
pub(super) struct Building<'a, 'v> {
    view: &'a View<'v>,
    specs: &'a [ServerSpec],
    queues: Queues,
    map: &'a QueueMap,
    placement: Placement,
    jobs: Vec<Option<JobId>>,
    /// Per core, whether a server runs there before this decision.
    occupied: Vec<bool>,
}

impl<'a, 'v> Building<'a, 'v> {
    pub(super) fn new(view: &'a View<'v>, plan: &'a VmPlan, map: &'a QueueMap) -> Self {
        Building {
            view,
            specs: &plan.servers,
            queues: Queues::build(map, view),
            map,
            placement: Placement::new(view.cores),
            jobs: vec![None; view.cores],
            occupied: (0..view.cores)
                .map(|c| view.servers.iter().any(|s| s.running_on == Some(c)))
                .collect(),
        }
    }

    /// The decision: the placement, each global guest's jobs kept on their cores, `actions`.
    pub(super) fn finish(mut self, plan: &VmPlan, actions: Vec<Action>) -> Decision {
        self.keep_cores(plan);
        Decision {
            cores: self.jobs,
            servers: self
                .placement
                .cores
                .into_iter()
                .map(|s| s.map(ServerId))
                .collect(),
            actions,
            ahead: None,
        }
    }

    /// Places server `s` with its guest's next job, if it has a core and (deferrable) work.
    pub(super) fn try_place(&mut self, s: usize) {
        let spec = &self.specs[s];
        let server = &self.view.servers[s];
        if server.budget_left.is_zero() || self.placement.cores.contains(&Some(s)) {
            return;
        }
        let q = self.map.server_queue(s);
        let job = self.queues.peek(q);
        if job.is_none() && spec.kind == ServerKind::Deferrable {
            return;
        }
        let Some(core) = self.placement.core_for(spec, server, &self.occupied) else {
            return;
        };
        self.placement.cores[core] = Some(s);
        if let Some(i) = job {
            self.queues.take(q);
            self.jobs[core] = Some(self.view.jobs[i].id);
        }
    }

    /// Matches each global guest's chosen jobs to its placed VCPUs' cores (there are at least
    /// as many: each job came with a VCPU), a job keeping the core it runs on when that core
    /// is among them.
    fn keep_cores(&mut self, plan: &VmPlan) {
        for domain in plan.domains.iter().filter(|d| !d.guest.is_partitioned()) {
            let cores: Vec<usize> = (0..self.jobs.len())
                .filter(|&c| self.placement.cores[c].is_some_and(|s| domain.servers.contains(&s)))
                .collect();
            let chosen: Vec<JobId> = cores.iter().filter_map(|&c| self.jobs[c]).collect();
            cores.iter().for_each(|&c| self.jobs[c] = None);
            let mut moving = Vec::new();
            for id in chosen {
                let on = self.view.job(id).and_then(|j| j.running_on);
                match on.filter(|c| cores.contains(c)) {
                    Some(c) => self.jobs[c] = Some(id),
                    None => moving.push(id),
                }
            }
            let free: Vec<usize> = cores
                .into_iter()
                .filter(|&c| self.jobs[c].is_none())
                .collect();
            for (id, c) in moving.into_iter().zip(free) {
                self.jobs[c] = Some(id);
            }
        }
    }
}
