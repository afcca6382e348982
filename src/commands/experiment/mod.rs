//! `kairos experiment CONFIG.toml`: an acceptance-ratio sweep. For each utilization point it
//! generates `samples` task sets, applies every method (an analysis test, or "no deadline miss
//! when simulated for the hyper-period, capped") and records the fraction accepted.
//!
//! Reproducible from the config alone: the set of sample `k` at point `p` comes from its own
//! ChaCha8 stream seeded by (seed, p, k), whatever ran before. Resumable: every finished point
//! is appended to `points.jsonl` in the output folder and skipped on the next run with the same
//! config.

mod config;
mod mc;
pub(crate) mod plot;
mod resume;

use crate::args::{write_output, CommandResult, Failure};
use config::{Config, ConfigFile, Method, Workloads};
use indicatif::{ProgressBar, ProgressStyle};
use kairos_analysis::tasks_of;
use kairos_gen::{make_workload, seeded};
use kairos_sim::policy::fixed_priority::PriorityOrder;
use kairos_sim::{simulate, SimConfig};
use rayon::prelude::*;
use resume::{PointResult, Progress, QualitySum};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct ExperimentArgs {
    /// Experiment config (TOML); see docs/analyze.md.
    pub config: PathBuf,
    /// Output folder (default: results/<config name>).
    #[arg(long)]
    pub out: Option<PathBuf>,
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
}

pub fn run(args: &ExperimentArgs) -> CommandResult {
    let text = std::fs::read_to_string(&args.config)
        .map_err(|e| Failure::bad_input(format!("cannot read {}: {e}", args.config.display())))?;
    let file: ConfigFile = toml::from_str(&text)
        .map_err(|e| Failure::bad_input(format!("{}: {e}", args.config.display())))?;
    let stem = args
        .config
        .file_stem()
        .map_or("experiment".into(), |s| s.to_string_lossy().into_owned());
    let config = file
        .resolve(&stem)
        .map_err(|e| Failure::bad_input(format!("{}: {e}", args.config.display())))?;
    let out = args
        .out
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
    for (index, &utilization) in config.points.iter().enumerate() {
        if progress.is_done(utilization) {
            continue;
        }
        let result = pool.install(|| run_point(&config, index, utilization, &bar))?;
        progress.record(result)?;
    }
    bar.finish_and_clear();
    let results = progress.results_in_order(&config.points);
    let labels: Vec<String> = config.methods.iter().map(Method::label).collect();
    write_output(&out.join("results.csv"), resume::csv(&results, &labels))?;
    let written = plot::write_plots(&out, &config, &results, &labels)?;
    print!("{}", resume::summary_table(&results, &labels));
    println!("wrote {}/results.csv{}", out.display(), written);
    Ok(0)
}

fn progress_bar(config: &Config, progress: &Progress, quiet: bool) -> ProgressBar {
    let remaining = config
        .points
        .iter()
        .filter(|u| !progress.is_done(**u))
        .count()
        * config.samples;
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(remaining as u64);
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
    let outcomes: Vec<Result<Vec<Verdict>, String>> = (0..config.samples)
        .into_par_iter()
        .map(|sample| {
            let verdicts = run_sample(config, index, sample, utilization);
            bar.inc(1);
            verdicts
        })
        .collect();
    let mut accepted = vec![0u64; config.methods.len()];
    let mut quality = vec![QualitySum::default(); config.methods.len()];
    for verdicts in outcomes {
        let verdicts =
            verdicts.map_err(|e| Failure::bad_input(format!("U = {utilization}: {e}")))?;
        for (m, verdict) in verdicts.into_iter().enumerate() {
            accepted[m] += u64::from(verdict.accepted);
            if let Some(q) = verdict.quality {
                quality[m].add(q);
            }
        }
    }
    let is_mc = matches!(config.workloads, Workloads::McDag(_));
    Ok(PointResult {
        utilization,
        samples: config.samples as u64,
        accepted,
        quality: if is_mc { quality } else { Vec::new() },
    })
}

/// One method's answer on one sample.
struct Verdict {
    accepted: bool,
    /// Table quality of an accepted MC-DAG system.
    quality: Option<QualitySum>,
}

impl Verdict {
    fn plain(accepted: bool) -> Verdict {
        Verdict {
            accepted,
            quality: None,
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
            Method::Simulate(kind) => Ok(Verdict::plain(no_miss_in_simulation(
                &workload, *kind, config,
            ))),
            Method::Synth(_) => Err("synthesis methods need an [mcdag] generator".to_string()),
        })
        .collect()
}

fn no_miss_in_simulation(
    workload: &kairos_model::Workload,
    kind: kairos_sim::policy::PolicyKind,
    config: &Config,
) -> bool {
    let duration = workload
        .feasibility_interval()
        .map_or(config.simulation_cap, |d| d.min(config.simulation_cap));
    let mut policy = kind.build(PriorityOrder::RateMonotonic);
    let sim = SimConfig {
        duration,
        ..SimConfig::default()
    };
    simulate(workload, policy.as_mut(), &sim).is_ok_and(|o| o.metrics.deadline_misses == 0)
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
