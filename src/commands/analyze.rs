//! `kairos analyze`: schedulability tests on one workload file (a verdict table), or on a JSONL
//! batch of task sets (one JSON verdict per line, streaming, in parallel).

use crate::args::{CommandResult, Failure};
use crate::input::load_for;
use kairos_analysis::registry;
use kairos_analysis::{tasks_of, SporadicTask, Verdict};
use kairos_model::input::{Input, InputKind, LoadOptions};
use kairos_model::parse_duration;
use rayon::prelude::*;
use serde::Deserialize;
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
            args.json,
        ),
    }
}

/// The kinds `kairos analyze` takes.
const TAKES: [InputKind; 3] = [InputKind::Workload, InputKind::SimsoXml, InputKind::Vm];

fn run_file(path: &Path, list: &registry::TestList, json: bool) -> CommandResult {
    let workload = match load_for(path, "analyze", &TAKES, &LoadOptions::default())?.input {
        Input::Vm(system) => return crate::commands::vm::analyze(&system, json),
        Input::Workload(workload) => workload,
        _ => unreachable!("analyze takes workloads and VM systems"),
    };
    let selection = list.for_workload(workload.cores, workload.has_imprecise_tasks());
    let verdicts = verdicts(&workload, &selection);
    // The answer is "yes" when at least one test shows the workload schedulable (each test under
    // its own policy); sufficient tests saying "no" only fail to show it.
    let shown = verdicts.iter().any(|(_, v)| v.schedulable);
    if json {
        let report = json_report(path, &workload, &verdicts, &selection.skipped, shown);
        println!("{}", serde_json::to_string_pretty(&report).expect("json"));
    } else {
        print!("{}", verdict_table(&workload, &verdicts));
        print!("{}", skipped_lines(&selection.skipped));
        println!("{}", overall_line(&verdicts, shown));
    }
    Ok(if shown { 0 } else { crate::exit::NO })
}

/// Every selected test's verdict. Fixed-priority tests follow the file's priorities when every
/// task has one (as `simulate --priorities auto` does), rate-monotonic order otherwise.
fn verdicts(
    workload: &kairos_model::Workload,
    selection: &registry::Selection,
) -> Vec<(&'static str, Verdict)> {
    let tasks = tasks_of(workload);
    let priority_order = workload
        .tasks
        .iter()
        .all(|t| t.priority.is_some())
        .then(|| {
            let priorities: Vec<_> = workload.tasks.iter().map(|t| t.priority).collect();
            kairos_analysis::uniprocessor::explicit_order(&priorities)
        });
    selection
        .run
        .iter()
        .map(|t| {
            (
                t.name.as_str(),
                t.run_with_priorities(&tasks, workload.cores, priority_order.as_deref()),
            )
        })
        .collect()
}

/// `kairos analyze --json` of `workload` with the default tests, for other reports.
pub(crate) fn default_report(path: &Path, workload: &kairos_model::Workload) -> serde_json::Value {
    let list = registry::TestList::parse("default").expect("the default list parses");
    let selection = list.for_workload(workload.cores, workload.has_imprecise_tasks());
    let verdicts = verdicts(workload, &selection);
    let shown = verdicts.iter().any(|(_, v)| v.schedulable);
    json_report(path, workload, &verdicts, &selection.skipped, shown)
}

fn overall_line(verdicts: &[(&str, Verdict)], shown: bool) -> String {
    let yes: Vec<&str> = verdicts
        .iter()
        .filter(|(_, v)| v.schedulable)
        .map(|(name, _)| *name)
        .collect();
    match shown {
        true => format!("verdict: schedulable (shown by {})", yes.join(", ")),
        false => "verdict: not shown schedulable by any test run".to_string(),
    }
}

fn skipped_lines(skipped: &[(&registry::Test, &str)]) -> String {
    let mut reasons: Vec<(&str, Vec<&str>)> = Vec::new();
    for (test, reason) in skipped {
        match reasons.iter_mut().find(|(r, _)| r == reason) {
            Some((_, names)) => names.push(&test.name),
            None => reasons.push((reason, vec![&test.name])),
        }
    }
    reasons
        .iter()
        .map(|(reason, names)| format!("skipped {}: {reason}\n", names.join(", ")))
        .collect()
}

/// The `--json` report: the input, the overall verdict, each test's verdict (failing task by
/// index and by name) and the tests left out.
fn json_report(
    path: &Path,
    workload: &kairos_model::Workload,
    verdicts: &[(&str, Verdict)],
    skipped: &[(&registry::Test, &str)],
    shown: bool,
) -> serde_json::Value {
    let tests: serde_json::Map<String, serde_json::Value> = verdicts
        .iter()
        .map(|(name, v)| {
            let mut value = serde_json::to_value(v).expect("verdict serializes");
            if let Some(i) = v.failing_task {
                value["failing_task_name"] = workload.tasks[i].name.clone().into();
            }
            (name.to_string(), value)
        })
        .collect();
    let skipped: Vec<_> = skipped
        .iter()
        .map(|(t, reason)| serde_json::json!({"test": t.name, "reason": reason}))
        .collect();
    serde_json::json!({
        "file": path.display().to_string(),
        "workload": workload.name,
        "cores": workload.cores,
        "tasks": workload.tasks.iter().map(|t| t.name.as_str()).collect::<Vec<_>>(),
        "schedulable": shown,
        "shown_by": verdicts.iter().filter(|(_, v)| v.schedulable).map(|(n, _)| *n).collect::<Vec<_>>(),
        "tests": tests,
        "skipped": skipped,
    })
}

