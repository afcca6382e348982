//! Moving threads off the RT CPUs: into the `kairos-be` cpuset (cgroup v1), or by affinity.
//! Each batch of changes is saved to the state file before it is made.

use super::state::{cpu_list, Change, State};
use super::{io, write, PartitionError, Plan, Report};
use kairos_os::sched;
use std::path::{Path, PathBuf};

/// The kernel's flag for kernel threads in /proc/PID/stat (PF_KTHREAD).
const PF_KTHREAD: u64 = 0x0020_0000;

/// `(name, is a kernel thread)` of a thread, from /proc/TID/stat; None once it has exited.
pub(super) fn describe(tid: i32) -> Option<(String, bool)> {
    let stat = std::fs::read_to_string(format!("/proc/{tid}/stat")).ok()?;
    let open = stat.find('(')?;
    let close = stat.rfind(')')?;
    let name = stat[open + 1..close].to_string();
    // After the name: state ppid pgrp session tty_nr tpgid flags ...
    let flags: u64 = stat[close + 1..].split_whitespace().nth(6)?.parse().ok()?;
    Some((name, flags & PF_KTHREAD != 0))
}

/// The threads to move among `tids`, with their affinity now; kernel threads only if asked.
fn movable(tids: Vec<i32>, plan: &Plan, report: &mut Report) -> Vec<(i32, Vec<usize>)> {
    let mut out = Vec::new();
    for tid in tids {
        let Some((name, kernel)) = describe(tid) else {
            continue;
        };
        if kernel && !plan.irqs {
            continue;
        }
        match sched::affinity_of(tid) {
            Ok(affinity) => out.push((tid, affinity)),
            Err(e) => report.not_moved.push((tid, name, e.to_string())),
        }
    }
    out
}

fn read_tids(file: &Path) -> Result<Vec<i32>, PartitionError> {
    let text = std::fs::read_to_string(file).map_err(io(format!("read {}", file.display())))?;
    Ok(text.lines().filter_map(|l| l.trim().parse().ok()).collect())
}

/// Every thread of this machine.
pub(super) fn all_tids() -> Vec<i32> {
    let Ok(procs) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    procs
        .flatten()
        .filter_map(|p| p.file_name().to_str()?.parse::<i32>().ok())
        .flat_map(|pid| {
            std::fs::read_dir(format!("/proc/{pid}/task"))
                .into_iter()
                .flatten()
                .flatten()
                .filter_map(|t| t.file_name().to_str()?.parse::<i32>().ok())
        })
        .collect()
}

fn why(e: &std::io::Error) -> String {
    match e.raw_os_error() {
        Some(libc::EINVAL) => "bound to its CPU (a per-CPU kernel thread refuses to move)".into(),
        _ => e.to_string(),
    }
}

/// cgroup v1: creates `kairos-rt` and `kairos-be` under `root`, moves the root cpuset's
/// threads into `kairos-be`.
pub fn into_cpusets(
    root: &Path,
    plan: &Plan,
    state: &mut State,
    report: &mut Report,
) -> Result<(), PartitionError> {
    let (rt, be) = super::fresh_cgroups(root)?;
    state.cpusets = Some((rt.clone(), be.clone()));
    for dir in [&rt, &be] {
        state.changes.push(Change::Cgroup {
            path: dir.clone(),
            parent: root.to_path_buf(),
        });
    }
    state.save().map_err(io("write the partition state"))?;
    let mems = std::fs::read_to_string(root.join("cpuset.effective_mems"))
        .or_else(|_| std::fs::read_to_string(root.join("cpuset.mems")))
        .map_err(io("read the root cpuset's memory nodes"))?;
    for (dir, cpus) in [(&rt, &plan.rt), (&be, &plan.be)] {
        std::fs::create_dir(dir).map_err(io(format!("create {}", dir.display())))?;
        write(&dir.join("cpuset.mems"), mems.trim()).map_err(io("set cpuset.mems"))?;
        write(&dir.join("cpuset.cpus"), &cpu_list(cpus)).map_err(io("set cpuset.cpus"))?;
    }
    if write(&rt.join("cpuset.cpu_exclusive"), "1").is_err() {
        report.notes.push(
            "the RT cpuset could not be made CPU-exclusive (a sibling cpuset overlaps)".into(),
        );
    }
    let threads = movable(read_tids(&root.join("tasks"))?, plan, report);
    record_then(state, &threads, |tid, affinity| Change::Moved {
        tid,
        affinity,
    })?;
    let target = be.join("tasks");
    for (tid, _) in threads {
        match write(&target, &tid.to_string()) {
            Ok(()) => report.moved += 1,
            Err(e) if e.raw_os_error() == Some(libc::ESRCH) => {}
            Err(e) => report.not_moved.push((
                tid,
                describe(tid).map(|d| d.0).unwrap_or_default(),
                why(&e),
            )),
        }
    }
    let others = other_cpusets(root);
    if !others.is_empty() {
        report.notes.push(format!(
            "threads in other cpusets were left where they are: {}",
            others.join(", ")
        ));
    }
    Ok(())
}

