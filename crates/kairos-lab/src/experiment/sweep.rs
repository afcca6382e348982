//! A sweep run here, point by point, each point's samples in parallel (or on a Dask cluster,
//! [`super::dask`]), every finished point recorded for resumption, then the CSV, the plots and
//! the summary.

use super::config::{Config, Method, Workloads};
use super::results::{self, PointResult, QosSum, QualitySum};
use super::resume::Store;
use super::sample::{run_sample, Outcomes};
use super::{charts, dask, decode, Event, Finished, Observer, Outcome, Request, Summary};
use crate::error::write_output;
use crate::Failure;
use rayon::prelude::*;
use std::path::Path;

/// Runs (or plans) the sweep of `text`, the config `request` names.
pub(super) fn run(request: &Request, text: &str, observe: Observer) -> Result<Outcome, Failure> {
    let config = load(&request.config, text, observe)?;
    let out = (request.out_dir.clone()).unwrap_or_else(|| Path::new("results").join(&config.name));
    if request.dry_run {
        return Ok(Outcome::Planned(plan(&config, &out)));
    }
    let mut store = Store::open(&out, text, request.fresh, observe)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(request.jobs.unwrap_or(0))
        .build()
        .map_err(|e| Failure::environment(format!("cannot start worker threads: {e}")))?;
    let remaining = config.points.iter().filter(|u| !store.is_done(**u)).count();
    observe(Event::Start {
        sets: (remaining * config.samples) as u64,
    });
    match &request.dask {
        Some(cluster) => dask::run(cluster, &request.config, text, &config, &mut store, observe)?,
        None => {
            for (index, &utilization) in config.points.iter().enumerate() {
                if store.is_done(utilization) {
                    continue;
                }
                let result = pool.install(|| run_point(&config, index, utilization, observe))?;
                store.record(result)?;
            }
        }
    }
    let results = store.results_in_order(&config.points);
    let labels: Vec<String> = config.methods.iter().map(Method::label).collect();
    write_output(&out.join("results.csv"), results::csv(&results, &labels))?;
    let written = charts::write_plots(&out, &config, &results, &labels, observe)?;
    let summary = results::Summary::new(&config.name, &results, &labels, &out, &written);
    let text = format!(
        "{}wrote {}/results.csv{}\n",
        results::summary_table(&results, &labels),
        out.display(),
        charts::listed(&written)
    );
    warn_about_cut_intervals(&config, &summary, observe);
    Ok(Outcome::Finished(Finished {
        summary: Summary::Sweep(summary),
        text,
    }))
}

/// The config of `text` (the file `path`), every diagnostic sent to `observe` in the form
/// `FILE:LINE:COL: error: PATH: MESSAGE`; any error fails with exit 2.
fn load(path: &Path, text: &str, observe: Observer) -> Result<Config, Failure> {
    let (config, diagnostics) = decode::check(path, text);
    let name = path.display().to_string();
    for d in diagnostics.iter() {
        observe(Event::Notice(&d.render(&name)));
    }
    config.ok_or_else(|| decode::refusal(path, &diagnostics))
}

/// Tells how many simulated sets the cap left inconclusive.
fn warn_about_cut_intervals(config: &Config, summary: &results::Summary, observe: Observer) {
    let cut = summary.inconclusive_total();
    if cut > 0 {
        observe(Event::Notice(&format!(
            "warning: simulation_cap {} ended {cut} simulation(s) before the feasibility interval \
             with no miss: counted as inconclusive, not accepted (column `inconclusive` of \
             results.csv, dashed in the plot); raise simulation_cap to decide them",
            config.simulation_cap
        )));
    }
}

/// Every sample of one utilization point, in parallel.
fn run_point(
    config: &Config,
    index: usize,
    utilization: f64,
    observe: Observer,
) -> Result<PointResult, Failure> {
    observe(Event::Point { utilization });
    let outcomes: Outcomes = (0..config.samples)
        .into_par_iter()
        .map(|sample| {
            let verdicts = run_sample(config, index, sample, utilization);
            observe(Event::Done { sets: 1 });
            verdicts
        })
        .collect();
    fold_point(config, utilization, outcomes)
}

/// A point's result from every sample's verdicts, in sample order (the sums of floating-point
/// figures then add in one order wherever the samples ran).
pub(super) fn fold_point(
    config: &Config,
    utilization: f64,
    outcomes: Outcomes,
) -> Result<PointResult, Failure> {
    let mut accepted = vec![0u64; config.methods.len()];
    let mut inconclusive = vec![0u64; config.methods.len()];
    let mut quality = vec![QualitySum::default(); config.methods.len()];
    let mut qos = vec![QosSum::default(); config.methods.len()];
    for verdicts in outcomes {
        let verdicts =
            verdicts.map_err(|e| Failure::bad_input(format!("U = {utilization}: {e}")))?;
        for (m, verdict) in verdicts.into_iter().enumerate() {
            accepted[m] += u64::from(verdict.accepted);
            inconclusive[m] += u64::from(verdict.inconclusive);
            if let Some(q) = verdict.quality {
                quality[m].add(q);
            }
            if let Some(q) = verdict.qos {
                qos[m].add(q);
            }
        }
    }
    let is_mc = matches!(config.workloads, Workloads::McDag(_));
    Ok(PointResult {
        utilization,
        samples: config.samples as u64,
        accepted,
        inconclusive,
        quality: if is_mc { quality } else { Vec::new() },
        qos: if qos.iter().any(|q| q.sets > 0) {
            qos
        } else {
            Vec::new()
        },
    })
}

/// The dry run's plan.
fn plan(config: &Config, out: &Path) -> String {
    let labels: Vec<String> = config.methods.iter().map(Method::label).collect();
    format!(
        "{}: {} point(s) from U = {} to {}, {} set(s) each on {} core(s); methods: {}; results in {}\n",
        config.name,
        config.points.len(),
        config.points[0],
        config.points[config.points.len() - 1],
        config.samples,
        config.cores,
        labels.join(", "),
        out.display()
    )
}
