//! Where chosen jobs go: a job already running keeps its core (moving it would be a needless
//! migration); a job that starts or resumes takes its last core if that core is free, otherwise
//! the free core with the lowest index. Deterministic, and it never migrates a job that could
//! have stayed.

use super::View;

/// Places `chosen` (indices into `view.jobs`, at most `view.cores`, most important first).
pub fn place_on_cores(view: &View<'_>, chosen: &[usize]) -> Vec<Option<usize>> {
    let mut cores = vec![None; view.cores];
    for &job in chosen {
        if let Some(core) = view.jobs[job].running_on {
            cores[core] = Some(job);
        }
    }
    for &job in chosen
        .iter()
        .filter(|&&j| view.jobs[j].running_on.is_none())
    {
        let core = view.jobs[job]
            .last_core
            .filter(|&c| cores[c].is_none())
            .or_else(|| cores.iter().position(Option::is_none));
        if let Some(core) = core {
            cores[core] = Some(job);
        }
    }
    cores
}
