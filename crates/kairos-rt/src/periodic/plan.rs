//! Which thread runs each task, where and with what policy: the plan of a periodic run,
//! checked before any thread exists (priorities, CPUs, SCHED_DEADLINE parameters).

use super::*;

/// How the kernel schedules the task threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum PeriodicPolicy {
    Pfp,
    Gfp,
    Edf,
}

impl PeriodicPolicy {
    pub fn from_cli_name(name: &str) -> Option<Self> {
        match name {
            "pfp" => Some(PeriodicPolicy::Pfp),
            "gfp" => Some(PeriodicPolicy::Gfp),
            "edf" => Some(PeriodicPolicy::Edf),
            _ => None,
        }
    }
    pub fn cli_name(self) -> &'static str {
        match self {
            PeriodicPolicy::Pfp => "pfp",
            PeriodicPolicy::Gfp => "gfp",
            PeriodicPolicy::Edf => "edf",
        }
    }
}

/// A run's parameters.
#[derive(Clone, Debug, PartialEq)]
pub struct PeriodicConfig {
    pub policy: PeriodicPolicy,
    pub priorities: PriorityOrder,
    pub duration_ns: u64,
    /// The body of each task's jobs, indexed like `workload.tasks` (missing = busy work).
    pub bodies: Vec<JobBody>,
    /// SCHED_DEADLINE runtime = WCET x (1 + ratio) + fixed, capped at the deadline.
    pub edf_margin_ratio: f64,
    pub edf_margin_ns: u64,
    /// Time after the end before the watchdog's hard stop.
    pub grace_ns: u64,
    /// CPU time without progress after which the watchdog demotes everything.
    pub stall_ns: u64,
    /// Time between the threads being ready and the first release (threads settle).
    pub start_delay_ns: u64,
}

impl PeriodicConfig {
    pub fn new(policy: PeriodicPolicy, duration_ns: u64) -> Self {
        PeriodicConfig {
            policy,
            priorities: PriorityOrder::Auto,
            duration_ns,
            bodies: Vec::new(),
            edf_margin_ratio: 0.10,
            edf_margin_ns: 50_000,
            grace_ns: 1_000_000_000,
            stall_ns: 1_000_000_000,
            start_delay_ns: 20_000_000,
        }
    }
}

/// Why a run could not happen.
#[derive(Debug, Error)]
pub enum RunError {
    #[error(transparent)]
    Platform(#[from] PlatformError),
    /// The workload cannot run as asked (bad input, exit 2 in the CLI).
    #[error("{0}")]
    Invalid(String),
}

/// Where and how each task's thread runs.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadPlan {
    pub task: usize,
    pub policy: Policy,
    pub cpus: Vec<usize>,
}

/// The threads of a run and anything the user should know about the mapping.
#[derive(Clone, Debug, PartialEq)]
pub struct Plan {
    pub threads: Vec<ThreadPlan>,
    /// Every CPU some thread may use (calibrate these).
    pub cpus: Vec<usize>,
    pub notes: Vec<String>,
}

/// Maps the workload onto `machine` (the CPUs this process may use) under `config`.
pub fn plan(
    workload: &Workload,
    config: &PeriodicConfig,
    machine: &[usize],
) -> Result<Plan, RunError> {
    if machine.is_empty() {
        return Err(RunError::Invalid("no CPU available".into()));
    }
    if workload.tasks.is_empty() {
        return Err(RunError::Invalid("the workload has no task".into()));
    }
    let mut notes = Vec::new();
    if workload.cores > machine.len() && config.policy != PeriodicPolicy::Edf {
        notes.push(format!(
            "the workload has {} cores but this machine gives {} CPUs: core c runs on CPU number c mod {}",
            workload.cores,
            machine.len(),
            machine.len()
        ));
    }
    let used: Vec<usize> = machine[..workload.cores.clamp(1, machine.len())].to_vec();
    let threads = match config.policy {
        PeriodicPolicy::Pfp => pfp_threads(workload, config, machine, &mut notes),
        PeriodicPolicy::Gfp => fifo_threads(workload, config, &mut notes)
            .into_iter()
            .map(|(task, policy)| ThreadPlan {
                task,
                policy,
                cpus: used.clone(),
            })
            .collect(),
        PeriodicPolicy::Edf => edf_threads(workload, config, machine, &mut notes)?,
    };
    let mut cpus: Vec<usize> = threads
        .iter()
        .flat_map(|t| t.cpus.iter().copied())
        .collect();
    cpus.sort_unstable();
    cpus.dedup();
    if workload
        .tasks
        .iter()
        .any(|t| !matches!(t.arrival, kairos_model::Arrival::Periodic))
    {
        notes.push("sporadic tasks are released at their minimum inter-arrival time".into());
    }
    Ok(Plan {
        threads,
        cpus,
        notes,
    })
}

