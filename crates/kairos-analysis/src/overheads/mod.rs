//! Overhead-aware analysis: the costs kairos's dispatcher measured (`kairos bench overheads`)
//! charged to the tasks, so that the unchanged tests judge the set as it runs on the machine.
//!
//! **Accounting.** The preemption-centric accounting of B. B. Brandenburg, "Scheduling and
//! Locking in Multiprocessor Real-Time Operating Systems" (PhD dissertation, University of North
//! Carolina at Chapel Hill, 2011), chapter 3, as SchedCAT's `overheads/jlfp.py` implements it,
//! with no periodic tick (kairos's dispatcher is event-driven) and no dedicated interrupt core:
//! 1. Release handling is interrupt load: `u_rel = sum_i Δrel / T_i`, and the share of a core
//!    left to jobs is `s = σ (1 - ℓ) - u_rel` (`s <= 0`: interrupt overload, nothing is
//!    schedulable), where `σ` is the share of a core the kernel lets real-time threads use:
//!    1, or on a machine whose profile records Linux's real-time throttling, its runtime over
//!    its period (0.95 by default). A core loaded past `σ` loses the rest of the throttling
//!    period to normal threads (its real-time threads are throttled; from Linux 6.12 the fair
//!    deadline server runs runnable normal ones): a blackout no deadline of the set survives,
//!    so the share the tests may fill is `σ`, not 1 (kairos's own extension of the accounting:
//!    a LITMUS^RT kernel does not throttle). `σ` is a long-run share: a throttling period can also
//!    hold work carried in from before it, which this does not bound. `ℓ` is the measured
//!    **execution loss** (`kairos_model::ExecutionLoss`): the share of a running job's wall time
//!    it does no work of its own (interrupts, which this kernel charges to the thread they
//!    interrupt; kairos's stall watcher, a real-time thread waking every millisecond on each
//!    core; a core slower than at calibration), so work `C` holds its core `C / (1 - ℓ)`. With
//!    both, jobs fit when `sum C / (1 - ℓ) + u_rel <= σ`, that is `sum C <= (σ - u_rel)(1 - ℓ)`,
//!    which `σ (1 - ℓ) - u_rel` never exceeds (kairos's extension too: partitioned sets whose
//!    fullest core the accounting without `ℓ` filled to 0.86-0.89 met the throttling's
//!    blackout on this machine kind, their jobs about 3 % slower than their work).
//! 2. One preemption costs `c_pre = (n Δrel + Δev u_rel) / s` for `n` tasks.
//! 3. Each task becomes `T' = T - Δev`, `D' = D - Δev` (a release is handled up to `Δev`
//!    late) and `C' = (C + 2 (Δsch + Δcxs) + Δcpmd) / s + 2 c_pre + Δipi`: each job causes at
//!    most one preemption when it is released and one switch when it completes, and is charged
//!    both; `Δipi` only on more than one core.
//! 4. The test runs unchanged on `(C', D', T')`; a density `C' / min(D', T')` above 1 fails.
//!
//! **How kairos's measured costs fill the roles** (`docs/analyze.md`): `Δrel` is the
//! dispatcher's pass that handles a release (kairos handles a release in the same pass that
//! decides, so a release that preempts is charged both as `Δrel` and as `Δsch`: one pass too
//! many, on the safe side); `Δev` the timer's lateness; `Δsch` a decision with its wait for the
//! scheduler's lock; `Δcxs` the decision to the chosen job's first instruction; `Δipi` the
//! doorbell to another core's dispatcher. kairos does not measure cache-related delays: `Δcpmd`
//! is the measured extra start-up latency of a job resumed on another core, charged once per job
//! under global policies and never under partitioned or uniprocessor ones, which do not migrate;
//! a cache-heavy workload should add its own loss to `migration`.
//!
//! **Imprecise tasks** (the RMWP tests) run by parts: each job has two more part boundaries
//! (its mandatory part ends, its wind-up starts), each a policy callback `Δpart`, a decision
//! and a switch, so `C'` gains `2 (Δpart + Δsch + Δcxs)` inside the scaled term, and the wind-up
//! alone becomes `w' = (w + Δpart + Δsch + Δcxs) / s + c_pre` (at most `C'`), on more than one
//! core plus `(Δsch + Δipi) / s` inside the quotient: the optional-deadline timer may be handled
//! by another core's dispatcher, whose pass then rings the job's core. The timer that
//! ends a job's optional part at its optional deadline is one more interrupt per period, a
//! dispatcher pass like a release (`Δrel`), and its lateness (`Δev`) is inside `D' = D - Δev`.
//!
//! G-EDZL is not given overheads through its zero-laxity theorem, whose laxity is not the one
//! the policy computes; it is accepted with overheads when a G-EDF test accepts its inflated
//! set, which also charges its reorder wake-ups ([`edzl`] gives the argument).
//!
//! Mixed-criticality scheduling tables are charged per slot instead: [`tables`] (the slot guard).
//!
//! Release interrupts are charged from every task on every core: kairos does not know, before
//! partitioning, on which core a release is handled. That is safe and, on `m` cores, up to `m`
//! times the interrupt load a core of a partitioned system sees.
//!
//! Every quotient is rounded up to whole nanoseconds, and `1 / s` is taken a hair larger than
//! computed, so floating-point error never charges less than the exact value.

