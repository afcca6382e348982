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

mod config;
mod dask;
pub(crate) mod decode;
mod mc;
pub(crate) mod plot;
mod resume;
pub mod shard;
pub(crate) mod vm;

use crate::args::{write_output, CommandResult, Failure};
use config::{Config, Method, Workloads};
use indicatif::{ProgressBar, ProgressStyle};
use kairos_analysis::tasks_of;
use kairos_gen::{make_workload, seeded};
use kairos_policy::PriorityOrder;
use kairos_sim::{simulate, SimConfig, SimError};
use rayon::prelude::*;
use resume::{PointResult, Progress, QosSum, QualitySum};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct ExperimentArgs {
    /// Experiment config (TOML); see docs/analyze.md.
    pub config: PathBuf,
    /// Output folder (default: results/<config name>).
    #[arg(long = "out-dir", alias = "out", value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Worker threads (default: all cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Discard results of an earlier run in the output folder instead of resuming.
    #[arg(long)]
    pub fresh: bool,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
    /// Check the config and print the plan without running it.
    #[arg(long)]
    pub dry_run: bool,
    /// Print the summary (ratios per point and method, files written) as JSON.
    #[arg(long)]
    pub json: bool,
    /// Run the task sets on a Dask cluster: the scheduler's address (tcp://host:8786). The
    /// results are the local run's, byte for byte.
    #[arg(long, value_name = "ADDRESS")]
    pub dask: Option<String>,
    /// The Python with the kairos package and Dask's `distributed` that drives the cluster
    /// (default: $KAIROS_PYTHON, else python3).
    #[arg(long, requires = "dask")]
    pub python: Option<PathBuf>,
}

pub fn run(args: &ExperimentArgs) -> CommandResult {
    let text = std::fs::read_to_string(&args.config)
        .map_err(|e| Failure::bad_input(format!("cannot read {}: {e}", args.config.display())))?;
    if vm::is_study(&text) {
        return vm::run(args, &text);
    }
    let config = decode::load(&args.config, &text)?;
    let out = args
        .out_dir
        .clone()
        .unwrap_or_else(|| Path::new("results").join(&config.name));
    if args.dry_run {
        print!("{}", plan(&config, &out));
        return Ok(0);
    }
    let mut progress = Progress::open(&out, &text, args.fresh)?;
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(args.jobs.unwrap_or(0))
        .build()
        .map_err(|e| Failure::environment(format!("cannot start worker threads: {e}")))?;
    let bar = progress_bar(&config, &progress, args.quiet);
    match &args.dask {
        Some(address) => dask::run(
            &dask::Cluster::new(address, args.python.clone()),
            &args.config,
            &text,
            &config,
            &mut progress,
            &bar,
        )?,
        None => {
            for (index, &utilization) in config.points.iter().enumerate() {
                if progress.is_done(utilization) {
                    continue;
                }
                let result = pool.install(|| run_point(&config, index, utilization, &bar))?;
                progress.record(result)?;
            }
        }
    }
    bar.finish_and_clear();
    let results = progress.results_in_order(&config.points);
    let labels: Vec<String> = config.methods.iter().map(Method::label).collect();
    write_output(&out.join("results.csv"), resume::csv(&results, &labels))?;
    let written = plot::write_plots(&out, &config, &results, &labels)?;
    let summary = resume::Summary::new(&config.name, &results, &labels, &out, &written);
    if args.json {
        println!(
            "{}",
            serde_json::to_string_pretty(&summary).expect("summary serializes")
        );
    } else {
        print!("{}", resume::summary_table(&results, &labels));
        println!(
            "wrote {}/results.csv{}",
            out.display(),
            plot::listed(&written)
        );
    }
    warn_about_cut_intervals(&config, &summary);
    Ok(0)
}

/// Says on standard error how many simulated sets the cap left inconclusive.
fn warn_about_cut_intervals(config: &Config, summary: &resume::Summary) {
    let cut = summary.inconclusive_total();
    if cut > 0 {
        eprintln!(
            "warning: simulation_cap {} ended {cut} simulation(s) before the feasibility interval \
             with no miss: counted as inconclusive, not accepted (column `inconclusive` of \
             results.csv, dashed in the plot); raise simulation_cap to decide them",
            config.simulation_cap
        );
    }
}

fn progress_bar(config: &Config, progress: &Progress, quiet: bool) -> ProgressBar {
    let remaining = config
        .points
        .iter()
        .filter(|u| !progress.is_done(**u))
        .count()
        * config.samples;
    sets_bar(remaining, quiet)
}

