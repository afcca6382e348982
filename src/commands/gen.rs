//! `kairos gen`: generated task sets as a workload file (TOML or JSON) or as a JSONL batch for
//! `kairos analyze --batch`.

use crate::args::{write_output, CommandResult, Failure};
use kairos_lab::generation::{batch_line, task_sets, workload_value, Method, SetRequest};
use kairos_model::Task;
use serde_json::json;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct GenArgs {
    #[arg(long, default_value = "uunifast-discard", value_parser = method_values())]
    pub method: Method,
    /// Total utilization of each set.
    #[arg(long)]
    pub utilization: f64,
    /// Cores written into the output.
    #[arg(long, default_value_t = 4)]
    pub cores: usize,
    /// Tasks per set (uunifast-discard, randfixedsum).
    #[arg(long)]
    pub tasks: Option<usize>,
    /// Per-task utilization distribution (until-cap, rtxen), e.g. uni-medium, bimo-light.
    #[arg(long, default_value = "uni-medium")]
    pub utilizations: String,
    /// Period distribution, e.g. uni-moderate, log-uni-short.
    #[arg(long, default_value = "uni-moderate")]
    pub periods: String,
    /// implicit, uni-constrained or uni-arbitrary.
    #[arg(long, default_value = "implicit")]
    pub deadlines: String,
    #[arg(long, default_value = "1us")]
    pub grid: String,
    #[arg(long, default_value_t = 1.0)]
    pub max_task_utilization: f64,
    /// until-cap: shrink the task that overshoots the target to fit instead of dropping it.
    #[arg(long)]
    pub squeeze: bool,
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Number of sets; more than one are written as JSONL.
    #[arg(long, default_value_t = 1)]
    pub count: usize,
    /// Output file (.toml, .json or .jsonl; with --mcdag .toml, .json or .xml); standard output
    /// if absent.
    #[arg(short = 'o', long, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// With --out: print what was written (file, format, utilizations, the command) as JSON.
    #[arg(long)]
    pub json: bool,
    /// Imprecise tasks (mandatory, optional, wind-up) as Chishiro and Yamasaki's evaluation of
    /// G-RMWP and P-RMWP draws them: U_i in {0.02, ..., 0.1} split into m and w, periods in
    /// {1, ..., 30} ms, optional utilization in [0, 0.3], until --utilization (the total real-time
    /// utilization: the paper's U per core times --cores). Uses --grid, --seed, --count.
    #[arg(long, conflicts_with_all = ["mcdag", "tasks", "method"])]
    pub imprecise: bool,
    #[command(flatten)]
    pub mcdag: McDagArgs,
}

/// `kairos gen --mcdag`: a mixed-criticality DAG system (docs/mcdag-gen.md). `--utilization` is
/// every level's, `--tasks` the tasks per DAG (default 30), `--cores` and `--seed` as above.
#[derive(clap::Args)]
#[command(next_help_heading = "MC-DAG systems (--mcdag)")]
pub struct McDagArgs {
    /// Generate an MC-DAG system (kairos MC file) instead of a task set.
    #[arg(long = "mcdag")]
    pub enabled: bool,
    /// Number of DAGs.
    #[arg(long, default_value_t = 1)]
    pub dags: usize,
    /// Number of criticality levels.
    #[arg(long, default_value_t = 2)]
    pub levels: usize,
    /// Probability of an edge from each earlier-rank vertex.
    #[arg(long, default_value_t = 0.4)]
    pub edge_probability: f64,
    /// Most vertices per rank.
    #[arg(long, default_value_t = 3)]
    pub max_per_rank: usize,
    /// A task's WCET one level down is its WCET divided by this (at least one slot).
    #[arg(long, default_value_t = 2.0)]
    pub reduction: f64,
    /// Share of the tasks of each criticality level, lowest first, e.g. 1,1 (default: equal).
    #[arg(long, value_delimiter = ',')]
    pub level_fractions: Vec<f64>,
    /// Length of one slot (periods and WCETs are whole slots).
    #[arg(long, allow_hyphen_values = true, default_value = "1ms", value_parser = crate::args::duration_arg)]
    pub slot: kairos_model::Duration,
    /// Periods divide this many slots, bounding the hyper-period; 0: any integer period.
    #[arg(long, default_value_t = kairos_gen::mcdag::McDagParams::DEFAULT_HYPERPERIOD_BASE)]
    pub hyperperiod_base: u64,
}

pub fn run(args: &GenArgs) -> CommandResult {
    if args.cores == 0 {
        return Err(Failure::bad_input("--cores must be at least 1"));
    }
    if args.count == 0 {
        return Err(Failure::bad_input("--count must be at least 1"));
    }
    if args.mcdag.enabled {
        return super::gen_mcdag::run(args);
    }
    let sets = task_sets(&args.request())?;
    write_sets(args, &sets)
}

