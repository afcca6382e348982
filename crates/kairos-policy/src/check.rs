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
/// pair of cores: only the jobs a decision moves or starts are looked up (O(1) each) and
/// compared with the other cores, so a decision that keeps most jobs where they run costs O(m)
/// plus O(m) per job it moves. A job placed twice is either placed where it runs and
/// elsewhere (seen from the other core through the core it runs on) or twice where it does
/// not run (seen by the comparison).
fn plainly_valid(cores: &[Option<JobId>], view: &View<'_>, running: &[Option<usize>]) -> bool {
    let moved = |core: usize| cores[core].filter(|&id| !stays(core, id, view, running));
    (0..cores.len()).all(|core| {
        let Some(id) = moved(core) else {
            return true;
        };
        let Some(i) = view.position(id) else {
            return false;
        };
        let kept_where_it_runs =
            (view.jobs[i].running_on).is_some_and(|r| r != core && cores.get(r) == Some(&Some(id)));
        !kept_where_it_runs && (core + 1..cores.len()).all(|other| moved(other) != Some(id))
    })
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
