//! The workload model: what every stage of kairos consumes.
//!
//! Periodic and sporadic tasks on identical cores, each either plain (one WCET) or imprecise
//! (mandatory, optional and wind-up parts, [`ImpreciseParts`]). The types leave room for what
//! later stages add (see `docs/model.md` for the plan): a [`Workload`] gains domains with VCPUs
//! and core partitions as new optional sections, so existing files stay valid.

use crate::time::{checked_lcm, Duration, Instant};
use serde::Serialize;

pub use crate::overheads::Overheads;

/// A whole input file after decoding and validation.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Workload {
    pub name: Option<String>,
    /// Number of identical cores.
    pub cores: usize,
    pub tasks: Vec<Task>,
    /// Costs the simulator charges, if the file gives them.
    pub overheads: Overheads,
}

/// A periodic or sporadic task.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Task {
    pub name: String,
    /// Worst-case execution time C; for an imprecise task, its real-time demand `m + w`.
    pub wcet: Duration,
    /// Best-case execution time; defaults to the WCET (for an imprecise task: of `m + w`).
    pub bcet: Duration,
    /// Period T, or minimum inter-arrival time for sporadic tasks.
    pub period: Duration,
    /// Relative deadline D; defaults to the period.
    pub deadline: Duration,
    /// Release of the first job.
    pub offset: Duration,
    pub arrival: Arrival,
    /// Explicit fixed priority, if given.
    pub priority: Option<Priority>,
    /// Core for partitioned policies, if given.
    pub core: Option<CoreId>,
    /// The parts of an imprecise task; `None` for a plain task.
    pub imprecise: Option<ImpreciseParts>,
}

/// The part of an imprecise job that executes (Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP, section 2). A plain task's job is one
/// mandatory part; a job of a policy that does not run parts is too (with `C = m + w`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Part {
    Mandatory,
    Optional,
    Windup,
}

impl Part {
    /// The part that follows this one in a job, if any.
    pub fn next(self) -> Option<Part> {
        match self {
            Part::Mandatory => Some(Part::Optional),
            Part::Optional => Some(Part::Windup),
            Part::Windup => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Part::Mandatory => "mandatory",
            Part::Optional => "optional",
            Part::Windup => "windup",
        }
    }
}

/// The parts of a task in the extended imprecise computation model (Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP, section 2): a
/// mandatory part `m`, an optional part `o` that may be cut, and a wind-up part `w` that must
/// finish by the deadline. Only `m + w` is real-time demand: the task's `wcet` is that sum, so a
/// policy or analysis that knows nothing of parts treats the task as plain with `C = m + w` (the
/// G-RM and P-RM baselines of the paper).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct ImpreciseParts {
    /// WCET of the mandatory part (greater than zero).
    pub mandatory: Duration,
    /// Execution the optional part asks for (may be zero).
    pub optional: Duration,
    /// WCET of the wind-up part (greater than zero).
    pub windup: Duration,
    /// The relative optional deadline, if the file fixes it; otherwise the analysis computes it.
    pub optional_deadline: Option<Duration>,
}

/// How jobs of a task arrive.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum Arrival {
    /// Exactly every period.
    Periodic,
    /// At least `period` apart; the simulator draws each gap uniformly in
    /// `[period, max_interarrival]` with the run's seed.
    Sporadic { max_interarrival: Duration },
}

/// A fixed priority. Level 1 is the most important; a larger level is less important.
///
/// There is deliberately no `Ord`: compare with [`Priority::is_higher_than`] so the direction
/// can never be confused.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
pub struct Priority(u32);

impl Priority {
    /// `level` must be at least 1 (validated on input).
    pub fn from_level(level: u32) -> Priority {
        Priority(level)
    }
    pub fn level(self) -> u32 {
        self.0
    }
    pub fn is_higher_than(self, other: Priority) -> bool {
        self.0 < other.0
    }
}

/// Index of a core, from 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize)]
pub struct CoreId(pub usize);

impl Task {
    /// C / T as a float, for display and heuristics (never for verdicts).
    pub fn utilization(&self) -> f64 {
        self.wcet.as_nanos() as f64 / self.period.as_nanos() as f64
    }
    /// C / min(D, T), for display and heuristics.
    pub fn density(&self) -> f64 {
        self.wcet.as_nanos() as f64 / self.deadline.min(self.period).as_nanos() as f64
    }
    /// Absolute release of job `index` when the task is strictly periodic.
    pub fn periodic_release(&self, index: u64) -> Option<Instant> {
        self.period
            .checked_mul(index)
            .and_then(|d| d.checked_add(self.offset))
            .map(|d| Instant::ZERO + d)
    }
}

impl Workload {
    /// Whether any task is imprecise (mandatory, optional and wind-up parts).
    pub fn has_imprecise_tasks(&self) -> bool {
        self.tasks.iter().any(|t| t.imprecise.is_some())
    }

    pub fn total_utilization(&self) -> f64 {
        self.tasks.iter().map(Task::utilization).sum()
    }

    /// The hyper-period (lcm of periods), `None` if it overflows 64-bit nanoseconds.
    pub fn hyperperiod(&self) -> Option<Duration> {
        self.tasks
            .iter()
            .try_fold(1u64, |acc, t| checked_lcm(acc, t.period.as_nanos()))
            .map(Duration::from_nanos)
    }

    /// The largest first release.
    pub fn max_offset(&self) -> Duration {
        self.tasks
            .iter()
            .map(|t| t.offset)
            .max()
            .unwrap_or(Duration::ZERO)
    }

    /// How long a simulation must run to see every distinct situation of a periodic set with
    /// deadlines no longer than periods: `H` when all tasks start at 0, `max offset + 2H`
    /// otherwise (Leung & Merrill, IPL 11(3), 1980). `None` on overflow.
    pub fn feasibility_interval(&self) -> Option<Duration> {
        let h = self.hyperperiod()?;
        let offset = self.max_offset();
        if offset.is_zero() {
            Some(h)
        } else {
            h.checked_mul(2)?.checked_add(offset)
        }
    }

    pub fn task_index(&self, name: &str) -> Option<usize> {
        self.tasks.iter().position(|t| t.name == name)
    }
}
