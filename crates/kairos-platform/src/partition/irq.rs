//! Interrupt affinity (`/proc/irq/N/smp_affinity_list`): every interrupt that accepts it goes
//! to the best-effort CPUs; those that refuse (per-CPU timers, some MSI vectors: EIO) are
//! reported with the reason and left alone.

use super::state::{cpu_list, Change, State};
use super::{io, write, PartitionError, Report};
use std::path::PathBuf;

fn file(irq: u32) -> PathBuf {
    PathBuf::from(format!("/proc/irq/{irq}/smp_affinity_list"))
}

/// The interrupts with an affinity file.
fn interrupts() -> Vec<u32> {
    let Ok(dirs) = std::fs::read_dir("/proc/irq") else {
        return Vec::new();
    };
    let mut irqs: Vec<u32> = dirs
        .flatten()
        .filter_map(|d| d.file_name().to_str()?.parse().ok())
        .filter(|&n| file(n).exists())
        .collect();
    irqs.sort_unstable();
    irqs
}

pub fn move_all(
    be: &[usize],
    state: &mut State,
    report: &mut Report,
) -> Result<(), PartitionError> {
    let current: Vec<(u32, String)> = interrupts()
        .into_iter()
        .filter_map(|n| Some((n, std::fs::read_to_string(file(n)).ok()?.trim().to_string())))
        .collect();
    (state.changes).extend(current.iter().map(|(irq, previous)| Change::Irq {
        irq: *irq,
        previous: previous.clone(),
    }));
    state.save().map_err(io("write the partition state"))?;
    let target = cpu_list(be);
    for (irq, _) in current {
        match write(&file(irq), &target) {
            Ok(()) => report.irqs_moved.push(irq),
            Err(e) => report.irqs_refused.push((irq, e.to_string())),
        }
    }
    Ok(())
}

/// Puts an interrupt's affinity back (one that refused to move was never changed).
pub fn restore(irq: u32, previous: &str) {
    let _ = write(&file(irq), previous);
}