impl GenArgs {
    /// The task sets these flags ask for (`--imprecise` is `--method imprecise`).
    pub fn request(&self) -> SetRequest {
        SetRequest {
            utilization: self.utilization,
            cores: self.cores,
            count: self.count,
            seed: self.seed,
            method: match self.imprecise {
                true => Method::Imprecise,
                false => self.method,
            },
            tasks: self.tasks,
            utilizations: self.utilizations.clone(),
            periods: self.periods.clone(),
            deadlines: self.deadlines.clone(),
            grid: self.grid.clone(),
            max_task_utilization: self.max_task_utilization,
            squeeze: self.squeeze,
        }
    }
}

fn write_sets(args: &GenArgs, sets: &[Vec<Task>]) -> CommandResult {
    let format = output_format(args)?;
    let text = match format {
        SetFormat::Toml => workload_toml(args, &sets[0]),
        SetFormat::Json => {
            serde_json::to_string_pretty(&workload_value(&args.request(), &sets[0])).expect("json")
                + "\n"
        }
        SetFormat::Jsonl => sets
            .iter()
            .map(|s| batch_line(args.cores, s) + "\n")
            .collect(),
    };
    let Some(path) = &args.out else {
        print!("{text}");
        return Ok(0);
    };
    write_output(path, text)?;
    if args.json {
        let utilizations: Vec<f64> = sets
            .iter()
            .map(|s| s.iter().map(Task::utilization).sum())
            .collect();
        let summary = json!({
            "file": path.display().to_string(), "format": format.name(), "sets": sets.len(),
            "cores": args.cores, "seed": args.seed, "utilizations": utilizations,
            "command": command_line(args),
        });
        println!("{}", serde_json::to_string_pretty(&summary).expect("json"));
    } else {
        eprintln!("wrote {} set(s) to {}", args.count, path.display());
    }
    Ok(0)
}

/// How generated task sets are written.
#[derive(Clone, Copy)]
enum SetFormat {
    Toml,
    Json,
    Jsonl,
}

impl SetFormat {
    fn name(self) -> &'static str {
        match self {
            SetFormat::Toml => "toml",
            SetFormat::Json => "json",
            SetFormat::Jsonl => "jsonl",
        }
    }
}

/// The format from `--out`'s extension (standard output: TOML for one set, JSON with `--json`,
/// JSONL for several); several sets only go to a `.jsonl` file.
fn output_format(args: &GenArgs) -> Result<SetFormat, Failure> {
    let extension = args
        .out
        .as_ref()
        .map(|p| p.extension().map(|e| e.to_string_lossy().to_lowercase()));
    let format = match extension {
        None if args.count > 1 => SetFormat::Jsonl,
        None if args.json => SetFormat::Json,
        None => SetFormat::Toml,
        Some(e) => match e.as_deref() {
            Some("toml") => SetFormat::Toml,
            Some("json") => SetFormat::Json,
            Some("jsonl") => SetFormat::Jsonl,
            _ => {
                return Err(Failure::bad_input(format!(
                    "--out {}: write .toml or .json (one set) or .jsonl (a batch)",
                    args.out.as_ref().expect("some").display()
                )))
            }
        },
    };
    if args.count > 1 && !matches!(format, SetFormat::Jsonl) {
        return Err(Failure::bad_input(format!(
            "--count {} writes a JSONL batch (one set per line): name the file .jsonl, not .{}",
            args.count,
            format.name()
        )));
    }
    Ok(format)
}

/// The command that regenerates this output: every generator flag, defaults included.
fn command_line(args: &GenArgs) -> String {
    if args.request().method == Method::Imprecise {
        let count = if args.count > 1 {
            format!(" --count {}", args.count)
        } else {
            String::new()
        };
        return format!(
            "kairos gen --imprecise --utilization {} --cores {} --grid {} --seed {}{count}",
            args.utilization, args.cores, args.grid, args.seed
        );
    }
    let mut line = format!(
        "kairos gen --method {} --utilization {} --cores {}",
        args.method.name(),
        args.utilization,
        args.cores
    );
    if let Some(tasks) = args.tasks {
        line.push_str(&format!(" --tasks {tasks}"));
    }
    line.push_str(&format!(
        " --utilizations {} --periods {} --deadlines {} --grid {} --max-task-utilization {} --seed {}",
        args.utilizations,
        args.periods,
        args.deadlines,
        args.grid,
        args.max_task_utilization,
        args.seed
    ));
    if args.squeeze {
        line.push_str(" --squeeze");
    }
    if args.count > 1 {
        line.push_str(&format!(" --count {}", args.count));
    }
    line
}

/// clap values of `--method`, each with its summary in `--help`.
fn method_values() -> impl clap::builder::TypedValueParser<Value = Method> {
    use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
    let values = Method::ALL.map(|m| PossibleValue::new(m.name()).help(m.summary()));
    PossibleValuesParser::new(values).map(|name| Method::from_name(&name).expect("a listed name"))
}

fn workload_toml(args: &GenArgs, tasks: &[Task]) -> String {
    let header = format!(
        "# {} (total utilization {:.4})\n",
        command_line(args),
        tasks.iter().map(Task::utilization).sum::<f64>()
    );
    header + &toml::to_string(&workload_value(&args.request(), tasks)).expect("toml")
}
