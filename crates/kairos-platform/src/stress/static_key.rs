//! kairos's own stressor `static-key`: a process that flips a kernel static key as fast as it
//! can, and by doing so interrupts every other core.
//!
//! Opening the only software perf event of a kind enables the kernel's static key for that
//! kind (`perf_swevent_enabled`) and closing it disables the key again. A flip rewrites kernel
//! code in place, and on x86 the rewrite (`text_poke_bp`) ends by interrupting every online
//! CPU so that each serialises its instruction stream; in a virtual machine each interrupt and
//! each serialising instruction is a VM exit. A load confined to one core therefore steals
//! time from the RT core through the kernel alone: the OS-induced inter-core interference of
//! the OS-latency study of Linux PREEMPT_RT for mixed time-criticality (section IV-A, its
//! taxonomy: delays from resources other cores share, the kernel's among them), and the reason
//! isolated cores of real systems still feel tracing and monitoring tools switching on and off. The interrupts come in proportion to the loop's CPU time, so a CPU bandwidth quota on
//! the load's core bounds them, as equation 5 of that study models.
//!
//! stress-ng (0.15) has no stressor that does this; on the 2-vCPU development machine none of
//! its OS stressors took more than 5 % of the other core, this one takes about half of it.
//! The event is `major-faults`: its key guards a call in the page-fault handler, so flipping it
//! patches code on every architecture, and no common tool keeps it open (`perf stat` opens
//! `page-faults`). A kind without a call site in this kernel (`emulation-faults` on x86) flips
//! a key that patches nothing: 100,000 flips a second here and no interference at all. If a
//! tool keeps the event open, the key stays on and the flips patch nothing either.

use kairos_os::perf;
use std::io::Write;
use std::path::Path;
use std::time::{Duration, Instant};

/// One flip on and off: opens the event (the key goes on) and closes it (the key goes off).
pub fn flip() -> std::io::Result<()> {
    perf::open_close_software_event(perf::SW_PAGE_FAULTS_MAJ)
}

/// Flips until `stop` says so or `bound` has passed; the number of flips.
pub fn run(bound: Duration, stop: &dyn Fn() -> bool) -> std::io::Result<u64> {
    let end = Instant::now() + bound;
    let mut flips = 0;
    // The clock and the flag are read every 64 flips (about 6 ms here): cheap next to a flip.
    while !stop() && Instant::now() < end {
        for _ in 0..64 {
            flip()?;
        }
        flips += 64;
    }
    Ok(flips)
}

/// The stressor as a process (`kairos stressor static-key`): flips until SIGINT, SIGTERM or
/// `bound`, then writes its count in stress-ng's YAML form (a `bogo-ops` per stressor), so
/// best-effort programs count its work as they count stress-ng's.
pub fn run_process(bound: Duration, yaml: Option<&Path>) -> std::io::Result<u64> {
    let signals = kairos_os::signals::StopSignals::install();
    let flips = run(bound, &|| signals.received().is_some())?;
    if let Some(path) = yaml {
        let mut file = std::fs::File::create(path)?;
        writeln!(
            file,
            "metrics:\n    - stressor: static-key\n      bogo-ops: {flips}"
        )?;
    }
    Ok(flips)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_loop_stops_when_told_and_counts_whole_rounds() {
        assert_eq!(run(Duration::from_secs(5), &|| true).unwrap(), 0);
        // A refused perf event (perf_event_paranoid 3, a seccomp filter) fails the test: the
        // load could not interfere on such a machine, and the runs that use it must not pass.
        let flips = run(Duration::from_millis(20), &|| false).expect("perf events allowed");
        assert!(flips >= 64 && flips.is_multiple_of(64), "{flips}");
    }
}
