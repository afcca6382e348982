//! `kairos experiment` on an RT-Xen study config (`study = "rt-xen"`): the experiments of Xi,
//! Xu, Lu, Lee, Gill, Phan, Lee, Sokolsky, "Real-Time Multi-Core Virtual Machine Scheduling in
//! Xen" (EMSOFT 2014), section VI, on the two-level simulator instead of 60 s of real
//! execution per set: for each utilization, `samples` sets from the paper's generator
//! (bimodal utilizations with a pad task, periods 350 to 850 ms, tasks spread over the
//! domains), each analysed and simulated under every configuration (`set`), the results
//! written as CSV and plots (`report`). Reproducible from the config (the set of sample `k`
//! at point `p` comes from its own seeded stream) and resumable by point, as every experiment.

mod config;
mod figures;
mod plot;
mod point;
mod real;
mod report;
mod set;

pub use config::{check, describe};
pub use point::{RunSums, StudyPoint, Sum};
pub use report::Summary;

use super::resume::Store;
use super::sample::sample_seed;
use super::{Event, Observer, Outcome, Request};
use crate::Failure;
use config::Study;
use kairos_gen::{generate_rtxen, seeded, RtXenConfig};
use kairos_os::signals::{self, StopSignals};
use rayon::prelude::*;
use set::SetResult;
use std::path::{Path, PathBuf};

/// Whether `text` is an RT-Xen study config: its top level has `study`.
pub fn is_study(text: &str) -> bool {
    text.parse::<toml::Table>()
        .is_ok_and(|t| t.contains_key("study"))
}

/// The study of `text` (the file `path`), every diagnostic sent to `observe` located; any
/// error refuses it (exit 2).
fn load(path: &Path, text: &str, observe: Observer) -> Result<Study, Failure> {
    let (study, diagnostics) = check(text);
    let name = path.display().to_string();
    for d in diagnostics.iter() {
        observe(Event::Notice(&d.render(&name)));
    }
    study.ok_or_else(|| super::decode::refusal(path, &diagnostics))
}

/// Runs (or plans) the study of `text`, the config `request` names.
pub(super) fn run(request: &Request, text: &str, observe: Observer) -> Result<Outcome, Failure> {
    let mut study = load(&request.config, text, observe)?;
    let out =
        (request.out_dir.clone()).unwrap_or_else(|| PathBuf::from("results").join(&study.name));
    if request.dry_run {
        return Ok(Outcome::Planned(report::plan(&study, &out)));
    }
    let mut store: Store<StudyPoint> = Store::open(&out, text, request.fresh, observe)?;
    let todo: Vec<(usize, f64)> = (study.points.iter().copied().enumerate())
        .filter(|&(_, u)| !store.is_done(u))
        .collect();
    if study.real && !todo.is_empty() {
        study.setup.real = Some(real::Real::prepare(study.setup.cores)?);
    }
    let pool = super::realtime::study_pool(study.real, request.jobs)?;
    observe(Event::Start {
        sets: (todo.len() * study.samples) as u64,
    });
    let signals = study.real.then(StopSignals::install);
    for (index, utilization) in todo {
        observe(Event::Point { utilization });
        let point = pool.install(|| run_point(&study, index, utilization, observe))?;
        store.record(point)?;
    }
    drop(signals);
    let results = store.results_in_order(&study.points);
    Ok(Outcome::Finished(report::write(
        &study, results, &out, observe,
    )?))
}

fn run_point(
    study: &Study,
    index: usize,
    utilization: f64,
    observe: Observer,
) -> Result<StudyPoint, Failure> {
    let results: Vec<Result<SetResult, String>> = (0..study.samples)
        .into_par_iter()
        .map(|sample| {
            let mut rng = seeded(sample_seed(study.seed, index, sample));
            let config = RtXenConfig {
                domains: study.setup.domains,
                periods: study.periods,
                ..RtXenConfig::new(utilization, study.distribution)
            };
            let result = generate_rtxen(&mut rng, &config)
                .map_err(|e| e.to_string())
                .and_then(|set| set::run(&set, &study.setup));
            observe(Event::Done { sets: 1 });
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
