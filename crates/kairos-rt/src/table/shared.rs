//! The state the dispatchers and workers of a table-driven run share, all lock-free
//! (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", sections 5-6): the mode words of G-MCRES
//! ([`crate::mode::ModeState`]), the holder word of every task ([`crate::handoff::Holders`]),
//! per task its job progress and the time stamps a migration leaves behind (figure 5), per
//! (task, core) worker a parking word, and per core a doorbell.
//!
//! Ownership rule that makes relaxed fields safe: a task's progress and stamps are written only
//! by the worker that holds the task, and the hold passes from one core to the next through the
//! Release/Acquire pair of the holder word; a worker's request fields are written by its core's
//! dispatcher before it sets `go` (Release) and read after the worker sees it (Acquire).

use super::plan::Plan;
use crate::handoff::Holders;
use crate::mode::ModeState;
use crate::watchdog::{Heartbeat, RunControl};
use std::sync::atomic::{AtomicU32, AtomicU64, AtomicUsize};
use std::sync::Arc;

/// Worker parking word values: the dispatcher sets [`RUN`] to start an activation and
/// [`PARK`] to stop it; the worker acknowledges a start by swapping [`RUN`] for [`RUNNING`].
/// A stop that finds [`RUN`] (the worker never got the CPU in between) cancels the activation
/// (the worker, if it took the task meanwhile, releases it again without running); one that
/// finds [`RUNNING`] leaves the release to the worker, which sees the stop within one unit of
/// work. A worker that stopped itself at its interval's end ([`WorkerShared::stop_at`]) leaves
/// `go` at [`RUNNING`] until its dispatcher's stop turns it into [`PARK`]; only the worker
/// ever releases a task.
pub use crate::parking::{EXIT, PARK, RUN, RUNNING};

/// [`WorkerShared::stop_at`] when the interval's end is unknown: only the dispatcher stops.
pub const NO_STOP: u64 = u64::MAX;
/// [`WorkerShared::stop_at`] once the worker stopped itself at it (claimed with a
/// compare-exchange, so a dispatcher that moves the end with a swap learns it came too late).
pub const EXPIRED: u64 = 0;

/// Per task.
#[derive(Debug, Default)]
pub struct TaskShared {
    /// The job whose work is loaded, plus one (0 = none yet).
    pub loaded: AtomicU64,
    /// CPU work left for the loaded job, ns.
    pub remaining: AtomicU64,
    /// Every job below this number is closed (completed, or stopped by budget enforcement).
    pub finished: AtomicU64,
    /// Core + 1 the task executes on right now, 0 when it executes nowhere: the independent
    /// check that a task never runs on two cores.
    pub running_on: AtomicUsize,
    /// Times a worker found the task executing on another core when it started (must stay 0).
    pub overlaps: AtomicU64,
    /// Mode word of the tables this task's reservation follows (Algorithm 1, lines 3-4);
    /// raised with `fetch_max` so an obsolete winner cannot lower it.
    pub reservation: AtomicU64,
    /// Left by the core that last asked the task to stop: that core, the job, the nominal
    /// boundary, when its handler ran and when it asked (ns since the origin).
    pub stop_core: AtomicUsize,
    pub stop_job: AtomicU64,
    pub stop_nominal: AtomicU64,
    pub stop_handler_at: AtomicU64,
    pub stop_requested_at: AtomicU64,
    /// When the worker last stopped executing the task and released it.
    pub released_at: AtomicU64,
}

