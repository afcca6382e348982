//! Real execution of periodic and sporadic task sets: one thread
//! per task, released by `clock_nanosleep(TIMER_ABSTIME)` on CLOCK_MONOTONIC, whose jobs are
//! calibrated busy work of the task's WCET ([`crate::calibrate`]) or a user command. The
//! kernel schedules them:
//!
//! - `pfp`: partitioned fixed priority, SCHED_FIFO priorities (rate-monotonic, deadline-
//!   monotonic or the file's), each thread pinned to one CPU: the task's `core`, else first-fit
//!   decreasing ([`kairos_sim::partition::assign_cores`], the simulator's own binding, so a
//!   simulated and a measured run place tasks alike);
//! - `gfp`: global fixed priority, the same priorities, every thread allowed on the run's CPUs;
//! - `edf`: SCHED_DEADLINE (global EDF with CBS budgets, runtime = WCET plus a margin,
//!   deadline D, period T) on every CPU of the root domain, since the kernel refuses a
//!   deadline thread a narrower affinity.
//!
//! Sporadic tasks are released at their minimum inter-arrival time (the densest pattern, the
//! one analysis assumes). Every job records its intended release, actual start, completion and
//! CPU; busy work also records where it ran, split where the CPU changed (a migration) or where
//! wall time ran ahead of CPU time (a preemption), to the resolution of one busy chunk.

use crate::calibrate::{run_command, BusyWork, Calibration, Chunk, JobBody};
use crate::measure::{JobRecord, RunInputs, RunResult, SegmentRecord, ThreadLog};
use crate::platform::sched::{DeadlineParams, Policy, MIN_DEADLINE_RUNTIME_NS};
use crate::platform::{self, clock, dma, memory, priority, sched, thread, PlatformError};
use crate::watchdog::{Guarded, Heartbeat, RunControl, Watchdog, WatchdogConfig};
use kairos_model::Workload;
use kairos_sim::policy::fixed_priority::PriorityOrder;
use std::sync::atomic::AtomicI32;
use std::sync::{Arc, Condvar, Mutex};
use thiserror::Error;

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
            let priority =
                (priority::WORKER_MAX as i64 - rank as i64).max(priority::MIN as i64) as i32;
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
    let assignment = kairos_sim::partition::assign_cores(workload);
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

/// Released once: the run's origin on CLOCK_MONOTONIC, or `None` if the run was abandoned.
#[derive(Default)]
struct StartGate {
    state: Mutex<Option<Option<u64>>>,
    opened: Condvar,
}

impl StartGate {
    fn open(&self, origin: Option<u64>) {
        if let Ok(mut state) = self.state.lock() {
            *state = Some(origin);
        }
        self.opened.notify_all();
    }

    fn wait(&self) -> Option<u64> {
        let mut state = self.state.lock().ok()?;
        loop {
            if let Some(origin) = *state {
                return origin;
            }
            state = self.opened.wait(state).ok()?;
        }
    }
}

/// What a worker thread needs.
struct Worker {
    task: usize,
    wcet_ns: u64,
    period_ns: u64,
    deadline_ns: u64,
    offset_ns: u64,
    duration_ns: u64,
    body: JobBody,
    work: BusyWork,
    gate: Arc<StartGate>,
    control: Arc<RunControl>,
    heartbeat: Arc<Heartbeat>,
    child: Arc<AtomicI32>,
}

