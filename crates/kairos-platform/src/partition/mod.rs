//! RT and best-effort core partitions inside one Linux (as in Multi-scheduling (RT and non-RT schedulers on separate cores of one Linux); mechanisms in `linux-platform.md`):
//! the RT CPUs keep only what kairos places there, everything else runs on the best-effort CPUs.
//!
//! With cgroup v1 cpusets (detected), two cpusets `kairos-rt` and `kairos-be` are created and
//! every thread of the root cpuset moves to `kairos-be` (as `cset shield` does); with cgroup v2
//! `kairos-rt` becomes a cpuset partition root (`v2`); without either, every thread's
//! affinity is set to the best-effort CPUs. Kernel threads and interrupts move
//! only when asked (`irqs`); what refuses to move (per-CPU kernel threads, some interrupts) is
//! reported with the reason. Every change is written to the state file ([`state`]) before it
//! is made, and [`reset`] undoes them all — after a clean run, a signal or a crash.
//! `isolcpus=` and `nohz_full=` need a reboot and are out of reach: the report says so.

mod irq;
pub mod state;
mod tasks;
mod v2;

use kairos_os::sched;
use state::{cpu_list, Change, Mechanism, State};
use std::path::{Path, PathBuf};

/// What to partition.
#[derive(Clone, Debug)]
pub struct Plan {
    pub rt: Vec<usize>,
    pub be: Vec<usize>,
    /// Also move interrupts and unbound kernel threads off the RT CPUs.
    pub irqs: bool,
    /// Force affinity masks even where cpusets exist.
    pub affinity_only: bool,
}

/// Why a partition could not be made or undone.
#[derive(Debug, thiserror::Error)]
pub enum PartitionError {
    #[error("{0}")]
    Refused(String),
    #[error("{what}: {source}")]
    Io {
        what: String,
        source: std::io::Error,
    },
}

pub(crate) fn io(what: impl Into<String>) -> impl FnOnce(std::io::Error) -> PartitionError {
    let what = what.into();
    move |source| PartitionError::Io { what, source }
}

/// What a partition did.
#[derive(Debug, Default, serde::Serialize)]
pub struct Report {
    pub moved: usize,
    /// Threads that stayed: (tid, name, why).
    pub not_moved: Vec<(i32, String, String)>,
    pub irqs_moved: Vec<u32>,
    /// Interrupts that refused: (irq, why).
    pub irqs_refused: Vec<(u32, String)>,
    pub notes: Vec<String>,
}

/// The cpuset hierarchy's mount point, when cgroup v1 mounts one.
pub fn cpuset_root() -> Option<PathBuf> {
    v1_mount("cpuset")
}

/// The mount point of the cgroup v1 hierarchy that carries `controller`.
pub fn v1_mount(controller: &str) -> Option<PathBuf> {
    let mounts = std::fs::read_to_string("/proc/mounts").ok()?;
    mounts.lines().find_map(|line| {
        let f: Vec<&str> = line.split_whitespace().collect();
        (f.len() > 3 && f[2] == "cgroup" && f[3].split(',').any(|o| o == controller))
            .then(|| PathBuf::from(f[1]))
    })
}

/// Moves the calling process into the partition's RT or best-effort cpuset (nothing to do when
/// the partition uses affinity masks alone).
pub fn join(state: &State, rt_side: bool) -> Result<(), PartitionError> {
    if let Some((rt, be)) = &state.cpusets {
        let dir = if rt_side { rt } else { be };
        write(&dir.join("cgroup.procs"), &std::process::id().to_string())
            .map_err(io(format!("join {}", dir.display())))?;
    }
    Ok(())
}

