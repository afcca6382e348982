//! Running a golden case and comparing its output with the committed file (or rewriting the
//! file with `KAIROS_BLESS=1`).

use super::common::Scratch;
use serde_json::{json, Value};
use std::path::{Path, PathBuf};
use std::process::Command;

/// One command run on one input.
pub struct Case {
    /// The golden file's name (without `.json`).
    pub name: String,
    pub args: Vec<String>,
}

pub fn case(name: &str, args: &[&str]) -> Case {
    Case {
        name: name.to_string(),
        args: args.iter().map(|a| a.to_string()).collect(),
    }
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn golden_path(name: &str) -> PathBuf {
    repo()
        .join("tests/golden/examples")
        .join(format!("{name}.json"))
}

/// Runs a case in the repository and returns what its golden file holds. `scratch` (the
/// folder of written inputs and outputs) is written as `$SCRATCH`, so the file does not
/// depend on where the test ran.
fn run(case: &Case, scratch: &Path) -> Value {
    let output = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(&case.args)
        .current_dir(repo())
        .output()
        .expect("run kairos");
    let scratch = scratch.to_string_lossy();
    let clean = |text: &[u8]| String::from_utf8_lossy(text).replace(&*scratch, "$SCRATCH");
    let stdout = clean(&output.stdout);
    let printed = match stdout.trim() {
        "" => {
            let stderr = clean(&output.stderr);
            // The first lines say what went wrong; some errors go on for pages.
            json!({ "stderr": stderr.lines().take(6).collect::<Vec<_>>() })
        }
        text => {
            let mut value: Value = serde_json::from_str(text)
                .unwrap_or_else(|e| panic!("{}: stdout is not JSON ({e}):\n{text}", case.name));
            forget_measured_times(&mut value);
            value
        }
    };
    let args: Vec<String> = case.args.iter().map(|a| clean(a.as_bytes())).collect();
    json!({
        "args": args,
        "exit": output.status.code(),
        "stdout": printed,
    })
}

/// Removes what the machine measured rather than computed (synth's `time_ms`): no two runs
/// agree on it.
fn forget_measured_times(value: &mut Value) {
    match value {
        Value::Object(map) => {
            map.remove("time_ms");
            map.values_mut().for_each(forget_measured_times);
        }
        Value::Array(items) => items.iter_mut().for_each(forget_measured_times),
        _ => {}
    }
}

/// Runs every case and compares it with its golden file (or writes it under `KAIROS_BLESS`).
pub fn check(cases: &[Case], scratch: &Scratch) {
    let bless = std::env::var_os("KAIROS_BLESS").is_some();
    let mut differ = Vec::new();
    for case in cases {
        let got = run(case, &scratch.0);
        let path = golden_path(&case.name);
        if bless {
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            let text = serde_json::to_string_pretty(&got).unwrap() + "\n";
            std::fs::write(&path, text).unwrap();
            continue;
        }
        let want: Value = match std::fs::read_to_string(&path) {
            Ok(text) => serde_json::from_str(&text).unwrap(),
            Err(e) => {
                differ.push(format!("{}: no golden file ({e})", case.name));
                continue;
            }
        };
        if got != want {
            differ.push(format!(
                "{} ({}):\n  want {}\n  got  {}",
                case.name,
                case.args.join(" "),
                first_difference(&want, &got),
                first_difference(&got, &want),
            ));
        }
    }
    assert!(
        differ.is_empty(),
        "{} of {} output(s) differ from tests/golden/examples (KAIROS_BLESS=1 rewrites them):\n{}",
        differ.len(),
        cases.len(),
        differ.join("\n")
    );
}

/// The first place where `a` differs from `b`, as `path: value of a`.
fn first_difference(a: &Value, b: &Value) -> String {
    fn walk(a: &Value, b: &Value, path: String) -> Option<String> {
        match (a, b) {
            (Value::Object(x), Value::Object(y)) => {
                for (key, value) in x {
                    let missing = Value::Null;
                    let other = y.get(key).unwrap_or(&missing);
                    if let Some(found) = walk(value, other, format!("{path}.{key}")) {
                        return Some(found);
                    }
                }
                let extra = y.keys().find(|k| !x.contains_key(*k))?;
                Some(format!("{path}: no key {extra}"))
            }
            (Value::Array(x), Value::Array(y)) if x.len() == y.len() => (x.iter().zip(y))
                .enumerate()
                .find_map(|(i, (p, q))| walk(p, q, format!("{path}[{i}]"))),
            _ if a == b => None,
            _ => {
                let text = a.to_string();
                let cut: String = text.chars().take(300).collect();
                Some(format!("{path}: {cut}"))
            }
        }
    }
    walk(a, b, String::new()).unwrap_or_else(|| "(equal)".into())
}