/// Runs `workload` for real under `config` (see the module documentation). The caller
/// calibrates (on [`plan`]'s CPUs) and may hold a [`platform::signals::StopSignals`] guard,
/// which the watchdog turns into a clean stop.
pub fn run_periodic(
    workload: &Workload,
    config: &PeriodicConfig,
    calibration: &Calibration,
    control: Arc<RunControl>,
) -> Result<RunResult, RunError> {
    let plan = plan(workload, config, &platform::online_cpus())?;
    memory::lock_all_memory()?;
    let dma = dma::DmaLatencyGuard::acquire();
    let gate = Arc::new(StartGate::default());
    let total_bandwidth: f64 = plan
        .threads
        .iter()
        .filter_map(|t| match t.policy {
            Policy::Deadline(p) => Some(p.bandwidth()),
            _ => None,
        })
        .sum();
    let mut handles = Vec::with_capacity(plan.threads.len());
    for t in &plan.threads {
        let worker = make_worker(workload, config, calibration, t, &gate, &control);
        let guarded = Guarded {
            name: String::new(),
            tid: 0,
            heartbeat: Arc::clone(&worker.heartbeat),
            child: Arc::clone(&worker.child),
        };
        let spec = thread::ThreadSpec {
            name: format!("kairos-{}", workload.tasks[t.task].name),
            policy: t.policy,
            cpus: t.cpus.clone(),
        };
        match thread::spawn_with_total(spec, Some(total_bandwidth), move || run_worker(worker)) {
            Ok(h) => handles.push((h, guarded)),
            Err(e) => {
                abandon(&gate, handles);
                return Err(e.into());
            }
        }
    }
    let origin = clock::now_ns() + config.start_delay_ns;
    let end = origin + config.duration_ns;
    let mut wd_config = WatchdogConfig::for_run(end, config.grace_ns);
    wd_config.stall_ns = config.stall_ns;
    let watchdog = match Watchdog::start(Arc::clone(&control), wd_config) {
        Ok(w) => w,
        Err(e) => {
            abandon(&gate, handles);
            return Err(e.into());
        }
    };
    for (h, guarded) in &handles {
        watchdog.guard(Guarded {
            name: h.name().to_string(),
            tid: h.tid(),
            ..guarded.clone()
        });
    }
    gate.open(Some(origin));
    let mut logs = Vec::with_capacity(handles.len());
    let mut failures = Vec::new();
    for (h, _) in handles {
        match h.join() {
            Ok(log) => logs.push(log),
            Err(e) => failures.push(e.to_string()),
        }
    }
    // A stopped run ends at the stop request: jobs cut short by it are not misses.
    let ended = control.stopped_at_ns().unwrap_or_else(clock::now_ns);
    let ran_ns = ended.saturating_sub(origin).min(config.duration_ns);
    let intervention = watchdog.stop();
    let mut notes = plan.notes;
    dma_note(&dma, &mut notes);
    notes.extend(
        failures
            .into_iter()
            .map(|f| format!("a worker failed: {f}")),
    );
    notes.extend(leftover_rt_threads());
    let stopped_by = intervention.or_else(|| control.reason());
    Ok(RunResult::build(RunInputs {
        policy: config.policy.cli_name().into(),
        task_names: workload.tasks.iter().map(|t| t.name.clone()).collect(),
        cpus: plan.cpus,
        duration_ns: config.duration_ns,
        ran_ns,
        stopped_by,
        dma_latency_held: dma.held(),
        calibration: calibration.clone(),
        logs,
        extra_events: Vec::new(),
        levels: Vec::new(),
        notes,
    }))
}

fn dma_note(dma: &dma::DmaLatencyGuard, notes: &mut Vec<String>) {
    if let Some(note) = dma.note() {
        notes.push(note.to_string());
    }
}

/// Real-time threads still alive after a run (there should be none): demoted and reported.
fn leftover_rt_threads() -> Vec<String> {
    sched::rt_threads_of_self()
        .into_iter()
        .map(|(tid, policy)| {
            let _ = sched::set_other(tid);
            format!("thread {tid} was still real-time (policy {policy}) after the run: demoted")
        })
        .collect()
}

/// Releases already created workers without running anything and waits for them.
fn abandon(gate: &StartGate, handles: Vec<(thread::RtThread<ThreadLog>, Guarded)>) {
    gate.open(None);
    for (h, _) in handles {
        let _ = h.join();
    }
}

fn make_worker(
    workload: &Workload,
    config: &PeriodicConfig,
    calibration: &Calibration,
    t: &ThreadPlan,
    gate: &Arc<StartGate>,
    control: &Arc<RunControl>,
) -> Worker {
    let task = &workload.tasks[t.task];
    let pinned = (t.cpus.len() == 1).then(|| t.cpus[0]);
    Worker {
        task: t.task,
        wcet_ns: task.wcet.as_nanos(),
        period_ns: task.period.as_nanos().max(1),
        deadline_ns: task.deadline.as_nanos(),
        offset_ns: task.offset.as_nanos(),
        duration_ns: config.duration_ns,
        body: config.bodies.get(t.task).cloned().unwrap_or(JobBody::Busy),
        work: calibration.busy_work(pinned),
        gate: Arc::clone(gate),
        control: Arc::clone(control),
        heartbeat: Arc::new(Heartbeat::default()),
        child: Arc::new(AtomicI32::new(0)),
    }
}

/// Longest single sleep, so a stop request is seen within this time even between releases.
const SLEEP_STEP_NS: u64 = 50_000_000;

