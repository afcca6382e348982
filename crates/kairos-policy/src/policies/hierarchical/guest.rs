//! The guest level: each domain orders its own jobs (gEDF and pEDF by absolute deadline, gDM
//! and pDM by relative deadline: the [`Edf`] and deadline-monotonic [`FixedPriority`] orders
//! of the plain policies) and hands them to the VCPUs the VMM runs. A global guest has one
//! queue for all its VCPUs (its most important jobs run on whichever of its VCPUs are placed,
//! the supply the multiprocessor periodic resource model assumes); a partitioned guest one
//! queue per VCPU, of the tasks bound to it.

use super::plan::VmPlan;
use crate::policies::edf::Edf;
use crate::policies::fixed_priority::{FixedPriority, PriorityOrder};
use crate::policies::order::{JobOrder, Precedence};
use crate::view::View;
use kairos_model::{GuestScheduler, Workload};

/// Which queue each task's jobs and each server's picks belong to.
pub(super) struct QueueMap {
    of_task: Vec<usize>,
    of_server: Vec<usize>,
    count: usize,
    /// Per domain, its job order.
    orders: Vec<Box<dyn JobOrder + Send>>,
    /// Per queue, its domain.
    domain: Vec<usize>,
}

impl QueueMap {
    pub(super) fn new(plan: &VmPlan) -> QueueMap {
        let mut map = QueueMap {
            of_task: vec![0; plan.workload.tasks.len()],
            of_server: vec![0; plan.servers.len()],
            count: 0,
            orders: Vec::new(),
            domain: Vec::new(),
        };
        for (d, domain) in plan.domains.iter().enumerate() {
            map.orders.push(order_of(domain.guest));
            if !domain.guest.is_partitioned() {
                let q = map.push_queue(d);
                domain.tasks.clone().for_each(|t| map.of_task[t] = q);
                domain.servers.clone().for_each(|s| map.of_server[s] = q);
                continue;
            }
            for s in domain.servers.clone() {
                let q = map.push_queue(d);
                map.of_server[s] = q;
                plan.servers[s]
                    .tasks
                    .iter()
                    .for_each(|&t| map.of_task[t] = q);
            }
        }
        map
    }

    fn push_queue(&mut self, domain: usize) -> usize {
        self.domain.push(domain);
        self.count += 1;
        self.count - 1
    }

    pub(super) fn prepare(&mut self, workload: &Workload) {
        self.orders.iter_mut().for_each(|o| o.prepare(workload));
    }

    pub(super) fn server_queue(&self, server: usize) -> usize {
        self.of_server[server]
    }

    /// Per server, whether its guest has a job it could run (in one pass, without ordering
    /// the queues).
    pub(super) fn servers_with_work(&self, view: &View<'_>) -> Vec<bool> {
        let mut queued = vec![false; self.count];
        view.jobs
            .iter()
            .for_each(|j| queued[self.of_task[j.id.task]] = true);
        self.of_server.iter().map(|&q| queued[q]).collect()
    }
}

fn order_of(guest: GuestScheduler) -> Box<dyn JobOrder + Send> {
    match guest {
        GuestScheduler::Gedf | GuestScheduler::Pedf => Box::new(Edf),
        GuestScheduler::Gdm | GuestScheduler::Pdm => {
            Box::new(FixedPriority::new(PriorityOrder::DeadlineMonotonic))
        }
    }
}

/// The pending jobs of one decision, queue by queue, most important first.
pub(super) struct Queues {
    lists: Vec<Vec<usize>>,
    next: Vec<usize>,
}

impl Queues {
    /// Every job of `view` in its queue (indices into `view.jobs`).
    pub(super) fn build(map: &QueueMap, view: &View<'_>) -> Queues {
        let mut keyed: Vec<Vec<(Precedence, usize)>> = vec![Vec::new(); map.count];
        for (i, job) in view.jobs.iter().enumerate() {
            let q = map.of_task[job.id.task];
            let order = &map.orders[map.domain[q]];
            keyed[q].push((order.precedence(job, view.now), i));
        }
        let lists = (keyed.into_iter())
            .map(|mut list| {
                list.sort_unstable_by_key(|&(p, _)| p);
                list.into_iter().map(|(_, i)| i).collect()
            })
            .collect();
        Queues {
            lists,
            next: vec![0; map.count],
        }
    }

    /// The most important job of queue `q` not handed out yet.
    pub(super) fn peek(&self, q: usize) -> Option<usize> {
        self.lists[q].get(self.next[q]).copied()
    }

    pub(super) fn take(&mut self, q: usize) {
        self.next[q] += 1;
    }
}
