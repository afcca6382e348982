//! Batches of task sets (`kairos analyze --batch`, the JSONL `kairos gen --count` writes): each
//! line a set, each answered by one line of verdicts or of the error that stopped it.

use kairos_analysis::registry::TestList;
use kairos_analysis::SporadicTask;
use kairos_model::parse_duration;
use serde::Deserialize;

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
    let tasks = (set.tasks.iter().enumerate())
        .map(|(i, t)| task(i, t))
        .collect::<Result<Vec<_>, String>>()?;
    Ok((tasks, set.cores))
}

fn task(i: usize, t: &BatchTask) -> Result<SporadicTask, String> {
    let field = |name: &str, text: &str| {
        parse_duration(text)
            .map_err(|e| format!("tasks[{i}].{name}: {e}"))
            .and_then(|d| match d.is_zero() {
                true => Err(format!("tasks[{i}].{name}: must be greater than zero")),
                false => Ok(d),
            })
    };
    let period = field("period", &t.period)?;
    let deadline = match &t.deadline {
        Some(d) => field("deadline", d)?,
        None => period,
    };
    match (&t.wcet, &t.mandatory, &t.windup) {
        (Some(wcet), None, None) => Ok(SporadicTask::new(field("wcet", wcet)?, deadline, period)),
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
}

/// The answer line for line `index` of a batch: each applicable test's verdict, or the error.
pub fn analyse_line(index: usize, line: &str, list: &TestList) -> String {
    match parse_set(line) {
        Ok((tasks, cores)) => {
            let selection = list.for_cores(cores);
            let verdicts: serde_json::Map<String, serde_json::Value> = (selection.run.iter())
                .map(|t| {
                    let verdict = t.run(&tasks, cores).schedulable;
                    (t.name.clone(), serde_json::Value::Bool(verdict))
                })
                .collect();
            serde_json::json!({"index": index, "verdicts": verdicts}).to_string()
        }
        Err(error) => serde_json::json!({"index": index, "error": error}).to_string(),
    }
}
