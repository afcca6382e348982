//! Replaying a recorded run ([`kairos_policy::Step`]s, as the runtime's dispatcher records
//! them) against a fresh policy object: the same events reported in the same order, the same
//! views, and the policy must return the same decisions. It also checks the record itself
//! against the contract (every job of a view released and not completed, every released job
//! in the next view, every decision valid), so a runtime that lost or invented an event is
//! caught even where the policy would not notice.

use kairos_model::{Instant, Part, Workload};
use kairos_policy::parts::part_budget;
use kairos_policy::{JobId, JobView, Policy, Reported, Step, View};
use std::collections::{HashMap, HashSet};
use thiserror::Error;

/// Where a replay first disagreed with the record.
#[derive(Debug, Error, PartialEq, Eq)]
#[error("step {step} (at {at}): {reason}")]
pub struct ReplayError {
    pub step: usize,
    pub at: Instant,
    pub reason: String,
}

/// Replays `steps` (see the module documentation); `Ok` with the number of decisions compared.
pub fn replay(
    workload: &Workload,
    policy: &mut dyn Policy,
    steps: &[Step],
) -> Result<usize, ReplayError> {
    let fail = |step: usize, at: Instant, reason: String| ReplayError { step, at, reason };
    policy.prepare(workload).map_err(|r| {
        fail(
            0,
            Instant::ZERO,
            format!("the policy refused the workload: {}", r.0),
        )
    })?;
    let mut last_view: HashMap<JobId, JobView> = HashMap::new();
    let mut open: HashSet<JobId> = HashSet::new();
    let mut running: Vec<Option<JobId>> = vec![None; workload.cores];
    for (i, step) in steps.iter().enumerate() {
        let at = step.at;
        for event in &step.events {
            report(workload, policy, *event, &mut last_view, &mut open)
                .map_err(|reason| fail(i, at, reason))?;
        }
        check_view(step, &open, &running).map_err(|reason| fail(i, at, reason))?;
        let view = View {
            now: at,
            cores: workload.cores,
            mode: 0,
            jobs: &step.jobs,
            tasks: &workload.tasks,
        };
        let decision = policy.decide(&view);
        if decision.cores != step.decision {
            return Err(fail(
                i,
                at,
                format!(
                    "the policy decides {:?}, the run applied {:?}",
                    decision.cores, step.decision
                ),
            ));
        }
        let index: Vec<Option<usize>> = (running.iter())
            .map(|r| r.and_then(|id| step.jobs.iter().position(|j| j.id == id)))
            .collect();
        decision
            .check(&view, &index)
            .map_err(|reason| fail(i, at, reason))?;
        for job in &step.jobs {
            last_view.insert(job.id, job.clone());
        }
        running = step.decision.clone();
    }
    Ok(steps.len())
}

/// Reports one recorded event to the policy, as an engine would.
fn report(
    workload: &Workload,
    policy: &mut dyn Policy,
    event: Reported,
    last_view: &mut HashMap<JobId, JobView>,
    open: &mut HashSet<JobId>,
) -> Result<(), String> {
    match event {
        Reported::Released(id, at) => {
            let task = workload.tasks.get(id.task).ok_or("a release of no task")?;
            if !open.insert(id) {
                return Err(format!("job {}#{} released twice", task.name, id.number));
            }
            let by_parts = task.imprecise.filter(|_| policy.runs_parts());
            let view = JobView {
                id,
                release: at,
                absolute_deadline: at + task.deadline,
                part: Part::Mandatory,
                budget: by_parts.map_or(task.wcet, |p| part_budget(&p, Part::Mandatory)),
                executed: kairos_model::Duration::ZERO,
                running_on: None,
                last_core: None,
            };
            policy.job_released(at, &view);
            last_view.insert(id, view);
        }
        Reported::Completed(id, at) => {
            if !open.remove(&id) {
                return Err(format!(
                    "job {}#{} completed but not open",
                    id.task, id.number
                ));
            }
            let view = last_view
                .remove(&id)
                .ok_or("a completion of an unknown job")?;
            policy.job_completed(at, &view);
        }
        Reported::Timer(timer, at) => policy.timer_fired(at, timer),
        Reported::PartCompleted(id, ended, at) => {
            let view = last_view.get_mut(&id).filter(|_| open.contains(&id));
            let view = view.ok_or("a part end of a job not open")?;
            let parts = (workload.tasks[id.task].imprecise).ok_or("a part end of a plain task")?;
            let mut next = ended.next().ok_or("a part end of a wind-up part")?;
            if next == Part::Optional && parts.optional.is_zero() {
                next = Part::Windup;
            }
            view.part = next;
            view.budget = part_budget(&parts, next);
            view.executed = kairos_model::Duration::ZERO;
            policy.part_completed(at, view, ended);
        }
    }
    Ok(())
}

