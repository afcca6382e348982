//! Optional deadlines and schedulability of imprecise tasks under semi-fixed-priority
//! scheduling: RMWP on one core, G-RMWP and P-RMWP on `m` (H. Chishiro and N. Yamasaki: the experimental
//! evaluation of global and partitioned semi-fixed-priority scheduling in the RT-Est OS,
//! section 4). An imprecise task has a mandatory part `m`, an optional part and a wind-up part
//! `w`; its wind-up may not start before the optional deadline `OD`, and must finish by `D`.
//!
//! **Where the formulas come from.** The paper defers the optional-deadline computation to its
//! references \[7\] (RMWP) and \[8\] (G-RMWP), which could not be retrieved; their abstracts say
//! that a set schedulable under RM is schedulable under RMWP, and that G-RMWP computes the
//! optional deadline by response-time analysis for G-RM. The derivation here is ours, the
//! standard one:
//!
//! `OD_i = D_i - R_i^w`, with `R_i^w` the worst-case response time of the wind-up part alone
//! (execution `w_i`) under the interference of the higher-priority tasks' real-time parts
//! `m_j + w_j` (optional parts run below every real-time part and never interfere).
//!
//! The verdict is that of rate-monotonic scheduling of the same tasks as plain ones with
//! `C = m + w` ([`uniprocessor`]: exact RTA; [`global`]: Bertogna-Cirinei; [`partitioned`]:
//! bin packing with RTA admission). Why it is meant to be safe: a job whose mandatory part ends
//! at or after `OD_i` runs its wind-up at once, like the plain job it would be under RM; a job
//! whose mandatory part ends before it starts its wind-up at `OD_i` and needs at most `R_i^w` to
//! finish it, by `D_i`. **That is an argument, not a proof**: deferring wind-ups to optional
//! deadlines changes when higher-priority work arrives (like self-suspension), which the
//! interference terms assume periodic. A random search over 20,000 small sets found no wind-up
//! miss with these optional deadlines, and kairos's property tests keep checking that every set
//! these tests accept shows no miss in simulation (`crates/kairos-analysis/tests/rmwp.rs`).
//!
//! Plain tasks have no wind-up: their optional deadline is their deadline. When the verdict is
//! negative the optional deadlines are still given, for tasks the analysis could bound; 0 for
//! the others (their optional parts are always skipped, so they run as under RM).
//!
//! **Given optional deadlines.** A workload may fix a task's `OD` itself
//! ([`SporadicTask::optional_deadline`]). The computed `OD_i` is then the task's safe bound: an
//! earlier given `OD` is safe too (a job whose mandatory part ends before it waits less, and its
//! wind-up, started earlier, has more than `R_i^w` before `D_i`; one whose mandatory part ends
//! after it runs as under RM), so it is used as given; a later one leaves the wind-up less than
//! its worst-case response time, so the verdict is negative and lists it
//! ([`crate::Verdict::unsafe_optional_deadlines`]). The verdict's optional deadlines are the
//! ones used: the given ones where given. On `m` cores partitioned, the bound is that of the
//! task's core.

pub mod global;
pub mod partitioned;
pub mod plan;
pub mod uniprocessor;

use crate::{SporadicTask, UnsafeOptionalDeadline, Verdict};
use kairos_model::Duration;

/// `D - R^w`, or 0 when the wind-up's response is not bounded by the deadline; `D` for a plain
/// task.
fn optional_deadline(task: &SporadicTask, windup_response: Option<Duration>) -> Duration {
    if task.windup.is_zero() {
        return task.deadline;
    }
    windup_response.map_or(Duration::ZERO, |r| task.deadline.saturating_sub(r))
}

/// `verdict` with each given optional deadline in place of the computed bound (its
/// `optional_deadlines`), those later than their bound listed, and the verdict negative, naming
/// the first of them, if any is (a verdict already negative keeps the task it names).
fn honour_given(tasks: &[SporadicTask], mut verdict: Verdict) -> Verdict {
    let Some(od) = verdict.optional_deadlines.as_mut() else {
        return verdict;
    };
    for (i, task) in tasks.iter().enumerate() {
        let Some(given) = task.optional_deadline else {
            continue;
        };
        if given > od[i] {
            verdict
                .unsafe_optional_deadlines
                .push(UnsafeOptionalDeadline {
                    task: i,
                    given,
                    safe_bound: od[i],
                });
        }
        od[i] = given;
    }
    if let Some(first) = verdict.unsafe_optional_deadlines.first() {
        if verdict.schedulable {
            verdict.schedulable = false;
            verdict.failing_task = Some(first.task);
        }
    }
    verdict
}

/// The first task with a deadline beyond its period, which RMWP does not define (Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP:
/// tasks have `D = T`).
fn first_unconstrained(tasks: &[SporadicTask]) -> Option<usize> {
    tasks.iter().position(|t| t.deadline > t.period)
}

#[cfg(test)]
mod tests;
