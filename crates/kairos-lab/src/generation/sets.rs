//! Generated task sets as the workloads and batch lines kairos writes.

use super::SetRequest;
use crate::Failure;
use kairos_gen::seeded;
use kairos_model::Task;
use serde_json::{json, Value};

/// The sets `request` asks for, drawn from one seeded generator.
pub fn task_sets(request: &SetRequest) -> Result<Vec<Vec<Task>>, Failure> {
    if request.count == 0 {
        return Err(Failure::bad_input("count must be at least 1"));
    }
    if request.utilization.is_nan() || request.utilization <= 0.0 {
        return Err(Failure::bad_input(
            "the utilization must be a positive number",
        ));
    }
    let generator = (request.spec().resolve())
        .map_err(|problems| Failure::bad_input(super::as_flags(&problems)))?;
    let mut rng = seeded(request.seed);
    let mut sets = Vec::new();
    for _ in 0..request.count {
        sets.push(
            generator
                .generate(&mut rng, request.utilization)
                .map_err(Failure::bad_input)?,
        );
    }
    Ok(sets)
}

/// The sets `kairos gen` writes, each as the JSON workload `--out set.json` holds (task sets
/// only: MC-DAG systems have their own writer).
pub fn generated_workloads(request: &SetRequest) -> Result<Vec<Value>, Failure> {
    if request.cores == 0 {
        return Err(Failure::bad_input("cores must be at least 1"));
    }
    Ok(task_sets(request)?
        .iter()
        .map(|set| workload_value(request, set))
        .collect())
}

/// One set as a named workload.
pub fn workload_value(request: &SetRequest, tasks: &[Task]) -> Value {
    json!({
        "name": format!("gen-{}-u{}-seed{}", request.method.name(), request.utilization, request.seed),
        "cores": request.cores,
        "tasks": tasks.iter().map(|t| task_value(t, true)).collect::<Vec<_>>(),
    })
}

/// One set as a line of a batch file (`kairos analyze --batch`).
pub fn batch_line(cores: usize, tasks: &[Task]) -> String {
    json!({"cores": cores, "tasks": tasks.iter().map(|t| task_value(t, false)).collect::<Vec<_>>()})
        .to_string()
}

fn task_value(task: &Task, with_name: bool) -> Value {
    let mut v = serde_json::Map::new();
    if with_name {
        v.insert("name".into(), json!(task.name));
    }
    match &task.imprecise {
        Some(p) => {
            v.insert("mandatory".into(), json!(p.mandatory.to_string()));
            v.insert("optional".into(), json!(p.optional.to_string()));
            v.insert("windup".into(), json!(p.windup.to_string()));
        }
        None => {
            v.insert("wcet".into(), json!(task.wcet.to_string()));
        }
    }
    v.insert("period".into(), json!(task.period.to_string()));
    v.insert("deadline".into(), json!(task.deadline.to_string()));
    Value::Object(v)
}
