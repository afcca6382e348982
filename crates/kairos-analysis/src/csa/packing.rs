//! The best-fit packing of Xi et al., "Real-Time Multi-Core Virtual Machine Scheduling in
//! Xen" (EMSOFT 2014), section V-B: tasks onto a domain's VCPUs, and VCPUs onto cores.
//!
//! - Tasks: each goes to the VCPU of *largest* current bandwidth that can still schedule it;
//!   a new VCPU when none can. The paper gives no task order; kairos packs by decreasing
//!   utilization (the usual best-fit-decreasing), ties by input order.
//! - VCPUs: each goes to a core that can still schedule it, first minimizing how many VCPUs of
//!   its domain the core already holds, then the largest current bandwidth; when no core can,
//!   to the core of *smallest* bandwidth (the system is then not schedulable).

use super::interface::{prm_interface, UniGuest};
use super::supply::{Prm, Supply};
use crate::uniprocessor::fp_rta;
use crate::SporadicTask;
use kairos_model::Duration;

/// One packed VCPU: its PRM interface and its tasks (input indices).
#[derive(Clone, Debug, PartialEq)]
pub struct PackedVcpu {
    pub supply: Prm,
    pub tasks: Vec<usize>,
}

/// The VCPUs of a partitioned guest; `Err(task)` when a task fits no VCPU even alone.
pub fn pack_tasks(
    tasks: &[SporadicTask],
    guest: UniGuest,
    period: Duration,
) -> Result<Vec<PackedVcpu>, usize> {
    let mut vcpus: Vec<PackedVcpu> = Vec::new();
    for i in by_decreasing_utilization(tasks) {
        let with = |v: &PackedVcpu| {
            let set: Vec<SporadicTask> = v.tasks.iter().chain([&i]).map(|&k| tasks[k]).collect();
            prm_interface(&set, guest, period)
        };
        let best = (vcpus.iter().enumerate())
            .filter_map(|(j, v)| with(v).map(|s| (j, s)))
            .max_by(|(a, _), (b, _)| {
                vcpus[*a]
                    .supply
                    .bandwidth()
                    .total_cmp(&vcpus[*b].supply.bandwidth())
                    .then(b.cmp(a))
            });
        match best {
            Some((j, supply)) => {
                vcpus[j].tasks.push(i);
                vcpus[j].supply = supply;
            }
            None => {
                let supply = prm_interface(&[tasks[i]], guest, period).ok_or(i)?;
                vcpus.push(PackedVcpu {
                    supply,
                    tasks: vec![i],
                });
            }
        }
    }
    Ok(vcpus)
}

/// Indices by decreasing utilization, ties in input order.
fn by_decreasing_utilization(tasks: &[SporadicTask]) -> Vec<usize> {
    let mut order: Vec<usize> = (0..tasks.len()).collect();
    order.sort_by(|&a, &b| tasks[b].utilization().total_cmp(&tasks[a].utilization()));
    order
}

/// A VCPU as the VMM sees it: a periodic task `(C = Θ, T = D = Π)` of a domain.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ServerTask {
    pub domain: usize,
    pub task: SporadicTask,
    /// The core the file gives it (`cpus = [N]`): it stays there, and is placed first.
    pub pinned: Option<usize>,
}