/// One row per test: the verdict and its evidence (response times, the failing task, or the
/// mapping of tasks to cores).
fn verdict_table(workload: &kairos_model::Workload, verdicts: &[(&str, Verdict)]) -> String {
    let names: Vec<&str> = workload.tasks.iter().map(|t| t.name.as_str()).collect();
    let imprecise: Vec<bool> = workload
        .tasks
        .iter()
        .map(|t| t.imprecise.is_some())
        .collect();
    let mut out = format!(
        "{} on {} core(s), utilization {:.3}\n{:<24} {:<12} details\n",
        workload.name.as_deref().unwrap_or("workload"),
        workload.cores,
        workload.total_utilization(),
        "test",
        "verdict"
    );
    for (test, v) in verdicts {
        let verdict = if v.schedulable { "schedulable" } else { "no" };
        out.push_str(&format!(
            "{test:<24} {verdict:<12} {}{}\n",
            details(v, &names),
            optional_deadlines(v, &names, &imprecise)
        ));
    }
    out
}

fn details(v: &Verdict, names: &[&str]) -> String {
    if let Some(mapping) = &v.mapping {
        return mapping
            .iter()
            .zip(names)
            .map(|(core, n)| format!("{n}->{core}"))
            .collect::<Vec<_>>()
            .join(" ");
    }
    if let Some(r) = &v.response_times {
        return r
            .iter()
            .zip(names)
            .map(|(r, n)| format!("{n}:{}", crate::report::human_ns(r.as_nanos())))
            .collect::<Vec<_>>()
            .join(" ");
    }
    match v.failing_task {
        Some(i) => format!("fails at task {}", names.get(i).copied().unwrap_or("?")),
        None => String::new(),
    }
}

/// The RMWP tests' optional deadlines of the imprecise tasks: `; OD slam:7.000ms ...`.
fn optional_deadlines(v: &Verdict, names: &[&str], imprecise: &[bool]) -> String {
    let Some(od) = &v.optional_deadlines else {
        return String::new();
    };
    let listed: Vec<String> = (od.iter().zip(names).zip(imprecise))
        .filter(|(_, &is)| is)
        .map(|((od, n), _)| format!("{n}:{}", crate::report::human_ns(od.as_nanos())))
        .collect();
    match listed.is_empty() {
        true => String::new(),
        false => format!("; OD {}", listed.join(" ")),
    }
}

/// A line of a batch file.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchSet {
    cores: usize,
    tasks: Vec<BatchTask>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct BatchTask {
    /// Or, for an imprecise task, `mandatory` and `windup` (`optional` is accepted: the
    /// analyses do not depend on it).
    wcet: Option<String>,
    mandatory: Option<String>,
    #[serde(default)]
    #[allow(dead_code)]
    optional: Option<String>,
    windup: Option<String>,
    period: String,
    deadline: Option<String>,
    #[serde(default)]
    #[allow(dead_code)] // accepted so generated files with names can be analysed as they are
    name: Option<String>,
}

fn parse_set(line: &str) -> Result<(Vec<SporadicTask>, usize), String> {
    let set: BatchSet = serde_json::from_str(line).map_err(|e| e.to_string())?;
    if set.cores == 0 {
        return Err("cores must be at least 1".into());
    }
    let tasks = set
        .tasks
        .iter()
        .enumerate()
        .map(|(i, t)| {
            let field = |name: &str, text: &str| {
                parse_duration(text)
                    .map_err(|e| format!("tasks[{i}].{name}: {e}"))
                    .and_then(|d| {
                        if d.is_zero() {
                            Err(format!("tasks[{i}].{name}: must be greater than zero"))
                        } else {
                            Ok(d)
                        }
                    })
            };
            let period = field("period", &t.period)?;
            let deadline = match &t.deadline {
                Some(d) => field("deadline", d)?,
                None => period,
            };
            match (&t.wcet, &t.mandatory, &t.windup) {
                (Some(wcet), None, None) => {
                    Ok(SporadicTask::new(field("wcet", wcet)?, deadline, period))
                }
                (None, Some(m), Some(w)) => Ok(SporadicTask::imprecise(
                    field("mandatory", m)?,
                    field("windup", w)?,
                    deadline,
                    period,
                )),
                _ => Err(format!(
                    "tasks[{i}]: give either wcet or mandatory and windup"
                )),
            }
        })
        .collect::<Result<Vec<_>, String>>()?;
    Ok((tasks, set.cores))
}

fn analyse_line(index: usize, line: &str, list: &registry::TestList) -> String {
    match parse_set(line) {
        Ok((tasks, cores)) => {
            let selection = list.for_cores(cores);
            let verdicts: serde_json::Map<String, serde_json::Value> = selection
                .run
                .iter()
                .map(|t| {
                    (
                        t.name.clone(),
                        serde_json::Value::Bool(t.run(&tasks, cores).schedulable),
                    )
                })
                .collect();
            serde_json::json!({"index": index, "verdicts": verdicts}).to_string()
        }
        Err(error) => serde_json::json!({"index": index, "error": error}).to_string(),
    }
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
