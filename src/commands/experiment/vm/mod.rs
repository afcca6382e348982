//! `kairos experiment` on an RT-Xen study config (`study = "rt-xen"`): the experiments of Xi,
//! Xu, Lu, Lee, Gill, Phan, Lee, Sokolsky, "Real-Time Multi-Core Virtual Machine Scheduling in
//! Xen" (EMSOFT 2014), section VI, on the two-level simulator instead of 60 s of real
//! execution per set: for each utilization, `samples` sets from the paper's generator
//! (bimodal utilizations with a pad task, periods 350 to 850 ms, tasks spread over the
//! domains), each analysed and simulated under every configuration ([`set`]), the results
//! written as CSV and plots ([`report`]). Reproducible from the config (the set of sample `k`
//! at point `p` comes from its own seeded stream) and resumable by point, as every experiment.

mod report;
mod set;

use super::resume::{Point, Progress};
use crate::args::{CommandResult, Failure};
use indicatif::ProgressBar;
use kairos_gen::{generate_rtxen, seeded, RtXenConfig, UtilDist};
use kairos_model::{parse_duration, GuestScheduler};
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use set::{Counts, SetResult, Setup};
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
    /// Simulated time per set and configuration.
    #[serde(default = "default_duration")]
    duration: String,
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
    pub points: Vec<f64>,
    pub setup: Setup,
    pub table_utilization: f64,
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
        points,
        setup: Setup {
            cores: file.cores,
            domains: file.domains,
            vcpu_period,
            quantum,
            duration,
            guest,
            seed: file.seed,
        },
        table_utilization: file.table_utilization,
    })
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

/// Sums over the sets of one point, per configuration.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct StudyPoint {
    pub utilization: f64,
    pub samples: u64,
    /// Per combo ([`set::combos`]).
    pub theory_accepted: Vec<u64>,
    pub practice_accepted: Vec<u64>,
    /// Sets the analysis accepted that missed a deadline in the simulation: a soundness check,
    /// 0 unless the analysis or the simulator is wrong.
    pub accepted_but_missed: Vec<u64>,
    /// Sets simulated per combo (every domain had an interface).
    pub practice_sets: Vec<u64>,
    pub practice: Vec<Sum>,
    /// Per guest (pEDF, gEDF).
    pub bandwidth_sum: Vec<f64>,
    pub bandwidth_sets: Vec<u64>,
    pub credit: Sum,
    /// Per RT VMM ([`set::RT_VMMS`]), deferrable servers.
    pub deferrable: Vec<Sum>,
}

/// Counts of simulations, summed.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Sum {
    pub sets: u64,
    pub released: u64,
    pub misses: u64,
    pub back_to_back: u64,
    pub replenishments: u64,
}

impl Sum {
    fn add(&mut self, c: Counts) {
        self.sets += 1;
        self.released += c.released;
        self.misses += c.misses;
        self.back_to_back += c.back_to_back;
        self.replenishments += c.replenishments;
    }

    pub fn miss_ratio(&self) -> Option<f64> {
        (self.released > 0).then(|| self.misses as f64 / self.released as f64)
    }

    pub fn back_to_back_ratio(&self) -> Option<f64> {
        (self.replenishments > 0).then(|| self.back_to_back as f64 / self.replenishments as f64)
    }
}

impl Point for StudyPoint {
    fn utilization(&self) -> f64 {
        self.utilization
    }
}

impl StudyPoint {
    fn new(utilization: f64, samples: u64) -> StudyPoint {
        let n = set::combos().len();
        StudyPoint {
            utilization,
            samples,
            theory_accepted: vec![0; n],
            practice_accepted: vec![0; n],
            accepted_but_missed: vec![0; n],
            practice_sets: vec![0; n],
            practice: vec![Sum::default(); n],
            bandwidth_sum: vec![0.0; 2],
            bandwidth_sets: vec![0; 2],
            credit: Sum::default(),
            deferrable: vec![Sum::default(); set::RT_VMMS.len()],
        }
    }

    fn add(&mut self, r: SetResult) {
        for (c, accepted) in r.theory.iter().enumerate() {
            self.theory_accepted[c] += u64::from(*accepted);
        }
        for (c, counts) in r.practice.iter().enumerate() {
            let Some(counts) = counts else { continue };
            self.practice_sets[c] += 1;
            self.practice_accepted[c] += u64::from(counts.misses == 0);
            self.accepted_but_missed[c] += u64::from(r.theory[c] && counts.misses > 0);
            self.practice[c].add(*counts);
        }
        for (g, b) in r.bandwidth.iter().enumerate() {
            if let Some(b) = b {
                self.bandwidth_sum[g] += b;
                self.bandwidth_sets[g] += 1;
            }
        }
        if let Some(c) = r.credit {
            self.credit.add(c);
        }
        for (k, c) in r.deferrable.iter().enumerate() {
            if let Some(c) = c {
                self.deferrable[k].add(*c);
            }
        }
    }
}

/// Runs the study of `config` (already read as `text`).
pub fn run(args: &super::ExperimentArgs, text: &str) -> CommandResult {
    let study = load(text, &args.config)?;
    let out = (args.out.clone()).unwrap_or_else(|| PathBuf::from("results").join(&study.name));
    if args.dry_run {
        print!("{}", report::plan(&study, &out));
        return Ok(0);
    }
    let mut progress: Progress<StudyPoint> = Progress::open(&out, text, args.fresh)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0))
        .build()
        .map_err(|e| Failure::environment(format!("cannot start worker threads: {e}")))?;
    let todo: Vec<(usize, f64)> = (study.points.iter().copied().enumerate())
        .filter(|&(_, u)| !progress.is_done(u))
        .collect();
    let bar = super::sets_bar(todo.len() * study.samples, args.quiet);
    for (index, utilization) in todo {
        bar.set_message(format!("U = {utilization}"));
        let point = pool.install(|| run_point(&study, index, utilization, &bar))?;
        progress.record(point)?;
    }
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
            let mut config = RtXenConfig::new(utilization, study.distribution);
            config.domains = study.setup.domains;
            let result = generate_rtxen(&mut rng, &config)
                .map_err(|e| e.to_string())
                .and_then(|set| set::run(&set, &study.setup));
            bar.inc(1);
            result
        })
        .collect();
    let mut point = StudyPoint::new(utilization, study.samples as u64);
    for r in results {
        point.add(r.map_err(|e| Failure::bad_input(format!("U = {utilization}: {e}")))?);
    }
    Ok(point)
}