/// Sleeps until `target` unless the run is stopped first; false if it was.
fn sleep_until_or_stop(target: u64, control: &RunControl) -> bool {
    loop {
        if control.should_stop() {
            return false;
        }
        let now = clock::now_ns();
        if now >= target {
            return true;
        }
        clock::sleep_until(target.min(now + SLEEP_STEP_NS));
    }
}

fn run_worker(w: Worker) -> ThreadLog {
    memory::prefault_stack();
    let jobs = (w.duration_ns.saturating_sub(w.offset_ns) / w.period_ns + 1) as usize;
    let mut log = ThreadLog::with_capacity(jobs);
    let Some(origin) = w.gate.wait() else {
        return log;
    };
    let end = origin + w.duration_ns;
    for job in 0u64.. {
        let release = w.offset_ns + job * w.period_ns;
        if release >= w.duration_ns || !sleep_until_or_stop(origin + release, &w.control) {
            break;
        }
        w.heartbeat.beat();
        let start = clock::now_ns();
        let mut record = JobRecord {
            task: w.task,
            job,
            release,
            deadline: release + w.deadline_ns,
            start: Some(start - origin),
            completion: None,
            discarded: None,
            cpu: Some(clock::current_cpu()),
        };
        let finished = match &w.body {
            JobBody::Busy => busy_job(&w, origin, job, &mut log),
            JobBody::Command(command) => command_job(&w, command, origin, job, &mut log),
        };
        if finished {
            record.completion = Some(clock::now_ns() - origin);
        }
        log.jobs.push(record);
        if clock::now_ns() >= end {
            break;
        }
    }
    log
}

/// Runs one job of busy work, recording its segments; false if the run stopped it.
fn busy_job(w: &Worker, origin: u64, job: u64, log: &mut ThreadLog) -> bool {
    let mut tracker = SegmentTracker::start(w.task, job, origin);
    let mut stopped = false;
    w.work.run(w.wcet_ns, || {
        w.heartbeat.beat();
        tracker.sample(log);
        if w.control.should_stop() {
            stopped = true;
            Chunk::Stop
        } else {
            Chunk::Continue
        }
    });
    tracker.close(log);
    !stopped
}

fn command_job(w: &Worker, command: &str, origin: u64, job: u64, log: &mut ThreadLog) -> bool {
    let cpu = clock::current_cpu();
    let start = clock::now_ns() - origin;
    let status = run_command(command, &w.child);
    let end = clock::now_ns() - origin;
    log.segments.push(SegmentRecord {
        cpu,
        task: w.task,
        job,
        start,
        end,
    });
    if let Ok(s) = &status {
        if !s.success() {
            log.measurements.record("command_failures", 1);
        }
    }
    status.is_ok()
}

/// Wall time ahead of CPU time within one chunk beyond which the job counts as preempted.
const PREEMPTION_GAP_NS: u64 = 10_000;

/// Follows a busy job between chunks: a new segment when the CPU changes (a migration) or
/// when wall time outran CPU time (the thread was preempted in between).
struct SegmentTracker {
    task: usize,
    job: u64,
    origin: u64,
    cpu: usize,
    start: u64,
    last_wall: u64,
    last_cpu_time: u64,
}

impl SegmentTracker {
    fn start(task: usize, job: u64, origin: u64) -> Self {
        let now = clock::now_ns();
        SegmentTracker {
            task,
            job,
            origin,
            cpu: clock::current_cpu(),
            start: now,
            last_wall: now,
            last_cpu_time: clock::thread_cpu_ns(),
        }
    }

    fn sample(&mut self, log: &mut ThreadLog) {
        let (now, cpu_time, cpu) = (
            clock::now_ns(),
            clock::thread_cpu_ns(),
            clock::current_cpu(),
        );
        let ran = cpu_time.saturating_sub(self.last_cpu_time);
        let gap = (now - self.last_wall).saturating_sub(ran);
        if cpu != self.cpu || gap > PREEMPTION_GAP_NS {
            self.push(log, self.last_wall);
            if cpu != self.cpu {
                log.migrations += 1;
            }
            self.cpu = cpu;
            self.start = now.saturating_sub(ran);
        }
        self.last_wall = now;
        self.last_cpu_time = cpu_time;
    }

    fn close(&mut self, log: &mut ThreadLog) {
        self.push(log, clock::now_ns());
    }

    fn push(&self, log: &mut ThreadLog, end: u64) {
        if end > self.start {
            log.segments.push(SegmentRecord {
                cpu: self.cpu,
                task: self.task,
                job: self.job,
                start: self.start - self.origin,
                end: end - self.origin,
            });
        }
    }
}
