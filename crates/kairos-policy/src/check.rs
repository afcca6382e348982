//! The check every decision passes before an engine applies it: a decision no machine could
//! carry out is refused with the reason, never half applied. Both engines (the simulator and
//! the runtime's dispatcher) call it, so a policy is held to the same rules in each.

use crate::decision::Decision;
use crate::job::JobId;
use crate::server::ServerSpec;
use crate::view::View;

impl Decision {
    /// `Ok` if the decision has one entry per core, names only released unfinished jobs and
    /// puts no job on two cores, and its promise, if any, is for a later instant with one entry
    /// per core. `running[c]` is the index in `view.jobs` of the job on core
    /// `c` (whose `running_on` is `c`): a job the decision keeps where it runs needs no
    /// search.
    pub fn check(&self, view: &View<'_>, running: &[Option<usize>]) -> Result<(), String> {
        let cores = &self.cores;
        if cores.len() != view.cores {
            return Err(format!(
                "{} core entries for {} cores",
                cores.len(),
                view.cores
            ));
        }
        if !plainly_valid(cores, view, running) {
            placement_error(cores, view, running)?;
        }
        match &self.ahead {
            Some(ahead) if ahead.at <= view.now => {
                Err(format!("a promise for {}, not after now", ahead.at))
            }
            Some(ahead) if ahead.cores.len() != view.cores => Err(format!(
                "a promise with {} core entries for {} cores",
                ahead.cores.len(),
                view.cores
            )),
            _ => Ok(()),
        }
    }
}

/// Whether the job placed on `core` is the one that runs there.
fn stays(core: usize, id: JobId, view: &View<'_>, running: &[Option<usize>]) -> bool {
    (running.get(core).copied().flatten()).is_some_and(|i| view.jobs[i].id == id)
}

/// Whether `cores` names only open jobs, none on two cores, found without comparing every
/// pair of cores: only the jobs a decision moves or starts are looked up (O(1) each with the
/// view's index) and compared with the later cores, so a decision that keeps its jobs where
/// they run costs O(m), plus O(m) per job it moves. A job placed twice is either placed where
/// it runs and elsewhere (seen from the other core through the core it runs on) or twice where
/// it does not run (seen by the comparison with the later cores: a later core naming it is
/// not where it runs, or the first case would have caught it).
fn plainly_valid(cores: &[Option<JobId>], view: &View<'_>, running: &[Option<usize>]) -> bool {
    for (core, want) in cores.iter().enumerate() {
        let Some(id) = *want else {
            continue;
        };
        if stays(core, id, view, running) {
            continue;
        }
        let Some(i) = view.position(id) else {
            return false;
        };
        let kept_where_it_runs =
            (view.jobs[i].running_on).is_some_and(|r| r != core && cores.get(r) == Some(want));
        if kept_where_it_runs || cores[core + 1..].contains(want) {
            return false;
        }
    }
    true
}

/// The first fault of `cores`, core by core: a job that is not open, or on two cores.
fn placement_error(
    cores: &[Option<JobId>],
    view: &View<'_>,
    running: &[Option<usize>],
) -> Result<(), String> {
    for (core, id) in cores.iter().enumerate() {
        let Some(id) = *id else { continue };
        if !stays(core, id, view, running) && view.job(id).is_none() {
            return Err(format!(
                "{} is not a released, unfinished job",
                name(view, id)
            ));
        }
        if cores[core + 1..].contains(&Some(id)) {
            return Err(format!("{} on two cores at once", name(view, id)));
        }
    }
    Ok(())
}

/// `task#number`, with the task's name when the id names a task.
fn name(view: &View<'_>, id: JobId) -> String {
    match view.tasks.get(id.task) {
        Some(task) => format!("job {}#{}", task.name, id.number),
        None => format!("job of task index {} (no such task)", id.task),
    }
}

