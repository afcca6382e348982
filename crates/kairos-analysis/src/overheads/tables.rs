//! Overhead-aware mixed-criticality scheduling tables: the **slot guard**.
//!
//! **Source.** The overhead roles and the way they are charged (inflating each job's execution
//! by what the scheduler takes from it, then running the unchanged test) are those of
//! B. B. Brandenburg, "Scheduling and Locking in Multiprocessor Real-Time Operating Systems"
//! (PhD dissertation, UNC Chapel Hill, 2011), chapter 3 ([`super`]). The tables are those of
//! GMH-MC-DAG and the runtime is G-RES / G-MCRES (Pautet, Robert, Tardieu, "Litmus-RT plugins
//! for global static scheduling of mixed criticality systems", sections 4.2, 5 and 6), run by
//! kairos's user-space dispatcher (`kairos_rt::table`, docs/run.md "Table-driven runs").
//!
//! **Where a table run pays.** Every instant of a table is a multiple of its slot `S` (the gcd
//! of every period, deadline and WCET), so every dispatcher event of a table run happens at a
//! slot boundary. In one slot a core can lose, to its job:
//! - at the slot's start, the **switch** to the slot's job, prepared ahead (a promise): `Δcxs`,
//!   plus `Δcpmd` when the job last ran on another core;
//! - the **pass** that confirms the boundary: the timer's interrupt and wake-up `Δev`, then
//!   the pass `Δsch` (with its wait for the lock; releases due at the boundary are handled in
//!   the same pass, whose callbacks `Δsch` measures);
//! - on `m > 1` cores, **doorbell** passes: the pass of a core whose timer fired (core 0's
//!   policy timer, another core's releases) rings every core whose job or promise changed, and
//!   that core's dispatcher runs a pass of its own: `Δipi + Δsch` for each of the `m - 1`
//!   other cores that may ring it at one boundary;
//! - before the slot's end, the **preparation** of the next switch (the dispatcher wakes
//!   `lead` ahead to ask the coming worker and to tell the leaving one to stop): `Δev`.
//!
//! So every slot keeps `S - g` of usable time, with the **guard**
//! `g = 2 Δev + Δsch + Δcxs (+ Δcpmd + (m - 1)(Δipi + Δsch) on m > 1 cores) + (1 - σ (1 - ℓ)) S`,
//! the last term on a machine whose kernel throttles real-time threads to a share `σ` of each
//! core, and whose jobs work `1 - ℓ` of the time they hold it ([`super`]): a core booked in
//! every slot then stays within its share, and each slot gives its job the work it is charged.
//!
//! A **mode change** is seen in the boundary's pass (already in `g`); then the policy is asked
//! again in the new mode and the cores whose job the new table changes switch a second time:
//! `Δmc = Δsch + Δcxs (+ Δcpmd on more than one core)`. The mode only rises within a
//! hyper-period, so a job running at level `l` has lived through at most `l` mode changes.
//!
//! **The rule.** A job of WCET `C_l` at level `l` is given
//! `n_l = ceil((C_l + l Δmc) / (S - g))` slots: whatever slots hold it, each gives at least
//! `S - g` of execution, and together they pay every mode change it can see. `n_l` is
//! non-decreasing in `l` (as `C_l` is), so the inflated system is again an MC-DAG system; its
//! tables satisfy the safe-transition constraint in slots, and a job that moves from table
//! `l` to table `l + 1` at any boundary has had at least `n_{l+1}` slots over both, so at least
//! `C_{l+1} + (l + 1) Δmc` of usable time. The tables are synthesized unchanged on the inflated
//! WCETs `n_l S` (their grid is `S` or a multiple of it, which only removes boundaries).
//!
//! **Why per slot, not per interval.** A tighter rule would charge `g` once per interval of a
//! job rather than per slot, but a core's dispatcher also wakes at boundaries where its own job
//! continues (the policy timer fires at every boundary of any core on core 0, doorbells and
//! releases reach the other cores), and intervals are only known after synthesis. Charging every
//! slot is sound whatever the table; it is pessimistic when `g` is a large share of `S`.
//! `g >= S` leaves no usable time and is refused.

use super::Charges;
use kairos_model::{Duration, McSystem};
use serde::Serialize;
use std::fmt;

/// What the dispatcher may take from each slot and from each mode change.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct SlotGuard {
    /// `S`, the system's slot.
    #[serde(serialize_with = "crate::nanos::one")]
    pub slot: Duration,
    /// `g`, what one slot may lose.
    #[serde(serialize_with = "crate::nanos::one")]
    pub guard: Duration,
    /// `Δmc`, what one mode change costs beyond the guard of its slot.
    #[serde(serialize_with = "crate::nanos::one")]
    pub mode_change: Duration,
}

impl SlotGuard {
    /// The guard of the charges `c` on a system of slot `slot` run on `cores` cores (module doc).
    pub fn new(slot: Duration, cores: usize, c: &Charges) -> SlotGuard {
        let (ev, sch, cxs) = (c.release_latency, c.scheduling, c.context_switch);
        // Every other core's pass at a boundary (its releases, core 0's policy timer) may ring
        // this one.
        let others = cores.saturating_sub(1) as u64;
        let doorbell = (c.ipi + sch).checked_mul(others).unwrap_or(Duration::MAX);
        let cpmd = if others > 0 {
            c.migration
        } else {
            Duration::ZERO
        };
        SlotGuard {
            slot,
            guard: ev + ev + sch + cxs + cpmd + doorbell + kept_from_work(slot, c),
            mode_change: sch + cxs + cpmd,
        }
    }

