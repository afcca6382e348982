//! `kairos experiment CONFIG.toml`: an acceptance-ratio sweep. For each utilization point it
//! generates `samples` task sets, applies every method (an analysis test, or a simulation) and
//! records the fraction accepted.
//!
//! A simulation accepts a set only when it covered the whole feasibility interval (the
//! hyper-period for synchronous sets) without a miss: a miss rejects it at any length, and a
//! run the `simulation_cap` cut short without a miss is *inconclusive*, counted apart, because
//! a set can miss first after the cap (a core at U = 1.01 can run for seconds before it does).
//!
//! Reproducible from the config alone: the set of sample `k` at point `p` comes from its own
//! ChaCha8 stream seeded by (seed, p, k), whatever ran before. Resumable: every finished point
//! is appended to `points.jsonl` in the output folder and skipped on the next run with the same
//! config.
//!
//! A config with `study = "rt-xen"` is the RT-Xen VM study instead ([`vm`]), and one with
//! `study = "guarantees"` the study of whether accepted sets hold on real cores
//! ([`guarantees`]), run the same way.
//! Either takes a [`Request`] and gives an [`Outcome`]; what happens meanwhile (progress,
//! notices) goes to the caller's [`Observer`] as [`Event`]s, so the caller decides how to show it.

mod charts;
pub mod config;
mod dask;
pub mod decode;
pub mod guarantees;
mod mc;
mod realtime;
pub mod results;
mod resume;
mod sample;
pub mod shard;
mod sweep;
pub mod vm;

pub use dask::Cluster;

use crate::Failure;
use kairos_model::document;
use kairos_model::input::{self, InputKind};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// What to run: the config and how, as `kairos experiment`'s options say it.
#[derive(Clone, Debug)]
pub struct Request {
    /// The experiment config (TOML): a sweep, an RT-Xen study (`study = "rt-xen"`) or a
    /// guarantees study (`study = "guarantees"`).
    pub config: PathBuf,
    /// The output folder; `None`: `results/<config name>`.
    pub out_dir: Option<PathBuf>,
    /// Worker threads; `None`: all cores.
    pub jobs: Option<usize>,
    /// Discard the results of an earlier run in the output folder instead of resuming.
    pub fresh: bool,
    /// Check the config and give the plan without running it.
    pub dry_run: bool,
    /// Run a sweep's task sets on this Dask cluster; the results are the local run's.
    pub dask: Option<Cluster>,
}

/// What a running experiment tells its caller as it goes. Sets finish on worker threads, so
/// the observer is called from them too.
#[derive(Clone, Copy, Debug)]
pub enum Event<'a> {
    /// A whole line the user should read now: a diagnostic of the config, `resuming: ...`,
    /// `warning: ...`. The command line prints it on standard error.
    Notice(&'a str),
    /// `sets` task sets are left to run: what the progress counts to.
    Start { sets: u64 },
    /// The sets of the point at `utilization` begin.
    Point { utilization: f64 },
    /// `sets` more task sets are done.
    Done { sets: u64 },
}

/// Where an experiment sends its [`Event`]s.
pub type Observer<'a> = &'a (dyn Fn(Event<'_>) + Sync);

/// What an experiment gives.
pub enum Outcome {
    /// The dry run's plan: what would run, and where its results would go (one line).
    Planned(String),
    /// The results of a run.
    Finished(Finished),
}

/// A finished experiment: its summary (what `kairos experiment --json` prints) and the text
/// the command prints otherwise (the table of results, then the files written).
#[derive(Serialize)]
#[serde(transparent)]
pub struct Finished {
    pub summary: Summary,
    #[serde(skip)]
    pub text: String,
}

/// The summary of a sweep or of a study.
#[derive(Serialize)]
#[serde(untagged)]
pub enum Summary {
    Sweep(results::Summary),
    Study(vm::Summary),
    Guarantees(Box<guarantees::Summary>),
}

/// The loader tells the kind: a file of another kind (MC-DAG XML, a workload) is refused as
/// such, not decoded as a config. A file that does not parse is left to the config's decoder,
/// which locates its syntax errors.
fn refuse_other_kinds(path: &Path, text: &str) -> Result<(), Failure> {
    let kind = match input::detect(path, text) {
        Ok(kind) => kind,
        Err(unknown) => {
            let name = path.display().to_string();
            return Err(Failure::bad_input(unknown.render(&name)));
        }
    };
    // A file with no kind's keys is told a workload by default: the decoder says what it lacks.
    let has_tasks = || match document::parse(text, input::format_of(path)) {
        Ok(document::Node {
            value: document::Value::Table(entries),
            ..
        }) => entries.iter().any(|e| e.key == "tasks"),
        _ => false,
    };
    if kind == InputKind::Experiment || (kind == InputKind::Workload && !has_tasks()) {
        return Ok(());
    }
    Err(Failure::bad_input(format!(
        "`kairos experiment` does not take {} ({}): {}",
        kind.describe(),
        path.display(),
        crate::input::taken_by(kind)
    )))
}

/// Runs the experiment `request` names (or plans it, for a dry run).
pub fn run(request: &Request, observe: Observer) -> Result<Outcome, Failure> {
    let text = crate::input::read_text(&request.config)?;
    refuse_other_kinds(&request.config, &text)?;
    if guarantees::is_study(&text) {
        return guarantees::run(request, &text, observe);
    }
    if vm::is_study(&text) {
        return vm::run(request, &text, observe);
    }
    sweep::run(request, &text, observe)
}
