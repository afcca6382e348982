//! The RT-Xen study's config file (`study = "rt-xen"`): every key but `study` and
//! `distribution` defaults to the value of Xi et al.'s evaluation (EMSOFT 2014, section VI),
//! resolved into the [`Study`] the run follows.

use super::set::Setup;
use crate::Failure;
use kairos_gen::{PeriodDist, RtXenConfig, UtilDist};
use kairos_model::{parse_duration, Duration, GuestScheduler};
use serde::Deserialize;
use std::path::Path;

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

/// The study of `text`, the config file `path`.
pub(super) fn load(text: &str, path: &Path) -> Result<Study, Failure> {
    let bad = |what: String| Failure::bad_input(format!("{}: {what}", path.display()));
    let file: StudyFile = toml::from_str(text).map_err(|e| bad(e.to_string()))?;
    if file.study != "rt-xen" {
        return Err(bad(format!(
            "study = {:?}: the studies are \"rt-xen\" and \"guarantees\"",
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
