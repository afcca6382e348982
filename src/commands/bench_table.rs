//! `kairos bench migration | mode-change | cyclic`: the experiments of seed
//! Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 7 on this machine with the table-driven runtime
//! (`kairos_rt::table::bench`), printed as distributions (min / p50 / p99 / max) and written as
//! CSV and SVG into `--out-dir`.

use crate::args::{duration_arg, CommandResult, Failure};
use kairos_model::Duration;
use kairos_rt::calibrate::calibrate;
use kairos_rt::measure::Summary;
use kairos_rt::periodic::RunError;
use kairos_rt::platform::{self, privilege, signals::StopSignals};
use kairos_rt::table::bench::{self, Figures};
use kairos_rt::table::TableRunConfig;
use kairos_rt::watchdog::RunControl;
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct MigrationArgs {
    /// Length of the migrating run (at most 60s).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "5s")]
    pub duration: Duration,
    /// The task moves to the other core at every window boundary.
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "1ms")]
    pub window: Duration,
    /// Samples of each raw mechanism (futex wake, sched_setaffinity).
    #[arg(long, default_value_t = 2000)]
    pub samples: usize,
    #[arg(long, default_value = "kairos-bench")]
    pub out_dir: PathBuf,
    /// Print the measurements as JSON (`bench`, `points`: per point its measures in ns,
    /// `files`) instead of the tables.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct ModeChangeArgs {
    /// Numbers of tasks, comma-separated.
    #[arg(long, value_delimiter = ',', default_value = "4,8,12,16")]
    pub tasks: Vec<usize>,
    #[arg(long, default_value_t = 2)]
    pub cores: usize,
    /// Hyper-periods per point, one mode change each.
    #[arg(long, default_value_t = 200)]
    pub periods: u64,
    /// LO budget of every task (HI tasks get twice as much at HI).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "500us")]
    pub unit: Duration,
    #[arg(long, default_value = "kairos-bench")]
    pub out_dir: PathBuf,
    /// Print the measurements as JSON (`bench`, `points`: per point its measures in ns,
    /// `files`) instead of the tables.
    #[arg(long)]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct CyclicArgs {
    /// Cores used: `2..` (2 up to this machine's), `2..8`, or a single number.
    #[arg(long, default_value = "2..")]
    pub cores: String,
    /// Every task moves to the next core at every window boundary.
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "10ms")]
    pub window: Duration,
    /// Length of the run per number of cores (at most 60s).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "5s")]
    pub duration: Duration,
    #[arg(long, default_value = "kairos-bench")]
    pub out_dir: PathBuf,
    /// Print the measurements as JSON (`bench`, `points`: per point its measures in ns,
    /// `files`) instead of the tables.
    #[arg(long)]
    pub json: bool,
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
    let cpus = platform::online_cpus();
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

fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

/// What a runtime bench prints and writes: a table per point on standard output (or, with
/// `--json`, one JSON document at the end) and the same rows as CSV.
struct Output {
    json: bool,
    csv: String,
    points: Vec<serde_json::Value>,
}

const CSV_HEADER: &str = "point,measure,count,min_ns,p50_ns,p99_ns,max_ns,mean_ns\n";

impl Output {
    fn new(json: bool) -> Output {
        Output {
            json,
            csv: CSV_HEADER.to_string(),
            points: Vec::new(),
        }
    }

    /// Starts a point: its table header, and its JSON object (`extra` fields added).
    fn point(&mut self, title: &str, key: &str, extra: serde_json::Value) {
        self.say(title);
        self.say(&format!(
            "  {:<44} {:>8} {:>8} {:>8} {:>9} {:>7}",
            "us", "min", "p50", "p99", "max", "n"
        ));
        let mut point = serde_json::json!({"point": key, "measures": {}});
        if let (Some(point), Some(extra)) = (point.as_object_mut(), extra.as_object()) {
            point.extend(extra.clone());
        }
        self.points.push(point);
    }

    fn row(&mut self, name: &str, s: &Summary) {
        self.say(&format!(
            "  {name:<44} {:>8.1} {:>8.1} {:>8.1} {:>9.1} {:>7}",
            us(s.min),
            us(s.p50),
            us(s.p99),
            us(s.max),
            s.count
        ));
        let key = self.points.last().map_or(String::new(), |p| {
            p["point"].as_str().unwrap_or_default().to_string()
        });
        let _ = writeln!(
            self.csv,
            "{key},{name},{},{},{},{},{},{}",
            s.count, s.min, s.p50, s.p99, s.max, s.mean
        );
        if let Some(point) = self.points.last_mut() {
            point["measures"][name] = serde_json::to_value(s).expect("summary serializes");
        }
    }

    /// A line of the text report (nothing with `--json`).
    fn say(&self, line: &str) {
        if !self.json {
            println!("{line}");
        }
    }

    /// Writes the CSV; with `--json` prints the document, else says what was written.
    fn finish(self, bench: &str, csv: &Path, files: &[&Path]) -> Result<(), Failure> {
        write_file(csv, &self.csv)?;
        let written: Vec<String> = std::iter::once(csv)
            .chain(files.iter().copied())
            .map(|p| p.display().to_string())
            .collect();
        match self.json {
            true => println!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({
                    "bench": bench, "points": self.points, "files": written,
                }))
                .expect("report serializes")
            ),
            false => println!("wrote {}", written.join(", ")),
        }
        Ok(())
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), Failure> {
    crate::args::write_output(path, text)
}

fn row<'a>(figures: &'a Figures, name: &str) -> Option<&'a Summary> {
    figures.rows.iter().find(|(n, _)| n == name).map(|(_, s)| s)
}

