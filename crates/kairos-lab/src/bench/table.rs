//! The table runtime's benchmarks (`kairos bench migration | mode-change | cyclic`): the
//! experiments of Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 7 on this machine with the table-driven runtime
//! (`kairos_rt::table::bench`), printed as distributions (min / p50 / p99 / max) and written as
//! CSV and SVG into `--out-dir`.

use super::table_report::{plot, row, us, Output, Report};
use crate::{Failure, Notify};
use kairos_model::Duration;
use kairos_os::{privilege, signals::StopSignals};
use kairos_rt::calibrate::calibrate;
use kairos_rt::periodic::RunError;
use kairos_rt::table::bench;
use kairos_rt::table::TableRunConfig;
use kairos_rt::watchdog::RunControl;
use std::path::PathBuf;

/// `kairos bench migration`: one task alternating between two CPUs every window.
pub struct Migration {
    /// Length of the migrating run (at most 60s).
    pub duration: Duration,
    /// The task moves to the other core at every window boundary.
    pub window: Duration,
    /// Samples of each raw mechanism (futex wake, sched_setaffinity).
    pub samples: usize,
    /// Folder for the CSV and the plots.
    pub out_dir: PathBuf,
}

/// `kairos bench mode-change`: mode change time against the number of tasks.
pub struct ModeChange {
    pub tasks: Vec<usize>,
    pub cores: usize,
    /// Hyper-periods per point, one mode change each.
    pub periods: u64,
    /// LO budget of every task (HI tasks get twice as much at HI).
    pub unit: Duration,
    /// Folder for the CSV and the plots.
    pub out_dir: PathBuf,
}

/// `kairos bench cyclic`: every task migrating to the next core every window.
pub struct Cyclic {
    /// Cores used: `2..` (2 up to this machine's), `2..8`, or a single number.
    pub cores: String,
    pub window: Duration,
    /// Length of the run per number of cores (at most 60s).
    pub duration: Duration,
    /// Folder for the CSV and the plots.
    pub out_dir: PathBuf,
}

fn failure(e: RunError) -> Failure {
    match e {
        RunError::Invalid(text) => Failure::bad_input(text),
        RunError::Platform(p) => Failure::environment(p.to_string()),
    }
}

/// Privilege, calibration of `cores` CPUs and a stop flag wired to SIGINT/SIGTERM.
fn prepare(cores: usize) -> Result<(TableRunConfig, StopSignals), Failure> {
    privilege::require_rt().map_err(|e| Failure::environment(e.to_string()))?;
    let cpus = kairos_os::online_cpus();
    if cpus.len() < cores {
        return Err(Failure::bad_input(format!(
            "{cores} cores asked, this machine offers {} ({cpus:?})",
            cpus.len()
        )));
    }
    let calibration = calibrate(&cpus[..cores]).map_err(|e| Failure::environment(e.to_string()))?;
    let mut config = TableRunConfig::new(0);
    config.calibration = Some(calibration);
    config.control = Some(RunControl::new());
    // A margin for this machine's latencies (an overrun of twice the LO budget still shows).
    config.work_fraction = 0.7;
    Ok((config, StopSignals::install()))
}

fn check_length(what: &str, d: Duration) -> Result<u64, Failure> {
    let ns = d.as_nanos();
    if !(1_000_000..=60_000_000_000).contains(&ns) {
        return Err(Failure::bad_input(format!(
            "{what} must be between 1ms and 60s"
        )));
    }
    Ok(ns)
}

fn interrupted(signals: &StopSignals) -> Result<(), Failure> {
    match signals.received() {
        Some(_) => Err(Failure::environment("interrupted")),
        None => Ok(()),
    }
}

/// Runs the migration bench, its text lines told to `say`.
pub fn migration(args: &Migration, say: Notify) -> Result<Report, Failure> {
    let duration = check_length("--duration", args.duration)?;
    let window = check_length("--window", args.window)?;
    if window < 100_000 {
        return Err(Failure::bad_input("--window must be at least 100us"));
    }
    let (mut base, signals) = prepare(2)?;
    // Keep the task busy through most windows: every boundary is then a migration.
    base.work_fraction = 0.9;
    let cpus = kairos_os::online_cpus();
    let floor = bench::raw_floor(cpus[0], cpus[1], args.samples.max(1)).map_err(failure)?;
    interrupted(&signals)?;
    let figures = bench::migration(window, duration, &base).map_err(failure)?;
    interrupted(&signals)?;
    let mut out = Output::new(say);
    out.point(
        &format!(
            "slot-boundary migration: one task alternating between CPUs {} and {} every {} \
             ({} migrations; cpu_dma_latency held: {})",
            cpus[0], cpus[1], args.window, figures.run.migrations, figures.run.dma_latency_held
        ),
        "migration",
        serde_json::json!({"migrations": figures.run.migrations}),
    );
    let floors = [
        ("floor: futex wake to the other CPU", &floor.futex_wake),
        (
            "floor: sched_setaffinity to the other CPU",
            &floor.setaffinity,
        ),
    ];
    for (label, d) in floors {
        out.row(label, &d.summary());
    }
    for (name, s) in &figures.rows {
        out.row(name, s);
    }
    let best_floor = floor
        .futex_wake
        .summary()
        .p50
        .min(floor.setaffinity.summary().p50)
        .max(1);
    if let Some(m) = row(&figures, bench::MIGRATION_TOTAL) {
        out.say(&format!(
            "slot-boundary migration (nominal boundary to running on the new core, \
             dispatch.migration_request_to_start) median {:.1} us; floor medians: futex wake {:.1} us, \
             sched_setaffinity {:.1} us",
            us(m.p50),
            us(floor.futex_wake.summary().p50),
            us(floor.setaffinity.summary().p50)
        ));
        out.say(&format!(
            "slot-boundary migration median / best raw floor median = {:.2}",
            m.p50 as f64 / best_floor as f64
        ));
    }
    out.finish("migration", &args.out_dir.join("migration.csv"), &[])
}

