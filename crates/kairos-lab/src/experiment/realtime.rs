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