/// Makes the partition of `plan` (see the module documentation).
pub fn apply(plan: &Plan) -> Result<(State, Report), PartitionError> {
    check_plan(plan)?;
    if let Some(existing) = State::load().map_err(io("read the partition state"))? {
        return Err(PartitionError::Refused(format!(
            "a partition is in place (RT CPUs {}, made by pid {}): kairos partition --reset first",
            cpu_list(&existing.rt),
            existing.pid
        )));
    }
    let (v1, v2) = match plan.affinity_only {
        true => (None, None),
        false => (cpuset_root(), v2::v2_root()),
    };
    let mechanism = match (&v1, &v2) {
        (Some(_), _) => Mechanism::CgroupV1,
        (None, Some(_)) => Mechanism::CgroupV2,
        (None, None) => Mechanism::Affinity,
    };
    let mut state = State {
        pid: std::process::id(),
        rt: plan.rt.clone(),
        be: plan.be.clone(),
        mechanism,
        cpusets: None,
        changes: Vec::new(),
    };
    let mut report = Report::default();
    match (&v1, &v2) {
        (Some(root), _) => tasks::into_cpusets(root, plan, &mut state, &mut report)?,
        (None, Some(root)) => v2::into_partition(root, plan, &mut state, &mut report)?,
        (None, None) => tasks::by_affinity(plan, &mut state, &mut report)?,
    }
    if plan.irqs {
        irq::move_all(&plan.be, &mut state, &mut report)?;
    }
    report.notes.push(
        "isolcpus= and nohz_full= are boot parameters: kairos cannot set them at run time".into(),
    );
    Ok((state, report))
}

fn check_plan(plan: &Plan) -> Result<(), PartitionError> {
    let online = kairos_os::online_cpus();
    let refuse = |m: String| Err(PartitionError::Refused(m));
    if plan.rt.is_empty() || plan.be.is_empty() {
        return refuse("both partitions need at least one CPU".into());
    }
    if let Some(c) = plan.rt.iter().chain(&plan.be).find(|c| !online.contains(c)) {
        return refuse(format!(
            "CPU {c} is not one of this machine's CPUs {}",
            cpu_list(&online)
        ));
    }
    if let Some(c) = plan.rt.iter().find(|c| plan.be.contains(c)) {
        return refuse(format!("CPU {c} is in both partitions"));
    }
    Ok(())
}

/// Undoes the partition in place, if any: interrupts first, then the threads go back to the
/// root cpuset and the cpusets are removed, then every recorded affinity comes back.
pub fn reset() -> Result<Option<State>, PartitionError> {
    let Some(state) = State::load().map_err(io("read the partition state"))? else {
        return Ok(None);
    };
    for change in &state.changes {
        if let Change::Irq { irq, previous } = change {
            irq::restore(*irq, previous);
        }
    }
    if let (Mechanism::CgroupV2, Some((rt, _))) = (state.mechanism, &state.cpusets) {
        v2::release(rt, &state.rt);
    }
    for change in state.changes.iter().rev() {
        if let Change::Cgroup { path, parent } = change {
            tasks::remove_cpuset(path, parent)?;
        }
    }
    for change in state.changes.iter().rev() {
        match change {
            Change::Controller { root, name } => v2::disable_controller(root, name),
            Change::Setting { path, previous } => {
                let _ = write(path, previous);
            }
            _ => {}
        }
    }
    for change in &state.changes {
        match change {
            Change::Moved { tid, affinity }
            | Change::Affinity {
                tid,
                previous: affinity,
            } => {
                // A thread that has exited since is gone with its affinity.
                let _ = sched::set_affinity(*tid, affinity);
            }
            _ => {}
        }
    }
    State::remove().map_err(io("remove the partition state"))?;
    Ok(Some(state))
}

/// `kairos-rt` and `kairos-be` under `root`, refused if either exists already (left by hand or
/// by a partition whose state file is gone).
fn fresh_cgroups(root: &Path) -> Result<(PathBuf, PathBuf), PartitionError> {
    let (rt, be) = (root.join("kairos-rt"), root.join("kairos-be"));
    if let Some(dir) = [&rt, &be].into_iter().find(|d| d.exists()) {
        return Err(PartitionError::Refused(format!(
            "{} exists but no partition state does: remove it (rmdir) first",
            dir.display()
        )));
    }
    Ok((rt, be))
}

/// Writes `value` to a control file.
fn write(path: &Path, value: &str) -> Result<(), std::io::Error> {
    std::fs::write(path, value)
}