/// Records one change per thread and saves the state before any is made.
fn record_then(
    state: &mut State,
    threads: &[(i32, Vec<usize>)],
    change: impl Fn(i32, Vec<usize>) -> Change,
) -> Result<(), PartitionError> {
    (state.changes).extend(threads.iter().map(|(t, a)| change(*t, a.clone())));
    state.save().map_err(io("write the partition state"))
}

/// Child cpusets of `root` other than kairos's that hold threads.
fn other_cpusets(root: &Path) -> Vec<String> {
    let Ok(dirs) = std::fs::read_dir(root) else {
        return Vec::new();
    };
    dirs.flatten()
        .filter(|d| d.path().is_dir())
        .filter(|d| !d.file_name().to_string_lossy().starts_with("kairos-"))
        .filter(|d| {
            std::fs::read_to_string(d.path().join("tasks")).is_ok_and(|t| !t.trim().is_empty())
        })
        .map(|d| d.file_name().to_string_lossy().into_owned())
        .collect()
}

/// Without cpusets: every thread's affinity becomes the best-effort CPUs.
pub fn by_affinity(
    plan: &Plan,
    state: &mut State,
    report: &mut Report,
) -> Result<(), PartitionError> {
    let threads = movable(all_tids(), plan, report);
    record_then(state, &threads, |tid, previous| Change::Affinity {
        tid,
        previous,
    })?;
    for (tid, _) in threads {
        match sched::set_affinity(tid, &plan.be) {
            Ok(()) => report.moved += 1,
            Err(e) => {
                let name = describe(tid).map(|d| d.0);
                if let Some(name) = name {
                    report.not_moved.push((tid, name, e.to_string()));
                }
            }
        }
    }
    Ok(())
}

/// Moves every thread of the cpuset `path` back to `parent` and removes it.
pub fn remove_cpuset(path: &PathBuf, parent: &Path) -> Result<(), PartitionError> {
    if !path.exists() {
        return Ok(());
    }
    // v1 lists threads in `tasks`; v2 has processes in `cgroup.procs` only.
    let file = match path.join("tasks").exists() {
        true => "tasks",
        false => "cgroup.procs",
    };
    // cgroup v2 keeps processes out of a non-root cgroup that hands controllers to its children
    // (kairos-be for the manager's per-core groups): each one goes to the nearest ancestor
    // that takes it, the root at the latest.
    let targets: Vec<PathBuf> = (parent.ancestors())
        .map(|dir| dir.join(file))
        .take_while(|f| f.exists())
        .collect();
    // Threads may be born meanwhile (a fork in the cpuset): a few passes until it is empty.
    for _ in 0..20 {
        for tid in read_tids(&path.join(file))? {
            let tid = tid.to_string();
            let _ = targets.iter().find(|t| write(t, &tid).is_ok());
        }
        match std::fs::remove_dir(path) {
            Ok(()) => return Ok(()),
            Err(e) if e.raw_os_error() == Some(libc::EBUSY) => {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(e) => return Err(io(format!("remove {}", path.display()))(e)),
        }
    }
    Err(PartitionError::Refused(format!(
        "{} still has threads after 20 passes: kairos partition --reset again",
        path.display()
    )))
}
