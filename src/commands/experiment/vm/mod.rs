//! `kairos experiment` on an RT-Xen study config (`study = "rt-xen"`): the experiments of Xi,
//! Xu, Lu, Lee, Gill, Phan, Lee, Sokolsky, "Real-Time Multi-Core Virtual Machine Scheduling in
//! Xen" (EMSOFT 2014), section VI, on the two-level simulator instead of 60 s of real
//! execution per set: for each utilization, `samples` sets from the paper's generator
//! (bimodal utilizations with a pad task, periods 350 to 850 ms, tasks spread over the
//! domains), each analysed and simulated under every configuration ([`set`]), the results
//! written as CSV and plots ([`report`]). Reproducible from the config (the set of sample `k`
//! at point `p` comes from its own seeded stream) and resumable by point, as every experiment.

mod figures;
mod point;
mod real;
mod report;
mod set;

use super::resume::Progress;
use crate::args::{CommandResult, Failure};
use indicatif::ProgressBar;
use kairos_gen::{generate_rtxen, seeded, PeriodDist, RtXenConfig, UtilDist};
use kairos_model::{parse_duration, Duration, GuestScheduler};
use kairos_os::signals::{self, StopSignals};
use point::StudyPoint;
use rayon::prelude::*;
use serde::Deserialize;
use set::{SetResult, Setup};
use std::path::{Path, PathBuf};

/// Whether `text` is an RT-Xen study config: its top level has `study`.
pub fn is_study(text: &str) -> bool {
    text.parse::<toml::Table>()
        .is_ok_and(|t| t.contains_key("study"))
}

/// The config file; every key but `study` has the paper's value as default.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct StudyFile {
    /// `"rt-xen"`.
    study: String,
    name: Option<String>,
    #[serde(default)]
    seed: u64,
    #[serde(default = "default_cores")]
    cores: usize,
    #[serde(default = "default_samples")]
    samples: usize,
    /// `bimo-light`, `bimo-medium` or `bimo-heavy`.
    distribution: String,
    #[serde(default = "default_domains")]
    domains: usize,
    /// Simulated (or, on real cores, run) time per set and configuration.
    #[serde(default = "default_duration")]
    duration: String,
    /// `simulated` (default) or `real`: also run every configuration on this machine's cores.
    #[serde(default = "default_execution")]
    execution: String,
    /// The tasks' period range, `[min, max]` in whole milliseconds (the paper: 350 to 850 ms;
    /// shorter periods give short real runs enough jobs).
    periods: Option<[String; 2]>,
    #[serde(default = "default_vcpu_period")]
    vcpu_period: String,
    /// The VMM decides every quantum (RT-Xen 2.0: "1ms"); absent: event driven.
    quantum: Option<String>,
    /// The guest of the miss-ratio figures: `gedf` (the paper's) or `pedf`.
    #[serde(default = "default_guest")]
    guest: String,
    #[serde(default)]
    utilization: Option<Range>,
    /// The point of the back-to-back table (the paper: 3.1).
    #[serde(default = "default_table_point")]
    table_utilization: f64,
}

#[derive(Deserialize, Clone, Copy)]
#[serde(deny_unknown_fields)]
struct Range {
    from: f64,
    to: f64,
    step: f64,
}

fn default_cores() -> usize {
    5
}
fn default_samples() -> usize {
    25
}
fn default_domains() -> usize {
    4
}
fn default_duration() -> String {
    "10s".into()
}
fn default_execution() -> String {
    "simulated".into()
}
fn default_vcpu_period() -> String {
    "10ms".into()
}
fn default_guest() -> String {
    "gedf".into()
}
fn default_table_point() -> f64 {
    3.1
}

/// A resolved study.
pub struct Study {
    pub name: String,
    pub seed: u64,
    pub samples: usize,
    pub distribution: UtilDist,
    pub periods: PeriodDist,
    pub points: Vec<f64>,
    pub setup: Setup,
    pub table_utilization: f64,
    /// Every configuration runs on real cores too.
    pub real: bool,
}

/// What `kairos check` says of a study config: one line, or why it cannot run.
pub fn describe(text: &str, path: &Path) -> Result<String, String> {
    let study = load(text, path).map_err(|f| f.message)?;
    let runs = match study.real {
        true => "simulated and run on real cores",
        false => "simulated",
    };
    Ok(format!(
        "RT-Xen study {}: {} point(s) of {} set(s), {} core(s), {runs}",
        study.name,
        study.points.len(),
        study.samples,
        study.setup.cores
    ))
}