    /// `S - g`, or `None` when the guard fills the slot.
    pub fn usable(&self) -> Option<Duration> {
        self.slot
            .checked_sub(self.guard)
            .filter(|usable| !usable.is_zero())
    }

    /// `n_l S`: the time a job of WCET `wcet` at `level` is given, or `None` when the guard
    /// fills the slot or the result overflows 64-bit nanoseconds.
    pub fn inflate(&self, wcet: Duration, level: usize) -> Option<Duration> {
        let usable = u128::from(self.usable()?.as_nanos());
        let charged =
            u128::from(wcet.as_nanos()) + level as u128 * u128::from(self.mode_change.as_nanos());
        let slots = charged.div_ceil(usable);
        u64::try_from(slots * u128::from(self.slot.as_nanos()))
            .ok()
            .map(Duration::from_nanos)
    }
}

/// `(1 - σ (1 - ℓ)) S`, rounded up: the part of every slot the kernel's real-time throttling
/// (`σ`) and the execution loss (`ℓ`) keep from jobs' work ([`Charges::work_share`]). A core
/// booked in every slot still uses at most `σ` of it, so the tables never meet the
/// throttling's blackout; and a job holding a slot less the rest of the guard `g'` works
/// `(S - g')(1 - ℓ)`, at least the `σ (1 - ℓ) S - g'` this leaves it.
fn kept_from_work(slot: Duration, c: &Charges) -> Duration {
    let slot_ns = u128::from(slot.as_nanos());
    let mut left = slot_ns;
    // In integers, exactly: S - floor(floor(S runtime / period) (1 - ℓ)).
    if let Some(t) = c.rt_throttle.filter(|t| !t.period.is_zero()) {
        // σ is at most 1 (as `RtThrottle::share` has it): a runtime above its period comes
        // only from code, a file's reader refuses it.
        let runtime = u128::from(t.runtime.as_nanos());
        left = (left * runtime / u128::from(t.period.as_nanos())).min(slot_ns);
    }
    let kept = u128::from(1_000_000 - c.execution_loss.ppm());
    left = left * kept / 1_000_000;
    Duration::from_nanos(u64::try_from(slot_ns - left).unwrap_or(u64::MAX))
}

/// One task's WCETs before and after the guard, per level.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GuardedTask {
    /// `dag/task`.
    pub task: String,
    #[serde(serialize_with = "crate::nanos::list")]
    pub wcet: Vec<Duration>,
    #[serde(serialize_with = "crate::nanos::list")]
    pub inflated_wcet: Vec<Duration>,
}

/// A system with the guard charged.
#[derive(Clone, Debug, PartialEq)]
pub struct Guarded {
    pub guard: SlotGuard,
    /// Every task, in system order.
    pub tasks: Vec<GuardedTask>,
    /// The system with the inflated WCETs: what the tables are synthesized for.
    pub system: McSystem,
}

/// Why no table can hold the system once the guard is charged.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Refusal {
    /// The system has no slot grid (no non-zero time).
    NoSlot,
    /// `g >= S`: no slot keeps any usable time.
    GuardFillsSlot(SlotGuard),
    /// A task's inflated WCET exceeds its DAG's deadline.
    TooLong {
        task: String,
        level: String,
        inflated: Option<Duration>,
        deadline: Duration,
    },
}

impl fmt::Display for Refusal {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Refusal::NoSlot => write!(f, "the system has no slot grid"),
            Refusal::GuardFillsSlot(g) => write!(
                f,
                "the overheads take {} of every {} slot (the slot guard): no slot keeps any \
                 time for the jobs",
                g.guard, g.slot
            ),
            Refusal::TooLong {
                task,
                level,
                inflated,
                deadline,
            } => match inflated {
                Some(d) => write!(
                    f,
                    "{task} needs {d} of slots at level {level} once the slot guard is charged, \
                     more than its deadline {deadline}"
                ),
                None => write!(
                    f,
                    "{task} at level {level}: the slots it needs overflow 64-bit nanoseconds"
                ),
            },
        }
    }
}

/// `system` with every WCET inflated by the slot guard of `c` on `cores` cores (module doc).
pub fn guard(system: &McSystem, cores: usize, c: &Charges) -> Result<Guarded, Refusal> {
    let slot = system.slot().ok_or(Refusal::NoSlot)?;
    let guard = SlotGuard::new(slot, cores, c);
    if guard.usable().is_none() {
        return Err(Refusal::GuardFillsSlot(guard));
    }
    let mut inflated_system = system.clone();
    let mut tasks = Vec::new();
    for dag in &mut inflated_system.dags {
        for task in &mut dag.tasks {
            let name = format!("{}/{}", dag.name, task.name);
            let inflated =
                inflate_task(&guard, &task.wcet, dag.deadline).map_err(|(level, inflated)| {
                    Refusal::TooLong {
                        task: name.clone(),
                        level: system.levels[level].clone(),
                        inflated,
                        deadline: dag.deadline,
                    }
                })?;
            tasks.push(GuardedTask {
                task: name,
                wcet: std::mem::replace(&mut task.wcet, inflated.clone()),
                inflated_wcet: inflated,
            });
        }
    }
    Ok(Guarded {
        guard,
        tasks,
        system: inflated_system,
    })
}

/// One task's inflated WCETs, or the first level whose WCET cannot fit `deadline`.
fn inflate_task(
    guard: &SlotGuard,
    wcet: &[Duration],
    deadline: Duration,
) -> Result<Vec<Duration>, (usize, Option<Duration>)> {
    (wcet.iter().enumerate())
        .map(|(level, &w)| match guard.inflate(w, level) {
            Some(d) if d <= deadline => Ok(d),
            other => Err((level, other)),
        })
        .collect()
}

#[cfg(test)]
mod tests;