/// `kairos bench migration`.
pub fn migration(args: &MigrationArgs) -> CommandResult {
    let duration = check_length("--duration", args.duration)?;
    let window = check_length("--window", args.window)?;
    if window < 100_000 {
        return Err(Failure::bad_input("--window must be at least 100us"));
    }
    let (mut base, signals) = prepare(2)?;
    // Keep the task busy through most windows: every boundary is then a migration.
    base.work_fraction = 0.9;
    let cpus = platform::online_cpus();
    let floor = bench::raw_floor(cpus[0], cpus[1], args.samples.max(1)).map_err(failure)?;
    interrupted(&signals)?;
    let figures = bench::migration(window, duration, &base).map_err(failure)?;
    interrupted(&signals)?;
    let mut out = Output::new(args.json);
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
             migration.total) median {:.1} us; floor medians: futex wake {:.1} us, \
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
    out.finish("migration", &args.out_dir.join("migration.csv"), &[])?;
    Ok(0)
}

/// `kairos bench mode-change`.
pub fn mode_change(args: &ModeChangeArgs) -> CommandResult {
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
    let mut out = Output::new(args.json);
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
    plot(
        &svg,
        &format!("Mode change time, {} cores", args.cores),
        "tasks",
        &points,
        &[
            bench::MODE_CHANGE_TOTAL,
            kairos_rt::measure::names::MODE_CHANGE_ALL_RESCHEDULED,
        ],
    )?;
    out.finish(
        "mode-change",
        &args.out_dir.join("mode-change.csv"),
        &[&svg],
    )?;
    Ok(0)
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

/// `kairos bench cyclic`.
pub fn cyclic(args: &CyclicArgs) -> CommandResult {
    let duration = check_length("--duration", args.duration)?;
    let window = check_length("--window", args.window)?;
    let counts = core_range(&args.cores, platform::online_cpus().len())?;
    let (mut base, signals) = prepare(*counts.last().unwrap_or(&2))?;
    base.work_fraction = 0.9;
    let mut out = Output::new(args.json);
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
    plot(
        &svg,
        "Cyclic migrations: per migration and per window",
        "cores",
        &points,
        &[
            kairos_rt::table::worker::extra_names::MIGRATION_HANDLER_TO_START,
            bench::WINDOW_TOTAL,
        ],
    )?;
    out.finish("cyclic", &args.out_dir.join("cyclic.csv"), &[&svg])?;
    Ok(0)
}

/// Median (line) and p99 (dashed) of each series against the points' x, in microseconds.
fn plot(
    path: &Path,
    title: &str,
    x_desc: &str,
    points: &[(f64, Figures)],
    series: &[&str],
) -> Result<(), Failure> {
    if !crate::commands::experiment::plot::register_font() {
        eprintln!("warning: no plot drawn: no DejaVuSans.ttf found (install fonts-dejavu-core)");
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Failure::environment(format!("{}: {e}", parent.display())))?;
    }
    draw(path, title, x_desc, points, series)
        .map_err(|e| Failure::environment(format!("cannot draw {}: {e}", path.display())))
}

/// The legend sits right of the plot (no data under it); x is a count (tasks or cores), so
/// only whole numbers are labelled; colours avoid yellow on white.
fn draw(
    path: &Path,
    title: &str,
    x_desc: &str,
    points: &[(f64, Figures)],
    series: &[&str],
) -> Result<(), Box<dyn std::error::Error>> {
    use crate::commands::experiment::plot::{draw_legend, trimmed, LegendEntry, PALETTE};
    let area = SVGBackend::new(path, (1100, 560)).into_drawing_area();
    area.fill(&WHITE)?;
    let (plot_area, legend_area) = area.split_horizontally(720);
    let value = |f: &Figures, name: &str, p99: bool| {
        row(f, name).map(|s| us(if p99 { s.p99 } else { s.p50 }))
    };
    let y_max = points
        .iter()
        .flat_map(|(_, f)| series.iter().filter_map(move |n| value(f, n, true)))
        .fold(1.0, f64::max)
        * 1.1;
    let (x_min, x_max) = points
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), (x, _)| {
            (lo.min(*x), hi.max(*x))
        });
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(x_min - 0.5..x_max + 0.5, 0.0..y_max)?;
    let whole = |x: &f64| match x.fract() == 0.0 {
        true => trimmed(*x),
        false => String::new(),
    };
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc("microseconds (line: median, dashed: p99)")
        .x_labels(((x_max - x_min) as usize + 2).clamp(2, 40) * 2)
        .x_label_formatter(&whole)
        .y_label_formatter(&|y| trimmed(*y))
        .light_line_style(RGBColor(238, 238, 238))
        .label_style(("sans-serif", 14))
        .draw()?;
    let mut legend = Vec::new();
    for (i, name) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        for p99 in [false, true] {
            let line: Vec<(f64, f64)> = points
                .iter()
                .filter_map(|(x, f)| value(f, name, p99).map(|v| (*x, v)))
                .collect();
            let style = color.stroke_width(if p99 { 1 } else { 2 });
            if p99 {
                chart.draw_series(DashedLineSeries::new(line.clone(), 6, 4, style))?;
            } else {
                chart.draw_series(LineSeries::new(line.clone(), style))?;
            }
            chart.draw_series(line.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
            let label = format!("{name} {}", if p99 { "p99" } else { "median" });
            legend.push(LegendEntry {
                label,
                color,
                dashed: p99,
            });
        }
    }
    draw_legend(&legend_area, &legend)?;
    area.present()?;
    Ok(())
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