mod charges;
pub mod edzl;
pub mod tables;

pub use charges::{Charges, Quantile};

use crate::registry::Test;
use crate::{SporadicTask, Verdict};
use kairos_model::Duration;
use serde::Serialize;

/// Where the dispatcher runs the jobs, which decides what is charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Placement {
    /// Global scheduling on several cores: jobs migrate (`Δcpmd`) and cores signal each
    /// other (`Δipi`).
    Global,
    /// Partitioned scheduling on several cores: no migration, but the dispatchers still signal
    /// each other.
    Partitioned,
    /// One core: neither.
    Uniprocessor,
}

/// The task set as the tests see it with the overheads charged.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Inflation {
    /// `s`, the share of a core left to jobs after release interrupts (and the kernel's
    /// throttling and the execution loss).
    pub scale: f64,
    /// `c_pre`, the cost of one preemption.
    #[serde(serialize_with = "crate::nanos::one")]
    pub preemption: Duration,
    /// The inflated tasks, input order.
    pub tasks: Vec<SporadicTask>,
}

/// Why a set cannot be scheduled at all once the overheads are charged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Overload {
    /// Release interrupts alone use a whole core (`s <= 0`).
    Interrupts,
    /// This task's release latency reaches its deadline or period, or its inflated density
    /// exceeds 1.
    Task(usize),
}

impl Overload {
    /// The refusal this overload is: no task to blame when interrupts fill the cores.
    pub fn verdict(self) -> Verdict {
        match self {
            Overload::Interrupts => Verdict::no(None),
            Overload::Task(i) => Verdict::no(Some(i)),
        }
    }
}

/// Slightly more than 1: `1 / s` is multiplied by it so rounding never undercharges.
pub(crate) const ROUND_UP: f64 = 1.0 + 1e-12;

/// `test`'s verdict on `tasks` with the overheads `c` charged for the placement of its policy
/// (fixed-priority tests in `priority_order` when given, as [`Test::run_with_priorities`]);
/// G-EDZL by its dominance over G-EDF ([`edzl`]).
pub fn verdict(
    test: &Test,
    tasks: &[SporadicTask],
    cores: usize,
    priority_order: Option<&[usize]>,
    c: &Charges,
) -> Verdict {
    let placement = test.placement(cores);
    if test.name == edzl::TEST {
        return edzl::verdict(tasks, cores, placement, c);
    }
    match inflate(tasks, placement, c) {
        Ok(inflation) => test.run_with_priorities(&inflation.tasks, cores, priority_order),
        Err(overload) => overload.verdict(),
    }
}

/// `tasks` with the overheads `c` charged for `placement` (module doc, steps 1 to 3), the
/// tasks' own timers being the only interrupts: a release per period, and an imprecise task's
/// optional-deadline timer, which kairos's dispatcher handles in a pass like a release.
pub fn inflate(
    tasks: &[SporadicTask],
    placement: Placement,
    c: &Charges,
) -> Result<Inflation, Overload> {
    let optional_deadlines = tasks.iter().filter(|t| !t.windup.is_zero());
    let periods: Vec<Duration> = (tasks.iter().chain(optional_deadlines))
        .map(|t| t.period)
        .collect();
    inflate_among(tasks, placement, c, &periods, &vec![0; tasks.len()])
}

