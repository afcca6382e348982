//! Writing a system back as kairos TOML or JSON (what `kairos import mcdag` and `gen --mcdag`
//! produce); reading the output gives the same system.

use super::*;

/// The system as a kairos TOML file that [`check_mc_source`] reads back to the same system.
/// The deadline is written only when it differs from the period; duplicate-free edges as they
/// are.
pub fn to_toml(system: &McSystem) -> String {
    let mut out = String::new();
    if let Some(name) = &system.name {
        out.push_str(&format!("name = {}\n", toml_string(name)));
    }
    out.push_str(&format!("cores = {}\n", system.cores));
    let levels: Vec<String> = system.levels.iter().map(|l| toml_string(l)).collect();
    out.push_str(&format!("levels = [{}]\n", levels.join(", ")));
    for dag in &system.dags {
        out.push_str("\n[[dags]]\n");
        out.push_str(&format!("name = {}\n", toml_string(&dag.name)));
        out.push_str(&format!("period = \"{}\"\n", dag.period));
        if dag.deadline != dag.period {
            out.push_str(&format!("deadline = \"{}\"\n", dag.deadline));
        }
        if !dag.edges.is_empty() {
            out.push_str("edges = [\n");
            for &(from, to) in &dag.edges {
                out.push_str(&format!(
                    "    [{}, {}],\n",
                    toml_string(&dag.tasks[from].name),
                    toml_string(&dag.tasks[to].name)
                ));
            }
            out.push_str("]\n");
        }
        for task in &dag.tasks {
            out.push_str("\n[[dags.tasks]]\n");
            out.push_str(&format!("name = {}\n", toml_string(&task.name)));
            let wcet: Vec<String> = task.wcet.iter().map(|w| format!("\"{w}\"")).collect();
            out.push_str(&format!("wcet = [{}]\n", wcet.join(", ")));
        }
    }
    out
}

/// The system as a kairos JSON file that [`check_mc_source`] reads back to the same system.
pub fn to_json(system: &McSystem) -> String {
    use serde_json::{json, Map, Value as J};
    let mut root = Map::new();
    if let Some(name) = &system.name {
        root.insert("name".into(), J::String(name.clone()));
    }
    root.insert("cores".into(), json!(system.cores));
    root.insert("levels".into(), json!(system.levels));
    let dags: Vec<J> = system
        .dags
        .iter()
        .map(|dag| {
            let mut d = Map::new();
            d.insert("name".into(), J::String(dag.name.clone()));
            d.insert("period".into(), J::String(dag.period.to_string()));
            if dag.deadline != dag.period {
                d.insert("deadline".into(), J::String(dag.deadline.to_string()));
            }
            if !dag.edges.is_empty() {
                let edges: Vec<J> = dag
                    .edges
                    .iter()
                    .map(|&(f, t)| json!([dag.tasks[f].name, dag.tasks[t].name]))
                    .collect();
                d.insert("edges".into(), J::Array(edges));
            }
            let tasks: Vec<J> = dag
                .tasks
                .iter()
                .map(|t| {
                    let wcet: Vec<String> = t.wcet.iter().map(Duration::to_string).collect();
                    json!({"name": t.name, "wcet": wcet})
                })
                .collect();
            d.insert("tasks".into(), J::Array(tasks));
            J::Object(d)
        })
        .collect();
    root.insert("dags".into(), J::Array(dags));
    let mut text = serde_json::to_string_pretty(&J::Object(root)).expect("JSON values serialize");
    text.push('\n');
    text
}

/// A TOML basic string, escaped as the TOML specification requires.
pub(crate) fn toml_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn toml_strings_escape() {
        assert_eq!(toml_string("a\"b\\c\u{7f}"), "\"a\\\"b\\\\c\\u007F\"");
    }
}
