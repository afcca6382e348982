//! CPU bandwidth for best-effort work, one cgroup per core: S_BE per enforcing period P as a
//! CFS quota (cgroup v1 `cpu.cfs_quota_us` / `cpu.cfs_period_us`, v2 `cpu.max`), and the CPU
//! time the group actually received (v1 `cpuacct.usage`, v2 `cpu.stat` `usage_usec`). A
//! program on core c joins core c's group, pinned there, so the group's quota is that core's
//! S_BE. Every group is recorded in the partition's state file before it is created, so the
//! partition's reset removes it.
//!
//! CFS meters a quota per period of its own, started when the group first runs: its phase
//! has nothing to do with the RT task's releases. A quota of S_BE per P lets the load run its
//! S_BE in one stretch somewhere in each P, and whether that stretch meets the RT job depends on
//! that phase alone: the same half share gave the RT job +6 %, +17 %, +50 % and +91 % in four
//! runs here. The quota is therefore metered in k slices of P (S_BE/k per P/k, k as large as
//! the kernel's 1 ms floor on quotas allows, at most [`MAX_SLICES`]): the load's time is spread
//! over P and the job meets a share of it wherever it falls, the proportional relation between
//! S_BE and interference that the study's equation 5 assumes.
//!
//! On v1 the groups live in the cpu (and cpuacct) hierarchy under `kairos-manage`; on v2 a
//! process is in one cgroup only, so each group nests in the partition's cpuset cgroup
//! (`kairos-be/core1`) with the cpu controller enabled on the way; best-effort programs on the
//! RT core are then refused (the RT cgroup holds the RT process, and a v2 cgroup with
//! processes has no controlled children).

use crate::partition::state::{Change, Mechanism, State};
use crate::partition::{io, v1_mount, PartitionError};
use kairos_model::managed::MIN_CFS;
use kairos_model::Duration;
use std::path::{Path, PathBuf};

/// The most slices a quota is metered in: 2 ms slices of a 20 ms period, a timer rate of
/// 500 Hz on the load's core.
pub const MAX_SLICES: u64 = 10;

/// CFS's quota and period in µs for `share` of `period`: `share`/k per `period`/k, with k the
/// most slices whose quota is still the kernel's 1 ms or more.
pub fn sliced(share: Duration, period: Duration) -> (u64, u64) {
    let k = (share.as_nanos() / MIN_CFS.as_nanos()).clamp(1, MAX_SLICES);
    (share.as_nanos() / 1000 / k, period.as_nanos() / 1000 / k)
}

/// The bandwidth groups of one run.
pub struct Bandwidth {
    groups: Vec<Group>,
    v2: bool,
}

struct Group {
    /// Where the quota is set.
    cpu: PathBuf,
    /// Where usage is read (v1 cpuacct; the same directory when co-mounted, or on v2).
    acct: PathBuf,
    /// The `cgroup.procs` files a program joins, in order.
    joins: Vec<PathBuf>,
}

impl Bandwidth {
    /// Creates one group per entry of `cores` with quota `shares[i]` per `period`, recording
    /// each in `state` first.
    pub fn create(
        cores: &[usize],
        shares: &[Duration],
        period: Duration,
        state: &mut State,
    ) -> Result<Bandwidth, PartitionError> {
        let v2 = state.mechanism == Mechanism::CgroupV2;
        let groups = match v2 {
            true => v2_groups(cores, state)?,
            false => v1_groups(cores, state)?,
        };
        let bandwidth = Bandwidth { groups, v2 };
        for (i, share) in shares.iter().enumerate() {
            bandwidth.set(i, *share, period)?;
        }
        Ok(bandwidth)
    }

    /// Sets group `i`'s quota to `share` per `period`, metered in slices ([`sliced`]).
    pub fn set(&self, i: usize, share: Duration, period: Duration) -> Result<(), PartitionError> {
        let (quota, p) = sliced(share, period);
        let dir = &self.groups[i].cpu;
        match self.v2 {
            true => write(&dir.join("cpu.max"), &format!("{quota} {p}")),
            // Each value is checked alone against the kernel's bounds, which both meet.
            false => {
                write(&dir.join("cpu.cfs_period_us"), &p.to_string())?;
                write(&dir.join("cpu.cfs_quota_us"), &quota.to_string())
            }
        }
    }

    /// Removes every group's quota. Programs being stopped need CPU time to handle the signal
    /// and write their reports: at a quota of a few percent, stress-ng did not write its
    /// report within the two seconds it is given, and its work counted as none.
    pub fn lift(&self) -> Result<(), PartitionError> {
        for group in &self.groups {
            match self.v2 {
                true => write(&group.cpu.join("cpu.max"), "max")?,
                false => write(&group.cpu.join("cpu.cfs_quota_us"), "-1")?,
            }
        }
        Ok(())
    }

    /// The CPU time group `i` has received so far.
    pub fn usage(&self, i: usize) -> Option<Duration> {
        let dir = &self.groups[i].acct;
        match self.v2 {
            true => {
                let stat = std::fs::read_to_string(dir.join("cpu.stat")).ok()?;
                let usec = stat.lines().find_map(|l| l.strip_prefix("usage_usec "))?;
                Some(Duration::from_micros(usec.trim().parse().ok()?))
            }
            false => {
                let ns = std::fs::read_to_string(dir.join("cpuacct.usage")).ok()?;
                Some(Duration::from_nanos(ns.trim().parse().ok()?))
            }
        }
    }

    /// The `cgroup.procs` files a program of group `i` writes itself into.
    pub fn joins(&self, i: usize) -> &[PathBuf] {
        &self.groups[i].joins
    }
}