/// SCHED_FIFO priority per task from the priority order: rank 0 gets [`priority::WORKER_MAX`].
fn fifo_threads(
    workload: &Workload,
    config: &PeriodicConfig,
    notes: &mut Vec<String>,
) -> Vec<(usize, Policy)> {
    let ranks = config.priorities.ranks(workload);
    let levels = (priority::WORKER_MAX - priority::MIN + 1) as u64;
    if ranks.len() as u64 > levels {
        notes.push(format!(
            "{} tasks share {levels} SCHED_FIFO levels: the least important ones share priority {}",
            ranks.len(),
            priority::MIN
        ));
    }
    ranks
        .iter()
        .enumerate()
        .map(|(task, &rank)| {
            let priority = (priority::WORKER_MAX as i64 - rank.tasks_above() as i64)
                .max(priority::MIN as i64) as i32;
            (task, Policy::Fifo { priority })
        })
        .collect()
}

fn pfp_threads(
    workload: &Workload,
    config: &PeriodicConfig,
    machine: &[usize],
    notes: &mut Vec<String>,
) -> Vec<ThreadPlan> {
    let assignment = kairos_policy::policies::partition::assign_cores(workload);
    for &task in &assignment.overflowed {
        notes.push(format!(
            "task {} fits on no core by utilization; it shares the least-loaded one",
            workload.tasks[task].name
        ));
    }
    fifo_threads(workload, config, notes)
        .into_iter()
        .map(|(task, policy)| ThreadPlan {
            task,
            policy,
            cpus: vec![machine[assignment.core_of_task[task] % machine.len()]],
        })
        .collect()
}

fn edf_threads(
    workload: &Workload,
    config: &PeriodicConfig,
    machine: &[usize],
    notes: &mut Vec<String>,
) -> Result<Vec<ThreadPlan>, RunError> {
    if workload.cores < machine.len() {
        notes.push(format!(
            "edf: SCHED_DEADLINE threads may run on all {} CPUs of the root domain (the kernel refuses a narrower affinity), not only the workload's {} core(s)",
            machine.len(),
            workload.cores
        ));
    }
    workload
        .tasks
        .iter()
        .enumerate()
        .map(|(task, t)| {
            let wcet = t.wcet.as_nanos();
            let margin = (wcet as f64 * config.edf_margin_ratio) as u64 + config.edf_margin_ns;
            let deadline = t.deadline.as_nanos().min(t.period.as_nanos());
            let params = DeadlineParams {
                runtime: (wcet + margin).clamp(MIN_DEADLINE_RUNTIME_NS, deadline.max(MIN_DEADLINE_RUNTIME_NS)),
                deadline,
                period: t.period.as_nanos(),
            };
            if params.runtime > params.deadline {
                return Err(RunError::Invalid(format!(
                    "task {}: SCHED_DEADLINE needs a deadline of at least {MIN_DEADLINE_RUNTIME_NS} ns",
                    t.name
                )));
            }
            Ok(ThreadPlan { task, policy: Policy::Deadline(params), cpus: machine.to_vec() })
        })
        .collect()
}
