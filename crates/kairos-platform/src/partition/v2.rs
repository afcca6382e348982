//! cgroup v2: the RT CPUs become a cpuset partition root (`kairos-rt` with
//! `cpuset.cpus.partition = root`), which takes them out of every other cgroup's effective CPUs:
//! the kernel itself keeps all other threads, present and future, off them. `kairos-be` holds the
//! best-effort CPUs for `kairos exec --be`. The kernel rewrites the affinity of the threads whose
//! CPUs shrink, so every thread's affinity is recorded first and restored by the reset.

use super::state::{cpu_list, Change, State};
use super::tasks::{all_tids, describe};
use super::{io, write, PartitionError, Plan, Report};
use kairos_os::sched;
use std::path::{Path, PathBuf};

/// The cgroup2 mount point, when its root offers the cpuset controller.
pub fn v2_root() -> Option<PathBuf> {
    let mounts = std::fs::read_to_string("/proc/mounts").ok()?;
    mounts.lines().find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        let path = PathBuf::from(f.get(1)?);
        let controllers = std::fs::read_to_string(path.join("cgroup.controllers")).ok()?;
        (f.get(2) == Some(&"cgroup2") && controllers.split_whitespace().any(|c| c == "cpuset"))
            .then_some(path)
    })
}

/// Makes the partition under the cgroup2 `root`.
pub fn into_partition(
    root: &Path,
    plan: &Plan,
    state: &mut State,
    report: &mut Report,
) -> Result<(), PartitionError> {
    let (rt, be) = super::fresh_cgroups(root)?;
    let subtree = root.join("cgroup.subtree_control");
    let enabled = std::fs::read_to_string(&subtree).map_err(io("read cgroup.subtree_control"))?;
    let enable = !enabled.split_whitespace().any(|c| c == "cpuset");
    for tid in all_tids() {
        if let Ok(previous) = sched::affinity_of(tid) {
            state.changes.push(Change::Affinity { tid, previous });
        }
    }
    if enable {
        state.changes.push(Change::Controller {
            root: root.to_path_buf(),
            name: "cpuset".into(),
        });
    }
    for dir in [&rt, &be] {
        state.changes.push(Change::Cgroup {
            path: dir.clone(),
            parent: root.to_path_buf(),
        });
    }
    state.cpusets = Some((rt.clone(), be.clone()));
    state.save().map_err(io("write the partition state"))?;
    if enable {
        write(&subtree, "+cpuset").map_err(io("enable the cpuset controller"))?;
    }
    for (dir, cpus) in [(&rt, &plan.rt), (&be, &plan.be)] {
        std::fs::create_dir(dir).map_err(io(format!("create {}", dir.display())))?;
        write(&dir.join("cpuset.cpus"), &cpu_list(cpus)).map_err(io("set cpuset.cpus"))?;
    }
    write(&rt.join("cpuset.cpus.partition"), "root")
        .map_err(io("make kairos-rt a partition root"))?;
    let status = std::fs::read_to_string(rt.join("cpuset.cpus.partition")).unwrap_or_default();
    if status.trim() != "root" {
        return Err(PartitionError::Refused(format!(
            "the kernel did not make kairos-rt a partition root: {} (another cgroup may claim CPUs {})",
            status.trim(),
            cpu_list(&plan.rt)
        )));
    }
    for tid in all_tids() {
        let Ok(affinity) = sched::affinity_of(tid) else {
            continue;
        };
        match affinity.iter().any(|c| plan.rt.contains(c)) {
            false => report.moved += 1,
            true => {
                if let Some((name, _)) = describe(tid) {
                    let why = "bound to the RT CPUs (per-CPU kernel thread)".to_string();
                    report.not_moved.push((tid, name, why));
                }
            }
        }
    }
    Ok(())
}

/// Turns `kairos-rt` back into an ordinary member cgroup, which hands its CPUs back to the root
/// at once. Removing the directory alone would return them only when the kernel's offline work
/// runs, after the reset has restored affinities that the root's CPUs could not yet hold (the
/// kernel narrows them silently: seen on Linux 6.1).
pub fn release(rt: &Path, cpus: &[usize]) {
    let file = rt.join("cpuset.cpus.partition");
    if std::fs::read_to_string(&file).is_ok_and(|s| s.trim() != "member") {
        let _ = write(&file, "member");
    }
    let root_effective = rt.with_file_name("cpuset.cpus.effective");
    for _ in 0..100 {
        let effective = std::fs::read_to_string(&root_effective).unwrap_or_default();
        if super::state::parse_cpu_list(effective.trim())
            .is_ok_and(|e| cpus.iter().all(|c| e.contains(c)))
        {
            return;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
}

/// Disables a controller that kairos enabled.
pub fn disable_controller(root: &Path, name: &str) {
    let _ = write(&root.join("cgroup.subtree_control"), &format!("-{name}"));
}
