//! How long GMH-MC-DAG table synthesis takes on the user's own
//! systems, in two figures per file.
//!
//! - **first**: the first synthesis of that file in this process. Its memory is fresh from the
//!   kernel, so on a virtual machine it pays a page fault per 4 KiB touched; this is what one
//!   `kairos synth` invocation costs (its `time_ms`).
//! - **warm**: the median of `--repeat` further syntheses, with the allocator's memory and the
//!   caches already in use: the figure to set next to a reference tool whose JIT was warmed
//!   (`scripts/bench-mcdag-reference.sh` does).
//!
//! Import and checking are not timed: they are the same for every policy and are reported by
//! `kairos check`.

use crate::text::Column;
use kairos_mc::{synthesize, SynthOptions, Synthesis};
use kairos_model::McSystem;
use serde::Serialize;
use std::time::Instant as WallClock;

/// The figures of one file.
#[derive(Serialize)]
pub struct FileTimes {
    pub file: String,
    /// Hyper-period in slots.
    pub slots: u64,
    pub jobs: u64,
    pub intervals: u64,
    /// Whether the policy produced tables (a refusal is timed too: up to its verdict).
    pub schedulable: bool,
    pub first_ms: f64,
    pub warm_median_ms: f64,
    pub warm_min_ms: f64,
    pub repeat: u64,
}

/// Times one system: the first synthesis, then `repeat` more.
pub fn time_file(
    file: String,
    system: &McSystem,
    options: &SynthOptions,
    repeat: u64,
) -> Result<FileTimes, String> {
    let (first, outcome) = timed(system, options);
    let outcome = match outcome {
        Err(failure) if failure.is_input_error() => return Err(failure.to_string()),
        other => other,
    };
    let mut warm: Vec<f64> = (0..repeat).map(|_| timed(system, options).0).collect();
    warm.sort_by(f64::total_cmp);
    let (slots, jobs, intervals) = match &outcome {
        Ok(out) => (
            out.tables.hyperperiod / out.slot.as_nanos(),
            out.quality.total.jobs,
            out.quality.total.intervals,
        ),
        Err(_) => (hyperperiod_slots(system), 0, 0),
    };
    Ok(FileTimes {
        file,
        slots,
        jobs,
        intervals,
        schedulable: outcome.is_ok(),
        first_ms: first,
        warm_median_ms: warm[warm.len() / 2],
        warm_min_ms: warm[0],
        repeat,
    })
}

/// One synthesis and its wall time in milliseconds.
fn timed(
    system: &McSystem,
    options: &SynthOptions,
) -> (f64, Result<Synthesis, kairos_mc::SynthFailure>) {
    let start = WallClock::now();
    let outcome = synthesize(system, options);
    (start.elapsed().as_secs_f64() * 1e3, outcome)
}

/// The hyper-period in slots of a system synthesis refused (0 if it has no grid).
fn hyperperiod_slots(system: &McSystem) -> u64 {
    kairos_mc::grid::Grid::of(system).map_or(0, |g| g.hyperperiod)
}

/// The figures in text, as `kairos bench synth` prints them.
pub fn table(rows: &[FileTimes], policy: &str) -> String {
    use std::fmt::Write;
    let file = Column::fitting(4, rows.iter().map(|r| r.file.as_str()));
    let mut out = format!(
        "{} {:>9} {:>7} {:>9} {:>10} {:>10} {:>10}  outcome\n",
        file.left("file"),
        "slots",
        "jobs",
        "intervals",
        "first ms",
        "warm ms",
        "warm min"
    );
    for r in rows {
        let _ = writeln!(
            out,
            "{} {:>9} {:>7} {:>9} {:>10.3} {:>10.3} {:>10.3}  {}",
            file.left(&r.file),
            r.slots,
            r.jobs,
            r.intervals,
            r.first_ms,
            r.warm_median_ms,
            r.warm_min_ms,
            if r.schedulable { "tables" } else { "no tables" }
        );
    }
    let repeat = rows.first().map_or(0, |r| r.repeat);
    let _ = writeln!(
        out,
        "policy {policy}; first: the first synthesis in this process (fresh memory); warm: median \
         of {repeat} more"
    );
    out
}