fn load(text: &str, path: &Path) -> Result<Study, Failure> {
    let bad = |what: String| Failure::bad_input(format!("{}: {what}", path.display()));
    let file: StudyFile = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
    if file.study != "rt-xen" {
        return Err(bad(format!(
            "study = {:?}: the one study is \"rt-xen\"",
            file.study
        )));
    }
    let distribution: UtilDist = file
        .distribution
        .parse()
        .map_err(|e| bad(format!("distribution: {e}")))?;
    let duration = parse_duration(&file.duration).map_err(|e| bad(format!("duration: {e}")))?;
    let vcpu_period =
        parse_duration(&file.vcpu_period).map_err(|e| bad(format!("vcpu_period: {e}")))?;
    let guest = match file.guest.as_str() {
        "pedf" => GuestScheduler::Pedf,
        "gedf" => GuestScheduler::Gedf,
        other => return Err(bad(format!("guest = {other:?}: pedf or gedf"))),
    };
    if file.cores == 0 || file.samples == 0 || file.domains == 0 {
        return Err(bad("cores, samples and domains must be at least 1".into()));
    }
    let quantum = (file.quantum.as_deref())
        .map(parse_duration)
        .transpose()
        .map_err(|e| bad(format!("quantum: {e}")))?;
    if duration.is_zero() || vcpu_period.is_zero() || quantum.is_some_and(|q| q.is_zero()) {
        return Err(bad("duration and vcpu_period must be positive".into()));
    }
    let real = match file.execution.as_str() {
        "simulated" => false,
        "real" => true,
        other => return Err(bad(format!("execution = {other:?}: simulated or real"))),
    };
    let periods = match &file.periods {
        None => RtXenConfig::PERIODS,
        Some(range) => period_range(range).map_err(|e| bad(format!("periods: {e}")))?,
    };
    let range = file.utilization.unwrap_or(Range {
        from: 1.1,
        to: 4.9,
        step: 0.2,
    });
    let points = points(range)
        .ok_or_else(|| bad("utilization: from <= to and step > 0, at most 1000 points".into()))?;
    Ok(Study {
        name: file
            .name
            .unwrap_or_else(|| format!("rtxen-{}", distribution.name())),
        seed: file.seed,
        samples: file.samples,
        distribution,
        periods,
        points,
        setup: Setup {
            cores: file.cores,
            domains: file.domains,
            vcpu_period,
            quantum,
            duration,
            guest,
            seed: file.seed,
            real: None,
        },
        real,
        table_utilization: file.table_utilization,
    })
}

/// `[min, max]` as the generator's uniform period distribution in milliseconds.
fn period_range(range: &[String; 2]) -> Result<PeriodDist, String> {
    let ms = |text: &String| -> Result<u64, String> {
        let d = parse_duration(text).map_err(|e| e.to_string())?;
        let ms = Duration::from_millis(1).as_nanos();
        match d.as_nanos() % ms == 0 && !d.is_zero() {
            true => Ok(d.as_nanos() / ms),
            false => Err(format!("{text}: a positive whole number of milliseconds")),
        }
    };
    let (min_ms, max_ms) = (ms(&range[0])?, ms(&range[1])?);
    match min_ms <= max_ms {
        true => Ok(PeriodDist::Uniform { min_ms, max_ms }),
        false => Err(format!("{} is above {}", range[0], range[1])),
    }
}

/// `from, from + step, ..., to`, each rounded to the step's decimals as written.
fn points(r: Range) -> Option<Vec<f64>> {
    if !(r.step > 0.0 && r.from <= r.to && r.from >= 0.0) {
        return None;
    }
    let n = ((r.to - r.from) / r.step + 1e-9).floor() as usize + 1;
    (n <= 1000).then(|| {
        (0..n)
            .map(|k| ((r.from + k as f64 * r.step) * 1e6).round() / 1e6)
            .collect()
    })
}

/// Runs the study of `config` (already read as `text`).
pub fn run(args: &super::ExperimentArgs, text: &str) -> CommandResult {
    let mut study = load(text, &args.config)?;
    let out = (args.out_dir.clone()).unwrap_or_else(|| PathBuf::from("results").join(&study.name));
    if args.dry_run {
        print!("{}", report::plan(&study, &out));
        return Ok(0);
    }
    let mut progress: Progress<StudyPoint> = Progress::open(&out, text, args.fresh)?;
    let todo: Vec<(usize, f64)> = (study.points.iter().copied().enumerate())
        .filter(|&(_, u)| !progress.is_done(u))
        .collect();
    if study.real && !todo.is_empty() {
        study.setup.real = Some(real::Real::prepare(study.setup.cores)?);
    }
    // Runs on real cores go one at a time: each uses every core of the study.
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(if study.real {
            1
        } else {
            args.jobs.unwrap_or(0)
        })
        .build()
        .map_err(|e| Failure::environment(format!("cannot start worker threads: {e}")))?;
    let bar = super::sets_bar(todo.len() * study.samples, args.quiet);
    let signals = study.real.then(StopSignals::install);
    for (index, utilization) in todo {
        bar.set_message(format!("U = {utilization}"));
        let point = pool.install(|| run_point(&study, index, utilization, &bar))?;
        progress.record(point)?;
    }
    drop(signals);
    bar.finish_and_clear();
    let results = progress.results_in_order(&study.points);
    report::write(&study, &results, &out, args.json)?;
    Ok(0)
}

fn run_point(
    study: &Study,
    index: usize,
    utilization: f64,
    bar: &ProgressBar,
) -> Result<StudyPoint, Failure> {
    let results: Vec<Result<SetResult, String>> = (0..study.samples)
        .into_par_iter()
        .map(|sample| {
            let mut rng = seeded(super::sample_seed(study.seed, index, sample));
            let config = RtXenConfig {
                domains: study.setup.domains,
                periods: study.periods,
                ..RtXenConfig::new(utilization, study.distribution)
            };
            let result = generate_rtxen(&mut rng, &config)
                .map_err(|e| e.to_string())
                .and_then(|set| set::run(&set, &study.setup));
            bar.inc(1);
            result
        })
        .collect();
    let mut point = StudyPoint::new(utilization, study.samples as u64, study.real);
    for r in results {
        point.add(r.map_err(|e| match signals::received() {
            Some(_) => Failure::environment(e),
            None => Failure::bad_input(format!("U = {utilization}: {e}")),
        })?);
    }
    Ok(point)
}
