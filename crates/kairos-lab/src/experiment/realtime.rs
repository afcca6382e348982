//! What an experiment that runs on real cores (the RT-Xen study's `execution = "real"`, the
//! guarantees study) needs once before its first run: the privilege, enough CPUs, and one
//! calibration of the busy work every run then reuses.

use crate::Failure;
use kairos_os::{online_cpus, privilege};
use kairos_rt::calibrate::{calibrate, Calibration};

/// Checks the privilege and the machine's CPUs, and calibrates the `cores` first online CPUs
/// (the ones every run uses).
pub(super) fn calibrated_cores(cores: usize) -> Result<Calibration, Failure> {
    let online = online_cpus();
    if online.len() < cores {
        return Err(Failure::bad_input(format!(
            "execution = \"real\" with cores = {cores}, but this machine has {} online CPU(s): \
             set cores to at most {}",
            online.len(),
            online.len()
        )));
    }
    privilege::require_rt().map_err(|e| Failure::environment(e.to_string()))?;
    calibrate(&online[..cores]).map_err(|e| Failure::environment(e.to_string()))
}

/// The workers of a study's sets: one when its sets run on real cores (each run uses every
/// core of the study, so they go one at a time), else `jobs` (rayon's default when `None`).
pub(super) fn study_pool(real: bool, jobs: Option<usize>) -> Result<rayon::ThreadPool, Failure> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(if real { 1 } else { jobs.unwrap_or(0) })
        .build()
        .map_err(|e| Failure::environment(format!("cannot start worker threads: {e}")))
}
