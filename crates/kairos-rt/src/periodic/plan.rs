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
    /// The kernel's policy `kairos run --dispatch kernel --policy NAME` runs: a kernel policy's
    /// name, or `gedf`, which the kernel runs as SCHED_DEADLINE's global EDF.
    pub fn of_dispatched(name: &str) -> Option<Self> {
        match name {
            "gedf" => Some(PeriodicPolicy::Edf),
            _ => PeriodicPolicy::from_cli_name(name),
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
    /// Execution time of each busy job, drawn per (task, job) with `seed` exactly as the
    /// simulator draws it.
    pub execution_times: ExecutionTimeModel,
    pub seed: u64,
    /// The CPUs the run may use, in order (core c of the workload is the c-th); `None` for the
    /// CPUs this process may use now. A study names the CPUs it calibrated once, since which
    /// CPUs are online can change between its runs.
    pub cpus: Option<Vec<usize>>,
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
            execution_times: ExecutionTimeModel::Wcet,
            seed: 0,
            cpus: None,
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
        PeriodicPolicy::Pfp => pfp_threads(workload, config, machine, &mut notes)?,
        PeriodicPolicy::Gfp => gfp_threads(workload, config, &used)?,
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

/// SCHED_FIFO priority per task: within each group of threads that compete for CPUs (every
/// task under G-FP, the tasks of one core under P-FP), the group's most important task gets
/// [`priority::WORKER_MAX`] and each next one a level lower, so the kernel sees the
/// simulator's total order. A group with more tasks than FIFO levels would need ties, which the
/// kernel breaks by arrival order, not by the simulator's order: it is refused, and the
/// user-space dispatcher (which keeps the total order in the policy) is named instead.
fn fifo_priorities(
    workload: &Workload,
    config: &PeriodicConfig,
    group_of_task: &[usize],
) -> Result<Vec<Policy>, RunError> {
    let ranks = config.priorities.ranks(workload);
    let levels = (priority::WORKER_MAX - priority::MIN + 1) as usize;
    let mut policies = Vec::with_capacity(ranks.len());
    for (task, rank) in ranks.iter().enumerate() {
        let group = group_of_task[task];
        let above = (0..ranks.len())
            .filter(|&other| group_of_task[other] == group)
            .filter(|&other| ranks[other].is_more_important_than(*rank))
            .count();
        if above >= levels {
            return Err(RunError::Invalid(format!(
                "{} tasks compete for the same CPUs but SCHED_FIFO gives kairos {levels} \
                 distinct priorities ({}..={}): the kernel would break the ties by arrival \
                 order, not by the simulator's order; run with --dispatch user, which keeps \
                 the total order",
                group_of_task.iter().filter(|&&g| g == group).count(),
                priority::MIN,
                priority::WORKER_MAX
            )));
        }
        policies.push(Policy::Fifo {
            priority: priority::WORKER_MAX - above as i32,
        });
    }
    Ok(policies)
}

fn gfp_threads(
    workload: &Workload,
    config: &PeriodicConfig,
    used: &[usize],
) -> Result<Vec<ThreadPlan>, RunError> {
    let everyone = vec![0; workload.tasks.len()];
    Ok(fifo_priorities(workload, config, &everyone)?
        .into_iter()
        .enumerate()
        .map(|(task, policy)| ThreadPlan {
            task,
            policy,
            cpus: used.to_vec(),
        })
        .collect())
}

fn pfp_threads(
    workload: &Workload,
    config: &PeriodicConfig,
    machine: &[usize],
    notes: &mut Vec<String>,
) -> Result<Vec<ThreadPlan>, RunError> {
    let assignment = kairos_policy::policies::partition::assign_cores(workload)
        .map_err(|e| RunError::Invalid(e.to_string()))?;
    for &task in &assignment.overflowed {
        notes.push(format!(
            "task {} fits on no core by utilization; it shares the least-loaded one",
            workload.tasks[task].name
        ));
    }
    let cpu_of_task: Vec<usize> = assignment
        .core_of_task
        .iter()
        .map(|&core| machine[core % machine.len()])
        .collect();
    Ok(fifo_priorities(workload, config, &cpu_of_task)?
        .into_iter()
        .enumerate()
        .map(|(task, policy)| ThreadPlan {
            task,
            policy,
            cpus: vec![cpu_of_task[task]],
        })
        .collect())
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