fn write(path: &Path, value: &str) -> Result<(), PartitionError> {
    std::fs::write(path, value).map_err(io(format!("write {value} to {}", path.display())))
}

/// Records `dir` (removed on reset, its tasks moved to `root`) and creates it.
fn make(dir: &Path, root: &Path, state: &mut State) -> Result<(), PartitionError> {
    if dir.exists() {
        return Err(PartitionError::Refused(format!(
            "{} exists but no run of kairos made it: remove it (rmdir) first",
            dir.display()
        )));
    }
    state.changes.push(Change::Cgroup {
        path: dir.to_path_buf(),
        parent: root.to_path_buf(),
    });
    state.save().map_err(io("write the partition state"))?;
    std::fs::create_dir(dir).map_err(io(format!("create {}", dir.display())))
}

/// The partition's cpuset for `core` (RT or BE side), if cpusets are used.
fn cpuset_of(core: usize, state: &State) -> Option<PathBuf> {
    let (rt, be) = state.cpusets.clone()?;
    Some(if state.rt.contains(&core) { rt } else { be })
}

fn v1_groups(cores: &[usize], state: &mut State) -> Result<Vec<Group>, PartitionError> {
    let cpu_root = v1_mount("cpu").ok_or_else(|| {
        PartitionError::Refused(
            "best-effort budgets need the cgroup cpu controller, which is not mounted".into(),
        )
    })?;
    let acct_root = v1_mount("cpuacct").unwrap_or_else(|| cpu_root.clone());
    let mut parents = vec![cpu_root.clone()];
    if acct_root != cpu_root {
        parents.push(acct_root.clone());
    }
    for root in &parents {
        make(&root.join("kairos-manage"), root, state)?;
    }
    let mut groups = Vec::new();
    for &core in cores {
        let name = format!("kairos-manage/core{core}");
        for root in &parents {
            make(&root.join(&name), root, state)?;
        }
        let mut joins: Vec<PathBuf> = cpuset_of(core, state).into_iter().collect();
        joins.extend(parents.iter().map(|r| r.join(&name)));
        groups.push(Group {
            cpu: cpu_root.join(&name),
            acct: acct_root.join(&name),
            joins: joins.into_iter().map(|d| d.join("cgroup.procs")).collect(),
        });
    }
    Ok(groups)
}

fn v2_groups(cores: &[usize], state: &mut State) -> Result<Vec<Group>, PartitionError> {
    let (rt, be) = state
        .cpusets
        .clone()
        .ok_or_else(|| PartitionError::Refused("a cgroup v2 partition has no cpusets".into()))?;
    let root = rt.parent().map(Path::to_path_buf).unwrap_or_default();
    if let Some(core) = cores.iter().find(|c| state.rt.contains(c)) {
        // kairos-rt holds the RT process, and a v2 cgroup with processes has no controlled
        // children.
        return Err(PartitionError::Refused(format!(
            "on cgroup v2 a best-effort program cannot run on the RT core {core}: move it to another core"
        )));
    }
    for dir in [&root, &be] {
        enable_cpu(dir, state)?;
    }
    let mut groups = Vec::new();
    for &core in cores {
        let dir = be.join(format!("core{core}"));
        make(&dir, &be, state)?;
        groups.push(Group {
            cpu: dir.clone(),
            acct: dir.clone(),
            joins: vec![dir.join("cgroup.procs")],
        });
    }
    Ok(groups)
}

/// Enables the v2 cpu controller in `dir`'s subtree, recorded first, unless it is on.
fn enable_cpu(dir: &Path, state: &mut State) -> Result<(), PartitionError> {
    let subtree = dir.join("cgroup.subtree_control");
    let enabled = std::fs::read_to_string(&subtree).map_err(io("read cgroup.subtree_control"))?;
    if enabled.split_whitespace().any(|c| c == "cpu") {
        return Ok(());
    }
    state.changes.push(Change::Controller {
        root: dir.to_path_buf(),
        name: "cpu".into(),
    });
    state.save().map_err(io("write the partition state"))?;
    write(&subtree, "+cpu")
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn ms(n: u64) -> Duration {
        Duration::from_millis(n)
    }

    #[test]
    fn a_quota_is_metered_in_as_many_slices_as_its_floor_allows() {
        assert_eq!(sliced(ms(10), ms(20)), (1000, 2000));
        assert_eq!(sliced(ms(3), ms(20)), (1000, 6666));
        assert_eq!(sliced(ms(1), ms(20)), (1000, 20_000));
        assert_eq!(sliced(ms(20), ms(20)), (2000, 2000));
        assert_eq!(sliced(ms(500), ms(1000)), (50_000, 100_000));
    }

    proptest! {
        /// Every slicing is one the kernel accepts, and keeps the share of P to within the
        /// µs each slice's integer division can lose.
        #[test]
        fn slices_keep_the_share_within_the_kernels_bounds(
            period_us in 1000u64..=1_000_000,
            share_permille in 0u64..=1000,
        ) {
            let share_us = (period_us * share_permille / 1000).max(1000);
            let (quota, p) = sliced(Duration::from_micros(share_us), Duration::from_micros(period_us));
            prop_assert!(quota >= 1000 && p >= 1000 && quota <= p, "{quota} {p}");
            let k = period_us / p;
            prop_assert!((1..=MAX_SLICES).contains(&k), "{k}");
            // The share the kernel meters, quota/p of P, against the one asked for.
            let metered = quota as f64 * period_us as f64 / p as f64;
            prop_assert!((metered - share_us as f64).abs() <= 2.0 * k as f64 + share_us as f64 * k as f64 / p as f64, "{metered} {share_us}");
        }
    }
}
