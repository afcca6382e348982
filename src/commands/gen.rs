//! `kairos gen`: generated task sets as a workload file (TOML or JSON) or as a JSONL batch for
//! `kairos analyze --batch`.

use crate::args::{write_output, CommandResult, Failure};
use crate::generation::{GeneratorSpec, Method};
use kairos_gen::seeded;
use kairos_model::Task;
use serde_json::{json, Value};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct GenArgs {
    #[arg(long, value_enum, default_value = "uunifast-discard")]
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
    #[arg(long, default_value_t = 0)]
    pub seed: u64,
    /// Number of sets; more than one are written as JSONL.
    #[arg(long, default_value_t = 1)]
    pub count: usize,
    /// Output file (.toml, .json or .jsonl); standard output if absent.
    #[arg(long)]
    pub out: Option<PathBuf>,
}

pub fn run(args: &GenArgs) -> CommandResult {
    if args.cores == 0 {
        return Err(Failure::bad_input("--cores must be at least 1"));
    }
    let spec = GeneratorSpec {
        method: args.method,
        tasks: args.tasks,
        utilizations: args.utilizations.clone(),
        periods: args.periods.clone(),
        deadlines: args.deadlines.clone(),
        grid: args.grid.clone(),
        max_task_utilization: args.max_task_utilization,
        squeeze: false,
    };
    let generator = spec.resolve().map_err(Failure::bad_input)?;
    let mut rng = seeded(args.seed);
    let mut sets = Vec::with_capacity(args.count);
    for _ in 0..args.count {
        sets.push(
            generator
                .generate(&mut rng, args.utilization)
                .map_err(Failure::bad_input)?,
        );
    }
    let extension = args
        .out
        .as_ref()
        .and_then(|p| p.extension())
        .map(|e| e.to_string_lossy().to_lowercase());
    let text = match (args.count, extension.as_deref()) {
        (1, Some("toml")) | (1, None) => workload_toml(args, &sets[0]),
        (1, Some("json")) => {
            serde_json::to_string_pretty(&workload_value(args, &sets[0])).expect("json") + "\n"
        }
        _ => sets
            .iter()
            .map(|s| batch_line(args.cores, s) + "\n")
            .collect(),
    };
    match &args.out {
        Some(path) => {
            write_output(path, text)?;
            eprintln!("wrote {} set(s) to {}", args.count, path.display());
        }
        None => print!("{text}"),
    }
    Ok(0)
}

fn task_value(task: &Task, with_name: bool) -> Value {
    let mut v = serde_json::Map::new();
    if with_name {
        v.insert("name".into(), json!(task.name));
    }
    v.insert("wcet".into(), json!(task.wcet.to_string()));
    v.insert("period".into(), json!(task.period.to_string()));
    v.insert("deadline".into(), json!(task.deadline.to_string()));
    Value::Object(v)
}

fn method_name(method: Method) -> String {
    use clap::ValueEnum;
    method
        .to_possible_value()
        .map_or_else(String::new, |v| v.get_name().to_string())
}

fn workload_value(args: &GenArgs, tasks: &[Task]) -> Value {
    json!({
        "name": format!("gen-{}-u{}-seed{}", method_name(args.method), args.utilization, args.seed),
        "cores": args.cores,
        "tasks": tasks.iter().map(|t| task_value(t, true)).collect::<Vec<_>>(),
    })
}

fn workload_toml(args: &GenArgs, tasks: &[Task]) -> String {
    let header = format!(
        "# kairos gen --method {} --utilization {} --seed {} (total utilization {:.4})\n",
        method_name(args.method),
        args.utilization,
        args.seed,
        tasks.iter().map(Task::utilization).sum::<f64>()
    );
    header + &toml::to_string(&workload_value(args, tasks)).expect("toml")
}

fn batch_line(cores: usize, tasks: &[Task]) -> String {
    json!({"cores": cores, "tasks": tasks.iter().map(|t| task_value(t, false)).collect::<Vec<_>>()})
        .to_string()
}