/// Runs the mode-change bench, its text lines told to `say`.
pub fn mode_change(args: &ModeChange, say: Notify) -> Result<Report, Failure> {
    if args.tasks.is_empty() || args.tasks.iter().any(|&n| n == 0 || n > 256) {
        return Err(Failure::bad_input("--tasks: 1 to 256 tasks per point"));
    }
    if args.cores == 0 || args.periods == 0 || args.periods > 10_000 {
        return Err(Failure::bad_input(
            "--cores must be >= 1 and --periods between 1 and 10000",
        ));
    }
    if !(50_000..=100_000_000).contains(&args.unit.as_nanos()) {
        return Err(Failure::bad_input("--unit must be between 50us and 100ms"));
    }
    let (base, signals) = prepare(args.cores)?;
    let mut out = Output::new(say);
    let mut points = Vec::new();
    for &tasks in &args.tasks {
        let figures =
            bench::mode_change_point(tasks, args.cores, args.unit.as_nanos(), args.periods, &base)
                .map_err(failure)?;
        interrupted(&signals)?;
        let run = &figures.run;
        out.point(
            &format!(
                "mode change, {tasks} tasks on {} cores: {} mode changes, {} deadline misses",
                args.cores, run.mode_changes, run.deadline_misses
            ),
            &tasks.to_string(),
            serde_json::json!({"mode_changes": run.mode_changes, "deadline_misses": run.deadline_misses}),
        );
        for (name, s) in &figures.rows {
            out.row(name, s);
        }
        points.push((tasks as f64, figures));
    }
    let svg = args.out_dir.join("mode-change.svg");
    let drawn = plot(
        &svg,
        &format!("Mode change time, {} cores", args.cores),
        "tasks",
        &points,
        &[
            bench::MODE_CHANGE_TOTAL,
            kairos_rt::measure::names::MODE_CHANGE_ALL_RESCHEDULED,
        ],
    )?;
    if !drawn {
        out.no_plot();
    }
    out.finish(
        "mode-change",
        &args.out_dir.join("mode-change.csv"),
        &[&svg],
    )
}

/// `--cores` of `kairos bench cyclic`.
fn core_range(text: &str, available: usize) -> Result<Vec<usize>, Failure> {
    let bad = || {
        Failure::bad_input(format!(
            "--cores {text:?}: expected N, A..B or A.. (this machine has {available} CPUs)"
        ))
    };
    let (from, to) = match text.split_once("..") {
        Some((a, "")) => (a.parse().map_err(|_| bad())?, available),
        Some((a, b)) => (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?),
        None => {
            let n = text.parse().map_err(|_| bad())?;
            (n, n)
        }
    };
    if from < 2 || to < from {
        return Err(bad());
    }
    if to > available {
        return Err(Failure::bad_input(format!(
            "--cores {text}: this machine has {available} CPUs; the same command runs up to \
             more cores on a bigger machine"
        )));
    }
    Ok((from..=to).collect())
}

/// Runs the cyclic bench, its text lines told to `say`.
pub fn cyclic(args: &Cyclic, say: Notify) -> Result<Report, Failure> {
    let duration = check_length("--duration", args.duration)?;
    let window = check_length("--window", args.window)?;
    let counts = core_range(&args.cores, kairos_os::online_cpus().len())?;
    let (mut base, signals) = prepare(*counts.last().unwrap_or(&2))?;
    base.work_fraction = 0.9;
    let mut out = Output::new(say);
    let mut points = Vec::new();
    for &cores in &counts {
        let figures = bench::cyclic_point(cores, window, duration, &base).map_err(failure)?;
        interrupted(&signals)?;
        let run = &figures.run;
        out.point(
            &format!(
                "cyclic migrations, {cores} tasks on {cores} cores every {}: {} migrations, \
                 {} double executions",
                args.window, run.migrations, run.overlaps
            ),
            &cores.to_string(),
            serde_json::json!({"migrations": run.migrations, "double_executions": run.overlaps}),
        );
        for (name, s) in &figures.rows {
            out.row(name, s);
        }
        points.push((cores as f64, figures));
    }
    let svg = args.out_dir.join("cyclic.svg");
    let drawn = plot(
        &svg,
        "Cyclic migrations: per migration and per window",
        "cores",
        &points,
        &[bench::MIGRATION_TOTAL, bench::WINDOW_TOTAL],
    )?;
    if !drawn {
        out.no_plot();
    }
    out.finish("cyclic", &args.out_dir.join("cyclic.csv"), &[&svg])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn core_ranges() {
        assert_eq!(core_range("2..", 4).unwrap(), vec![2, 3, 4]);
        assert_eq!(core_range("2..3", 4).unwrap(), vec![2, 3]);
        assert_eq!(core_range("3", 4).unwrap(), vec![3]);
        assert!(core_range("1..", 4).is_err());
        assert!(core_range("2..8", 4).is_err());
        assert!(core_range("x", 4).is_err());
    }
}