impl Decision {
    /// `Ok` if the decision's servers fit the declared `specs`: one entry per core, no server on
    /// two cores, each on a core it allows and with budget left, and each job on a core whose
    /// server may run it. A decision without servers passes when none are declared.
    pub fn check_servers(&self, view: &View<'_>, specs: &[ServerSpec]) -> Result<(), String> {
        if specs.is_empty() {
            return match self.servers.is_empty() {
                true => Ok(()),
                false => Err("servers placed, but the policy declared none".to_string()),
            };
        }
        if self.servers.len() != view.cores {
            return Err(format!(
                "{} server entries for {} cores",
                self.servers.len(),
                view.cores
            ));
        }
        for (core, placed) in self.servers.iter().enumerate() {
            let job = self.cores[core];
            let Some(id) = *placed else {
                return match job {
                    Some(job) => Err(format!(
                        "{} on core {core}, which has no server",
                        name(view, job)
                    )),
                    None => continue,
                };
            };
            let (Some(spec), Some(state)) = (specs.get(id.0), view.servers.get(id.0)) else {
                return Err(format!("server index {} (no such server)", id.0));
            };
            if self.servers[core + 1..].contains(placed) {
                return Err(format!("server {} on two cores at once", spec.name));
            }
            if !spec.allows(core) {
                return Err(format!(
                    "server {} on core {core}, outside its cpus",
                    spec.name
                ));
            }
            if state.budget_left.is_zero() {
                return Err(format!("server {} placed with no budget left", spec.name));
            }
            if let Some(job) = job.filter(|j| !spec.runs(j.task)) {
                return Err(format!(
                    "{} on server {}, which may not run it",
                    name(view, job),
                    spec.name
                ));
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    //! The check against a brute-force twin: a placement can be carried out when every job it
    //! names is open and none is named twice, whatever runs where now.
    use crate::{Decision, JobId, JobView, View};
    use kairos_model::{Duration, Instant, Part};
    use proptest::prelude::*;

    fn job(task: usize, running_on: Option<usize>) -> JobView {
        JobView {
            id: JobId { task, number: 0 },
            release: Instant::ZERO,
            absolute_deadline: Instant::ZERO + Duration::from_millis(5),
            part: Part::Mandatory,
            budget: Duration::from_millis(1),
            executed: Duration::ZERO,
            running_on,
            last_core: running_on,
        }
    }

    /// Per core, a code: below 2 idle, 2 to 4 the job it runs (idle if none), from 5 the job
    /// of task `code - 5` (not open when that task has no job), so that kept jobs, moved ones,
    /// unknown ones and doubles all come up.
    fn placement(cores: usize) -> impl Strategy<Value = Vec<u8>> {
        prop::collection::vec(0u8..13, cores)
    }

    proptest! {
        #[test]
        fn the_check_refuses_exactly_the_placements_with_a_job_not_open_or_on_two_cores(
            (cores, open, runs, codes) in (1usize..6, 0usize..7).prop_flat_map(|(m, n)| (
                Just(m),
                Just(n),
                prop::collection::vec(prop::option::of(0usize..7), m),
                placement(m),
            ))
        ) {
            let mut jobs: Vec<JobView> = (0..open).map(|t| job(t, None)).collect();
            let mut running = vec![None; cores];
            for (core, wanted) in runs.iter().enumerate() {
                let Some(t) = wanted.filter(|&t| t < open && jobs[t].running_on.is_none()) else {
                    continue;
                };
                jobs[t] = job(t, Some(core));
                running[core] = Some(t);
            }
            let cores_wanted: Vec<Option<JobId>> = (codes.iter().enumerate())
                .map(|(core, &code)| match code {
                    0..=1 => None,
                    2..=4 => running[core].map(|i: usize| jobs[i].id),
                    _ => Some(JobId { task: usize::from(code - 5), number: 0 }),
                })
                .collect();
            let named: Vec<JobId> = cores_wanted.iter().flatten().copied().collect();
            let twice = (0..named.len()).any(|a| named[a + 1..].contains(&named[a]));
            let all_open = named.iter().all(|id| id.task < open);
            let view = View {
                now: Instant::ZERO,
                cores,
                mode: 0,
                jobs: &jobs,
                index: None,
                tasks: &[],
                servers: &[],
            };
            let decision = Decision { cores: cores_wanted, ..Decision::idle(cores) };
            let verdict = decision.check(&view, &running);
            prop_assert_eq!(verdict.is_ok(), all_open && !twice, "{:?}", verdict);
            // The fast check alone decides, so that a placement it wrongly doubted would not
            // pass unnoticed through the slow one.
            let fast = super::plainly_valid(&decision.cores, &view, &running);
            prop_assert_eq!(fast, all_open && !twice);
        }
    }
}