/// [`inflate`] with the releases of `interrupts` (their periods) as the interrupt load, and
/// `resumes[i]` more switches (a decision and a context switch each) per job of task `i`:
/// a component's tasks share their cores with other components' releases and VCPU
/// replenishments, and resume after each VCPU period they span (`crate::csa::overheads`).
pub fn inflate_among(
    tasks: &[SporadicTask],
    placement: Placement,
    c: &Charges,
    interrupts: &[Duration],
    resumes: &[u64],
) -> Result<Inflation, Overload> {
    let rel = c.release.as_nanos() as f64;
    let u_rel: f64 = interrupts.iter().map(|t| rel / t.as_nanos() as f64).sum();
    let scale = c.work_share() - u_rel;
    if scale <= 0.0 {
        return Err(Overload::Interrupts);
    }
    // Without release charges or throttling nothing is scaled, exactly.
    let scaled = |ns: u64| match scale == 1.0 {
        true => ns,
        false => nanos((ns as f64 / scale * ROUND_UP).ceil()),
    };
    let n = interrupts.len() as u64;
    let numerator = n as f64 * rel + c.release_latency.as_nanos() as f64 * u_rel;
    let preemption = nanos((numerator / scale * ROUND_UP).ceil());
    let inflated = (tasks.iter().zip(resumes).enumerate())
        .map(|(i, (t, &resumed))| {
            let task = Charged {
                placement,
                preemption,
                resumes: resumed,
            };
            task.inflate(t, c, scaled).ok_or(Overload::Task(i))
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(Inflation {
        scale,
        preemption: Duration::from_nanos(preemption),
        tasks: inflated,
    })
}

/// What one task is charged besides its own switches.
struct Charged {
    placement: Placement,
    preemption: u64,
    resumes: u64,
}

impl Charged {
    /// One task's `(C', D', T')` and `w'`; `None` when it cannot fit (module doc, step 4).
    fn inflate(
        &self,
        t: &SporadicTask,
        c: &Charges,
        scaled: impl Fn(u64) -> u64,
    ) -> Option<SporadicTask> {
        let latency = c.release_latency.as_nanos();
        let deadline = t.deadline_ns().checked_sub(latency).filter(|&d| d > 0)?;
        let period = t.period_ns().checked_sub(latency).filter(|&p| p > 0)?;
        let switch = (c.scheduling.as_nanos()).saturating_add(c.context_switch.as_nanos());
        let cpmd = match self.placement {
            Placement::Global => c.migration.as_nanos(),
            _ => 0,
        };
        let ipi = match self.placement {
            Placement::Uniprocessor => 0,
            _ => c.ipi.as_nanos(),
        };
        let boundary = c.part_callback.as_nanos().saturating_add(switch);
        let parts = if t.windup.is_zero() { 0 } else { 2 * boundary };
        let resumed = switch.saturating_mul(self.resumes);
        let preemptions = self.preemption.saturating_mul(2);
        let own = sum(&[t.wcet_ns(), 2 * switch, cpmd, parts, resumed]);
        let wcet = sum(&[scaled(own), preemptions, ipi]);
        // On more than one core the optional-deadline timer may be handled on another core,
        // whose pass (Δsch) then rings the job's (Δipi) before the wind-up is switched in.
        let remote_cut = match self.placement {
            Placement::Uniprocessor => 0,
            _ => c.scheduling.as_nanos().saturating_add(c.ipi.as_nanos()),
        };
        let windup = match t.windup_ns() {
            0 => 0,
            w => sum(&[scaled(sum(&[w, boundary, remote_cut])), self.preemption]).min(wcet),
        };
        (wcet <= deadline.min(period)).then(|| SporadicTask {
            wcet: Duration::from_nanos(wcet),
            deadline: Duration::from_nanos(deadline),
            period: Duration::from_nanos(period),
            windup: Duration::from_nanos(windup),
            ..*t
        })
    }
}

/// Saturating: a sum too large for `u64` fails the density check anyway.
fn sum(values: &[u64]) -> u64 {
    values.iter().fold(0, |a, &b| a.saturating_add(b))
}

/// A rounded-up quotient as nanoseconds (saturating: a charge too large for `u64` fails the
/// density check anyway).
fn nanos(value: f64) -> u64 {
    if value >= u64::MAX as f64 {
        u64::MAX
    } else {
        value as u64
    }
}

#[cfg(test)]
pub(crate) mod tests;
