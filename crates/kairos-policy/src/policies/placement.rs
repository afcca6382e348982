//! Where chosen jobs go: a job already running keeps its core (moving it would be a needless
//! migration); a job that starts or resumes takes its last core if that core is free, otherwise
//! the free core with the lowest index. Deterministic, and it never migrates a job that could
//! have stayed.

use crate::job::{JobId, JobView};

/// Places `chosen` (at most `cores` jobs, those not running most important first; a running
/// job keeps its core, so where it comes in `chosen` does not matter) on cores `0..cores`. An
/// iterator, walked twice, so that a policy need not collect its choice first.
pub fn place_on_cores<'a>(
    cores: usize,
    chosen: impl Iterator<Item = &'a JobView> + Clone,
) -> Vec<Option<JobId>> {
    let mut placed = Vec::new();
    place_on_cores_into(cores, chosen, &mut placed);
    placed
}

/// [`place_on_cores`] into `placed` (cleared first), for a policy that reuses its vector.
pub fn place_on_cores_into<'a>(
    cores: usize,
    chosen: impl Iterator<Item = &'a JobView> + Clone,
    placed: &mut Vec<Option<JobId>>,
) {
    placed.clear();
    placed.resize(cores, None);
    for job in chosen.clone() {
        if let Some(core) = job.running_on {
            placed[core] = Some(job.id);
        }
    }
    for job in chosen.filter(|j| j.running_on.is_none()) {
        let core = job
            .last_core
            .filter(|&c| placed[c].is_none())
            .or_else(|| placed.iter().position(Option::is_none));
        if let Some(core) = core {
            placed[core] = Some(job.id);
        }
    }
}
