//! Hierarchical scheduling of virtual machines as RT-Xen 2.0 does it (Xi, Xu, Lu, Lee, Gill,
//! Phan, Lee, Sokolsky, "Real-Time Multi-Core Virtual Machine Scheduling in Xen", EMSOFT 2014):
//! a VMM scheduler places VCPUs (servers of the contract, [`crate::server`]) on cores, and each
//! domain's guest scheduler places its jobs on its VCPUs that run. One [`Hierarchical`] policy
//! composes the two levels, so both engines host it like any other policy and account the
//! VCPUs' budgets themselves.
//!
//! One decision: the VCPUs with budget left, most important first ([`vmm`]), each take a free
//! core they allow, carrying their guest's most important job not yet handed out ([`guest`]);
//! a deferrable VCPU with no job stays off the cores (it keeps its budget), a periodic one
//! takes its core anyway (it burns budget idle). Then a global guest's jobs are matched to its
//! placed VCPUs so that a job keeps its core when it can.

pub mod guest;
pub mod plan;
pub mod vmm;

pub use plan::{DomainPlan, VmPlan};

use crate::decision::{Action, Decision, TimerId};
use crate::job::JobId;
use crate::policy::{Policy, Refusal};
use crate::server::{ServerId, ServerKind, ServerSpec};
use crate::view::View;
use guest::{QueueMap, Queues};
use kairos_model::{Instant, VmmScheduler, Workload};
use vmm::Placement;

/// RT-Xen 2.0's rt-global or rt-partition VMM with its domains' guest schedulers.
pub struct Hierarchical {
    plan: VmPlan,
    queues: QueueMap,
    /// The quantum timer's instant, while armed.
    tick: Option<Instant>,
}

const TICK: TimerId = TimerId(0);

impl Hierarchical {
    /// The policy of `plan`; refuses the credit scheduler, which is [`super::credit`]'s.
    pub fn new(plan: VmPlan) -> Result<Hierarchical, Refusal> {
        if plan.vmm.scheduler == VmmScheduler::Credit {
            return Err(Refusal(
                "the credit scheduler is not an RT-Xen server scheduler".to_string(),
            ));
        }
        Ok(Hierarchical {
            queues: QueueMap::new(&plan),
            plan,
            tick: None,
        })
    }

    fn tick_actions(&mut self, now: Instant) -> Vec<Action> {
        let Some(quantum) = self.plan.vmm.quantum else {
            return Vec::new();
        };
        let at = vmm::next_tick(now, quantum);
        match self.tick.replace(at) == Some(at) {
            true => Vec::new(),
            false => vec![Action::ArmTimer { timer: TICK, at }],
        }
    }

    /// Whether this decision may only fill cores (between two quantum boundaries).
    fn keeps_placed(&self, now: Instant) -> bool {
        (self.plan.vmm.quantum).is_some_and(|q| !vmm::is_tick(now, q))
    }
}

/// One decision being built.
struct Building<'a, 'v> {
    view: &'a View<'v>,
    specs: &'a [ServerSpec],
    queues: Queues,
    map: &'a QueueMap,
    placement: Placement,
    jobs: Vec<Option<JobId>>,
    /// Per core, whether a server runs there before this decision.
    occupied: Vec<bool>,
}

impl Building<'_, '_> {
    /// Places server `s` with its guest's next job, if it has a core and (deferrable) work.
    fn try_place(&mut self, s: usize) {
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

impl Policy for Hierarchical {
    fn name(&self) -> &'static str {
        match self.plan.vmm.scheduler {
            VmmScheduler::RtPartition => "rt-partition",
            _ => "rt-global",
        }
    }

    fn prepare(&mut self, workload: &Workload) -> Result<(), Refusal> {
        if workload.tasks.len() != self.plan.workload.tasks.len() {
            return Err(Refusal(format!(
                "the workload has {} tasks, the VM plan {}",
                workload.tasks.len(),
                self.plan.workload.tasks.len()
            )));
        }
        self.queues.prepare(workload);
        Ok(())
    }

    fn servers(&self) -> Vec<ServerSpec> {
        self.plan.servers.clone()
    }

    fn timer_fired(&mut self, _now: Instant, timer: TimerId) {
        if timer == TICK {
            self.tick = None;
        }
    }

    fn decide(&mut self, view: &View<'_>) -> Decision {
        let mut b = Building {
            view,
            specs: &self.plan.servers,
            queues: Queues::build(&self.queues, view),
            map: &self.queues,
            placement: Placement::new(view.cores),
            jobs: vec![None; view.cores],
            occupied: (0..view.cores)
                .map(|c| view.servers.iter().any(|s| s.running_on == Some(c)))
                .collect(),
        };
        let ranked = vmm::ranked(self.plan.vmm.priority, &self.plan.servers, view.servers);
        if self.keeps_placed(view.now) {
            (ranked
                .iter()
                .filter(|&&s| view.servers[s].running_on.is_some()))
            .for_each(|&s| b.try_place(s));
        }
        ranked.iter().for_each(|&s| b.try_place(s));
        b.keep_cores(&self.plan);
        let (jobs, servers) = (b.jobs, b.placement.cores);
        Decision {
            cores: jobs,
            servers: servers.into_iter().map(|s| s.map(ServerId)).collect(),
            actions: self.tick_actions(view.now),
            ahead: None,
        }
    }
}

#[cfg(test)]
mod tests;