/// The core of each server, and whether every core can schedule its servers (EDF: total
/// bandwidth at most 1, exact for implicit deadlines; DM: exact response-time analysis).
/// Pinned servers keep their core; the others are packed around them.
pub fn pack_servers(servers: &[ServerTask], cores: usize, edf: bool) -> (Vec<usize>, bool) {
    let mut on: Vec<Vec<usize>> = vec![Vec::new(); cores];
    let mut mapping = vec![0; servers.len()];
    let mut fits_all = true;
    let feasible = |set: &[SporadicTask]| match edf {
        true => set.iter().map(SporadicTask::utilization).sum::<f64>() <= 1.0 + 1e-12,
        false => fp_rta::deadline_monotonic(set).schedulable,
    };
    let bandwidth = |core: &[usize]| {
        core.iter()
            .map(|&s| servers[s].task.utilization())
            .sum::<f64>()
    };
    for (s, server) in servers.iter().enumerate() {
        if let Some(core) = server.pinned.filter(|&c| c < cores) {
            on[core].push(s);
            mapping[s] = core;
        }
    }
    for core in &on {
        let set: Vec<SporadicTask> = core.iter().map(|&k| servers[k].task).collect();
        fits_all &= feasible(&set);
    }
    let order: Vec<usize> =
        by_decreasing_utilization(&servers.iter().map(|s| s.task).collect::<Vec<_>>());
    for s in order.into_iter().filter(|&s| servers[s].pinned.is_none()) {
        let fitting = (0..cores).filter(|&c| {
            let set: Vec<SporadicTask> =
                on[c].iter().chain([&s]).map(|&k| servers[k].task).collect();
            feasible(&set)
        });
        let same = |c: usize| {
            on[c]
                .iter()
                .filter(|&&k| servers[k].domain == servers[s].domain)
                .count()
        };
        let chosen = fitting.min_by(|&a, &b| {
            same(a)
                .cmp(&same(b))
                .then(bandwidth(&on[b]).total_cmp(&bandwidth(&on[a])))
                .then(a.cmp(&b))
        });
        let core = chosen.unwrap_or_else(|| {
            fits_all = false;
            (0..cores)
                .min_by(|&a, &b| {
                    bandwidth(&on[a])
                        .total_cmp(&bandwidth(&on[b]))
                        .then(a.cmp(&b))
                })
                .expect("a core")
        });
        on[core].push(s);
        mapping[s] = core;
    }
    (mapping, fits_all)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_ns;

    #[test]
    fn tasks_go_to_the_fullest_vcpu_that_still_fits() {
        let tasks = [task_ns(12, 20, 20), task_ns(10, 20, 20), task_ns(2, 20, 20)];
        let vcpus = pack_tasks(&tasks, UniGuest::Edf, Duration::from_nanos(5)).unwrap();
        // 0.6 and 0.5 cannot share a core: two VCPUs; the 0.1 task joins the one of larger
        // bandwidth (task 0's).
        assert_eq!(vcpus.len(), 2);
        assert_eq!(vcpus[0].tasks, vec![0, 2]);
        for v in &vcpus {
            let set: Vec<SporadicTask> = v.tasks.iter().map(|&k| tasks[k]).collect();
            assert!(super::super::edf::edf_fits(&set, &v.supply));
        }
    }

    #[test]
    fn a_domains_vcpus_spread_over_cores_before_sharing_one() {
        let server = |domain, c| ServerTask {
            domain,
            task: task_ns(c, 10, 10),
            pinned: None,
        };
        let servers = [server(0, 3), server(0, 3), server(1, 5)];
        let (mapping, fits) = pack_servers(&servers, 2, true);
        assert!(fits);
        assert_ne!(
            mapping[0], mapping[1],
            "the two VCPUs of domain 0 on different cores"
        );
        let (_, fits) = pack_servers(&[server(0, 8), server(1, 8), server(2, 8)], 2, true);
        assert!(!fits, "2.4 cores' worth on 2 cores");
    }

    #[test]
    fn pinned_servers_keep_their_core_and_count_against_it() {
        let server = |c, pinned| ServerTask {
            domain: 0,
            task: task_ns(c, 10, 10),
            pinned,
        };
        // Unpinned, best fit would put the 0.6 server beside nothing; pinned on core 1 it stays
        // there and the 0.5 one goes to core 0.
        let (mapping, fits) = pack_servers(&[server(6, Some(1)), server(5, None)], 2, true);
        assert!(fits);
        assert_eq!(mapping, vec![1, 0]);
        // Two pinned servers overloading core 0 fail even though core 1 is free.
        let (mapping, fits) = pack_servers(&[server(6, Some(0)), server(5, Some(0))], 2, true);
        assert_eq!(mapping, vec![0, 0]);
        assert!(!fits, "1.1 cores' worth pinned on core 0");
    }
}
