//! `kairos analyze`: schedulability tests on one workload file (a verdict table), or on a JSONL
//! batch of task sets (one JSON verdict per line, streaming, in parallel).

use crate::args::{CommandResult, Failure};
use crate::input::{load_for, load_profile};
use kairos_analysis::overheads::Quantile;
use kairos_analysis::registry;
use kairos_lab::analyze::batch::analyse_line;
use kairos_lab::analyze::{analyze_with, OverheadRequest};
use kairos_model::input::{Input, InputKind, LoadOptions};
use rayon::prelude::*;
use std::io::{BufRead, Write};
use std::path::{Path, PathBuf};

/// Lines analysed together between two writes in batch mode: large enough to keep every core
/// busy, small enough that output streams.
const BATCH_CHUNK: usize = 512;

#[derive(clap::Args)]
pub struct AnalyzeArgs {
    /// A workload (.toml, .json, or a SimSo .xml configuration; imprecise tasks get the RMWP
    /// tests) or a VM system (compositional analysis); `kairos check` says which.
    #[arg(required_unless_present = "batch", conflicts_with = "batch")]
    pub file: Option<PathBuf>,
    /// Comma-separated test names, `default` (on one core the exact uniprocessor tests, on more
    /// every global test and first-fit decreasing partitioning) or `all` (see `--list`).
    #[arg(long, default_value = "default")]
    pub tests: String,
    /// Print JSON instead of a table.
    #[arg(long)]
    pub json: bool,
    /// Analyse every task set of a JSONL file (`-` for standard input).
    #[arg(long, value_name = "SETS.jsonl")]
    pub batch: Option<PathBuf>,
    /// Worker threads for --batch (default: all cores).
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Also run every test with the overheads of this file's `[overheads]` table charged (a
    /// profile `kairos bench overheads --out` writes) and show both verdicts; without it, a
    /// workload's own `[overheads]` are charged. The exit code follows the overhead-aware verdict.
    #[arg(long, value_name = "FILE.toml", conflicts_with = "batch")]
    pub overheads: Option<PathBuf>,
    /// Which point of each measured overhead distribution to charge: max (safe), p999 or p99.
    #[arg(long, value_name = "QUANTILE", default_value = "max", value_parser = quantile_arg)]
    pub overhead_quantile: Quantile,
    /// List the test names and exit.
    #[arg(long, exclusive = true)]
    pub list: bool,
}

pub fn run(args: &AnalyzeArgs) -> CommandResult {
    if args.list {
        for test in registry::all() {
            println!("{:<28} {}", test.name, test.summary);
        }
        return Ok(0);
    }
    // Parsed once, before any file is read: an empty or unknown list is refused at once.
    let list = registry::TestList::parse(&args.tests).map_err(Failure::bad_input)?;
    match &args.batch {
        Some(path) => run_batch(path, &list, args.jobs),
        None => run_file(
            args.file.as_ref().expect("clap requires FILE or --batch"),
            &list,
            args,
        ),
    }
}

/// The overheads a VM system's analysis charges: the profile given, if any (a VM file has no
/// `[overheads]` of its own).
fn vm_charging(args: &AnalyzeArgs) -> Result<Option<kairos_lab::vm::Charging>, Failure> {
    let Some(path) = &args.overheads else {
        return Ok(None);
    };
    Ok(Some(kairos_lab::vm::Charging {
        source: "profile",
        overheads: load_profile(path, args.overhead_quantile)?,
        quantile: args.overhead_quantile,
    }))
}

pub(crate) fn quantile_arg(text: &str) -> Result<Quantile, String> {
    Quantile::parse(text)
}

/// The kinds `kairos analyze` takes.
const TAKES: [InputKind; 3] = [InputKind::Workload, InputKind::SimsoXml, InputKind::Vm];

fn run_file(path: &Path, list: &registry::TestList, args: &AnalyzeArgs) -> CommandResult {
    let workload = match load_for(path, "analyze", &TAKES, &LoadOptions::default())?.input {
        Input::Vm(system) => {
            let charging = vm_charging(args)?;
            return crate::commands::vm::analyze(&system, args.json, charging.as_ref());
        }
        Input::Workload(workload) => workload,
        _ => unreachable!("analyze takes workloads and VM systems"),
    };
    if args.overheads.is_none() {
        crate::input::refuse_own_lacking(path, args.overhead_quantile)?;
    }
    let request = OverheadRequest {
        profile: (args.overheads.as_deref())
            .map(|p| load_profile(p, args.overhead_quantile))
            .transpose()?,
        quantile: args.overhead_quantile,
    };
    let spinner = crate::progress::spinner(&format!("analyzing {}", path.display()), args.json);
    let analysis = analyze_with(&path.display().to_string(), &workload, list, &request);
    drop(spinner);
    if args.json {
        crate::args::print_json(&analysis);
    } else {
        print!("{}", kairos_lab::text::analysis(&workload, &analysis));
    }
    Ok(if analysis.verdict() {
        0
    } else {
        crate::exit::NO
    })
}

fn run_batch(path: &Path, list: &registry::TestList, jobs: Option<usize>) -> CommandResult {
    let pool = rayon::ThreadPoolBuilder::new()
        .num_threads(jobs.unwrap_or(0))
        .build()
        .map_err(|e| Failure::environment(format!("cannot start worker threads: {e}")))?;
    let reader: Box<dyn BufRead> = if path.as_os_str() == "-" {
        Box::new(std::io::stdin().lock())
    } else {
        let file = std::fs::File::open(path)
            .map_err(|e| Failure::bad_input(format!("cannot read {}: {e}", path.display())))?;
        Box::new(std::io::BufReader::new(file))
    };
    let stdout = std::io::stdout();
    let mut out = std::io::BufWriter::new(stdout.lock());
    let mut lines = reader
        .lines()
        .enumerate()
        .filter(|(_, l)| l.as_ref().map_or(true, |l| !l.trim().is_empty()));
    loop {
        let chunk: Vec<(usize, std::io::Result<String>)> =
            lines.by_ref().take(BATCH_CHUNK).collect();
        if chunk.is_empty() {
            break;
        }
        let results: Vec<String> = pool.install(|| {
            chunk
                .par_iter()
                .map(|(index, line)| match line {
                    Ok(line) => analyse_line(*index, line, list),
                    Err(e) => {
                        serde_json::json!({"index": index, "error": e.to_string()}).to_string()
                    }
                })
                .collect()
        });
        for line in results {
            writeln!(out, "{line}")
                .map_err(|e| Failure::environment(format!("cannot write: {e}")))?;
        }
        out.flush()
            .map_err(|e| Failure::environment(format!("cannot write: {e}")))?;
    }
    Ok(0)
}