/// Per (task, core) worker thread.
#[derive(Debug)]
pub struct WorkerShared {
    /// [`PARK`], [`RUN`], [`RUNNING`] or [`EXIT`]; the worker futex-waits on it.
    pub go: AtomicU32,
    /// The job the dispatcher asked for, its nominal start and when the dispatcher handled it
    /// (ns since the origin).
    pub job: AtomicU64,
    pub nominal: AtomicU64,
    pub handler_at: AtomicU64,
    /// The last stop request: its nominal boundary, when the dispatcher's handler ran and when
    /// it asked. The worker copies them into the task's stamps when it releases the task.
    pub stop_nominal: AtomicU64,
    pub stop_handler_at: AtomicU64,
    pub stop_requested_at: AtomicU64,
    /// Absolute CLOCK_MONOTONIC end of the interval the worker runs ([`NO_STOP`] when
    /// unknown): the worker stops itself there (budget enforcement without the dispatcher's
    /// timer on the path). Written by the dispatcher before `go` = [`RUN`], swapped when a mode
    /// change moves the end of the running job's interval; the worker claims it by replacing
    /// it with [`EXPIRED`].
    pub stop_at: AtomicU64,
    pub heartbeat: Arc<Heartbeat>,
}

impl WorkerShared {
    fn new() -> Self {
        WorkerShared {
            go: AtomicU32::new(PARK),
            job: AtomicU64::new(0),
            nominal: AtomicU64::new(0),
            handler_at: AtomicU64::new(0),
            stop_nominal: AtomicU64::new(0),
            stop_handler_at: AtomicU64::new(0),
            stop_requested_at: AtomicU64::new(0),
            stop_at: AtomicU64::new(NO_STOP),
            heartbeat: Arc::new(Heartbeat::default()),
        }
    }
}

/// Per core.
#[derive(Debug, Default)]
pub struct CoreShared {
    /// Bumped to make the core's dispatcher run a scheduling pass now (futex word).
    pub doorbell: AtomicU32,
    /// How many tasks the workers of this core hold (the "still holds a task" of the rule).
    pub held: AtomicUsize,
    pub heartbeat: Arc<Heartbeat>,
}

/// Everything shared by one run.
pub struct Shared {
    pub plan: Plan,
    pub mode: ModeState,
    pub holders: Holders,
    pub tasks: Vec<TaskShared>,
    /// `workers[task][core]`, present for the pairs some table uses.
    pub workers: Vec<Vec<Option<WorkerShared>>>,
    pub cores: Vec<CoreShared>,
    /// CLOCK_MONOTONIC of time 0 of the schedule; 0 until the run starts (futex word `gate`).
    pub origin: AtomicU64,
    pub gate: AtomicU32,
    pub control: Arc<RunControl>,
    /// How long before a boundary an idle core's dispatcher wakes to ask for the slot's task
    /// (its worker then waits for the boundary itself); 0 = at the boundary.
    pub lead_ns: u64,
    /// Decisions Algorithm 2 returned although the reservation of the selected task was not
    /// in the pass's mode (a mixed state; must stay 0).
    pub inconsistent: AtomicU64,
}

impl Shared {
    pub fn new(plan: Plan, control: Arc<RunControl>, lead_ns: u64) -> Self {
        let tasks = plan.table.tasks.len();
        let mut workers: Vec<Vec<Option<WorkerShared>>> = (0..tasks)
            .map(|_| (0..plan.table.cores).map(|_| None).collect())
            .collect();
        for (task, core) in plan.worker_pairs() {
            workers[task][core] = Some(WorkerShared::new());
        }
        Shared {
            mode: ModeState::new(plan.table.cores, plan.table.levels.len()),
            holders: Holders::new(tasks),
            tasks: (0..tasks).map(|_| TaskShared::default()).collect(),
            workers,
            cores: (0..plan.table.cores)
                .map(|_| CoreShared::default())
                .collect(),
            origin: AtomicU64::new(0),
            gate: AtomicU32::new(0),
            control,
            lead_ns,
            inconsistent: AtomicU64::new(0),
            plan,
        }
    }

    /// The worker of `task` on `core` (the plan created one for every pair a table uses).
    pub fn worker(&self, task: usize, core: usize) -> &WorkerShared {
        self.workers[task][core]
            .as_ref()
            .expect("a worker exists for every (task, core) pair of the tables")
    }
}
