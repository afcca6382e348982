//! Hierarchical scheduling of virtual machines as RT-Xen 2.0 does it (Xi, Xu, Lu, Phan, Gill,
//! Sokolsky, Lee, "Real-Time Multi-Core Virtual Machine Scheduling in Xen", EMSOFT 2014):
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

mod build;
pub mod credit;
pub mod guest;
pub mod plan;
pub mod vmm;

pub use plan::{DomainPlan, VmPlan};

pub use credit::Credit;

use crate::decision::{Action, Decision, TimerId};
use crate::policy::{Policy, Refusal};
use crate::server::ServerSpec;
use crate::view::View;
use build::Building;
use guest::QueueMap;
use kairos_model::{Instant, VmmScheduler, Workload};

/// RT-Xen 2.0's rt-global or rt-partition VMM with its domains' guest schedulers.
pub struct Hierarchical {
    plan: VmPlan,
    queues: QueueMap,
    /// The quantum timer's instant, while armed.
    tick: Option<Instant>,
}

const TICK: TimerId = TimerId(0);

impl Hierarchical {
    /// The policy of `plan`; refuses the credit scheduler, which is [`credit`]'s.
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
        let actions = self.tick_actions(view.now);
        let mut b = Building::new(view, &self.plan, &self.queues);
        let ranked = vmm::ranked(self.plan.vmm.priority, &self.plan.servers, view.servers);
        if self.keeps_placed(view.now) {
            (ranked
                .iter()
                .filter(|&&s| view.servers[s].running_on.is_some()))
            .for_each(|&s| b.try_place(s));
        }
        ranked.iter().for_each(|&s| b.try_place(s));
        b.finish(&self.plan, actions)
    }
}

#[cfg(test)]
mod tests;