/// A progress bar over `sets` task sets (hidden with `--quiet`).
fn sets_bar(sets: usize, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(sets as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{spinner} [{elapsed_precise}] {bar:40} {pos}/{len} sets, ETA {eta} {msg}",
        )
        .expect("valid template"),
    );
    bar
}

/// Every sample of one utilization point, in parallel.
fn run_point(
    config: &Config,
    index: usize,
    utilization: f64,
    bar: &ProgressBar,
) -> Result<PointResult, Failure> {
    bar.set_message(format!("U = {utilization}"));
    let outcomes: Outcomes = (0..config.samples)
        .into_par_iter()
        .map(|sample| {
            let verdicts = run_sample(config, index, sample, utilization);
            bar.inc(1);
            verdicts
        })
        .collect();
    fold_point(config, utilization, outcomes)
}

/// A point's result from every sample's verdicts, in sample order (the sums of floating-point
/// figures then add in one order wherever the samples ran).
fn fold_point(
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

/// Every sample's verdicts (one per method), or why the sample could not be run.
type Outcomes = Vec<Result<Vec<Verdict>, String>>;

/// One method's answer on one sample.
#[derive(serde::Serialize, serde::Deserialize)]
struct Verdict {
    accepted: bool,
    /// A simulation cut short by the cap with no miss: neither accepted nor rejected.
    inconclusive: bool,
    /// Table quality of an accepted MC-DAG system.
    quality: Option<QualitySum>,
    /// A simulation's QoS of imprecise tasks run by parts (optional time executed / requested).
    qos: Option<f64>,
}

impl Verdict {
    fn plain(accepted: bool) -> Verdict {
        Verdict {
            accepted,
            inconclusive: false,
            quality: None,
            qos: None,
        }
    }
}

/// The verdict of every method on sample `sample` of point `index`.
fn run_sample(
    config: &Config,
    index: usize,
    sample: usize,
    utilization: f64,
) -> Result<Vec<Verdict>, String> {
    let seed = sample_seed(config.seed, index, sample);
    let generator = match &config.workloads {
        Workloads::Periodic(generator) => generator,
        Workloads::McDag(params) => return mc::run_sample(config, params, seed, utilization),
    };
    let mut rng = seeded(seed);
    let tasks = generator.generate(&mut rng, utilization)?;
    let workload = make_workload(None, config.cores, tasks);
    let analysis_tasks = tasks_of(&workload);
    config
        .methods
        .iter()
        .map(|method| match method {
            Method::Test(test) => Ok(Verdict::plain(
                test.run(&analysis_tasks, config.cores).schedulable,
            )),
            Method::Simulate(kind) => simulated(&workload, *kind, config.simulation_cap),
            Method::Synth(_) => Err("synthesis methods need an [mcdag] generator".to_string()),
        })
        .collect()
}

/// The simulation verdict: accepted only if the run covered the feasibility interval with no
/// miss, rejected on any miss, inconclusive when the cap (or an interval too long to name)
/// ended a run with no miss. G-RMWP, P-RMWP and P-RM run the set as analysed for them
/// (optional deadlines, partition); a set a partitioned policy cannot partition is rejected.
/// An impossible decision (a policy bug) stops the experiment rather than count as a miss.
fn simulated(
    workload: &kairos_model::Workload,
    kind: kairos_policy::PolicyKind,
    cap: kairos_model::Duration,
) -> Result<Verdict, String> {
    let Ok((workload, _notices)) = crate::imprecise::planned(kind, workload) else {
        return Ok(Verdict::plain(false));
    };
    let interval = workload.feasibility_interval();
    let complete = interval.is_some_and(|d| d <= cap);
    let mut policy = kind.build(PriorityOrder::RateMonotonic);
    let sim = SimConfig {
        duration: interval.map_or(cap, |d| d.min(cap)),
        ..SimConfig::default()
    };
    let metrics = match simulate(&workload, policy.as_mut(), &sim) {
        Ok(outcome) => outcome.metrics,
        Err(SimError::Unsupported { .. }) => return Ok(Verdict::plain(false)),
        Err(bug) => return Err(format!("{} (please report it)", bug)),
    };
    let no_miss = metrics.deadline_misses == 0;
    Ok(Verdict {
        accepted: no_miss && complete,
        inconclusive: no_miss && !complete,
        quality: None,
        qos: metrics.optional_qos,
    })
}

/// SplitMix64 of (seed, point, sample): independent streams per sample, so results do not
/// depend on the order in which samples run or on resumption.
fn sample_seed(seed: u64, point: usize, sample: usize) -> u64 {
    let mut z = seed
        ^ (point as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (sample as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// What `--dry-run` prints.
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

#[cfg(test)]
mod tests;
