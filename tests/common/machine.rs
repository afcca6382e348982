//! What kairos may change on the machine, read field by field, so a test can compare before
//! and after a run.

use std::collections::BTreeMap;
use std::path::Path;

/// The kernel's flag for threads whose affinity user space may not set (PF_NO_SETAFFINITY in
/// /proc/TID/stat): workqueue workers and rescuers, per-CPU kernel threads.
const PF_NO_SETAFFINITY: u64 = 0x0400_0000;

/// Whether only the kernel sets this thread's affinity. A workqueue rescuer takes the mask of
/// the pool it last served, and the kernel gives every rescuer the workqueues' new unbound
/// mask when a cpuset partition changes it: such a thread's affinity moves on its own, and
/// nothing kairos does can change or restore it.
fn kernel_managed(stat: &str) -> bool {
    let flags = stat.rfind(')').and_then(|close| {
        // After the name: state ppid pgrp session tty_nr tpgid flags ...
        stat[close + 1..]
            .split_whitespace()
            .nth(6)?
            .parse::<u64>()
            .ok()
    });
    flags.is_some_and(|f| f & PF_NO_SETAFFINITY != 0)
}

/// Every thread's affinity and cpuset (but those only the kernel sets), and every interrupt's
/// affinity.
pub fn snapshot() -> BTreeMap<String, String> {
    let mut out = BTreeMap::new();
    for p in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = p.file_name().to_string_lossy().parse::<u32>() else {
            continue;
        };
        let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
            continue;
        };
        for t in tasks.flatten() {
            let dir = t.path();
            let stat = std::fs::read_to_string(dir.join("stat")).unwrap_or_default();
            if kernel_managed(&stat) {
                continue;
            }
            let status = std::fs::read_to_string(dir.join("status")).unwrap_or_default();
            let allowed = status.lines().find(|l| l.starts_with("Cpus_allowed_list"));
            let cpuset = std::fs::read_to_string(dir.join("cpuset")).unwrap_or_default();
            if let Some(allowed) = allowed {
                out.insert(
                    format!("tid {}", t.file_name().to_string_lossy()),
                    format!("{allowed} {}", cpuset.trim()),
                );
            }
        }
    }
    cgroups(&mut out);
    for i in std::fs::read_dir("/proc/irq").unwrap().flatten() {
        if let Ok(a) = std::fs::read_to_string(i.path().join("smp_affinity_list")) {
            out.insert(
                format!("irq {}", i.file_name().to_string_lossy()),
                a.trim().to_string(),
            );
        }
    }
    out
}

/// The entries both snapshots have that differ (threads born or gone in between are skipped).
pub fn changed(before: &BTreeMap<String, String>, after: &BTreeMap<String, String>) -> Vec<String> {
    before
        .iter()
        .filter_map(|(k, v)| {
            after
                .get(k)
                .filter(|w| *w != v)
                .map(|w| format!("{k}: {v} -> {w}"))
        })
        .collect()
}

/// Every cgroup directory of the cpu, cpuacct and cpuset hierarchies (v1) and the unified one,
/// with the control files kairos writes at their roots. Only those: kairos uses no other
/// controller, and other hierarchies hold groups other programs make and remove while a test
/// runs (a sandbox's process manager keeps one per command in the memory hierarchy).
fn cgroups(out: &mut BTreeMap<String, String>) {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    for line in mounts.lines() {
        let f: Vec<&str> = line.split_whitespace().collect();
        let v1_of_kairos =
            |options: &str| (options.split(',')).any(|o| matches!(o, "cpu" | "cpuacct" | "cpuset"));
        let watched = match f.get(2..4) {
            Some(["cgroup2", _]) => true,
            Some(["cgroup", options]) => v1_of_kairos(options),
            _ => false,
        };
        if watched {
            walk(Path::new(f[1]), out);
            for file in ["cpuset.sched_load_balance", "cgroup.subtree_control"] {
                if let Ok(v) = std::fs::read_to_string(Path::new(f[1]).join(file)) {
                    out.insert(format!("{}/{file}", f[1]), v.trim().to_string());
                }
            }
        }
    }
}

fn walk(dir: &Path, out: &mut BTreeMap<String, String>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for e in entries.flatten().filter(|e| e.path().is_dir()) {
        out.insert(format!("cgroup {}", e.path().display()), "present".into());
        walk(&e.path(), out);
    }
}

/// The keys present in only one snapshot whose name says cgroup (a group left behind or
/// removed), besides the values that differ.
pub fn cgroups_added_or_removed(
    before: &BTreeMap<String, String>,
    after: &BTreeMap<String, String>,
) -> Vec<String> {
    let only = |a: &BTreeMap<String, String>, b: &BTreeMap<String, String>, what: &str| {
        a.keys()
            .filter(|k| k.starts_with("cgroup ") && !b.contains_key(*k))
            .map(|k| format!("{k} {what}"))
            .collect::<Vec<_>>()
    };
    let mut out = only(after, before, "left behind");
    out.extend(only(before, after, "removed"));
    out
}