/// The recorded view holds exactly the open jobs, placed where the previous decision put them.
fn check_view(step: &Step, open: &HashSet<JobId>, running: &[Option<JobId>]) -> Result<(), String> {
    let shown: HashSet<JobId> = step.jobs.iter().map(|j| j.id).collect();
    if shown.len() != step.jobs.len() || &shown != open {
        return Err(format!(
            "the view shows {} job(s), {} are released and unfinished",
            step.jobs.len(),
            open.len()
        ));
    }
    for job in &step.jobs {
        let placed = running.iter().position(|r| *r == Some(job.id));
        if job.running_on != placed {
            return Err(format!(
                "job {}#{} is shown on {:?}, the previous decision put it on {placed:?}",
                job.id.task, job.id.number, job.running_on
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_model::{check_source, Duration, Format};
    use kairos_policy::{PolicyKind, PriorityOrder};

    fn workload() -> Workload {
        let src = "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n\
                   [[tasks]]\nname = \"b\"\nwcet = \"1ms\"\nperiod = \"8ms\"\ndeadline = \"2ms\"\n";
        check_source(src, Format::Toml).workload.unwrap()
    }

    fn job(task: usize) -> JobView {
        JobView {
            id: JobId { task, number: 0 },
            release: Instant::ZERO,
            absolute_deadline: Instant::ZERO + Duration::from_millis([4, 2][task]),
            part: kairos_model::Part::Mandatory,
            budget: Duration::from_millis(1),
            executed: Duration::ZERO,
            running_on: None,
            last_core: None,
        }
    }

    /// Both jobs released at 0: EDF runs b (deadline 2 ms) first.
    fn steps(decision: usize) -> Vec<Step> {
        let id = |task| JobId { task, number: 0 };
        vec![Step {
            at: Instant::ZERO,
            events: vec![
                Reported::Released(id(0), Instant::ZERO),
                Reported::Released(id(1), Instant::ZERO),
            ],
            jobs: vec![job(0), job(1)],
            decision: vec![Some(id(decision))],
        }]
    }

    fn edf() -> Box<dyn Policy + Send> {
        PolicyKind::GlobalEdf.build(PriorityOrder::Auto)
    }

    #[test]
    fn the_same_decision_replays() {
        assert_eq!(replay(&workload(), edf().as_mut(), &steps(1)), Ok(1));
    }

    #[test]
    fn another_decision_is_a_divergence() {
        let e = replay(&workload(), edf().as_mut(), &steps(0)).unwrap_err();
        assert!(e.reason.contains("the policy decides"), "{e}");
    }

    #[test]
    fn a_view_that_lost_a_release_is_caught() {
        let mut s = steps(1);
        s[0].jobs.remove(0);
        let e = replay(&workload(), edf().as_mut(), &s).unwrap_err();
        assert!(
            e.reason.contains("the view shows 1 job(s), 2 are released"),
            "{e}"
        );
    }
}
