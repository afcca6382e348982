//! `kairos demo`: every stage kairos has, on embedded inputs, in seconds: a periodic workload
//! checked, analysed and simulated under every policy ([`periodic`]); a mixed-criticality DAG
//! system from its tables to a real run ([`mc`]); imprecise tasks under the RMWP family
//! ([`imprecise`]); a VM system's interfaces and two-level schedule ([`vm`]); this machine's OS
//! latencies ([`platform`]); and the HTML report of the first workload ([`report`]).
//!
//! Each stage prints its text, or with `--json` adds its figures to one JSON document, so a
//! script reads the same facts a person reads.

mod imprecise;
mod mc;
mod periodic;
mod platform;
mod report;
mod vm;

use crate::args::{write_output, CommandResult, Failure};
use serde_json::{Map, Value};
use std::path::{Path, PathBuf};

#[derive(clap::Args)]
pub struct DemoArgs {
    /// Folder for the inputs, Gantt charts, traces, tables and the HTML report.
    #[arg(long, value_name = "DIR", default_value = "kairos-demo")]
    pub out_dir: PathBuf,
    /// Print every stage's figures as one JSON document (`out_dir`, `stages`, `files`) instead
    /// of the text.
    #[arg(long)]
    pub json: bool,
}

/// The demo as it goes: where files go, what has been shown, and how to say it.
pub struct Demo {
    out_dir: PathBuf,
    json: bool,
    stage: usize,
    stages: Vec<Value>,
    files: Vec<String>,
}

impl Demo {
    /// Starts the next stage: its heading in text; in JSON a record named `name`.
    fn stage(&mut self, name: &str, heading: &str) {
        self.stage += 1;
        self.say(format!("\n== {}. {name}: {heading}", self.stage));
        let mut record = Map::new();
        record.insert("stage".into(), Value::from(name));
        self.stages.push(Value::Object(record));
    }

    /// A line of the text output (nothing with `--json`).
    fn say(&self, line: impl AsRef<str>) {
        if !self.json {
            println!("{}", line.as_ref());
        }
    }

    /// Adds a figure to the current stage's JSON record.
    fn record(&mut self, key: &str, value: impl serde::Serialize) {
        let value = serde_json::to_value(value).expect("demo figures serialize");
        if let Some(Value::Object(record)) = self.stages.last_mut() {
            record.insert(key.into(), value);
        }
    }

    /// `contents` written to `name` in the output folder; its path.
    fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> Result<PathBuf, Failure> {
        let path = self.out_dir.join(name);
        write_output(&path, contents)?;
        Ok(path)
    }

    /// A file worth opening, listed at the end with what it shows.
    fn file(&mut self, path: &Path, what: &str) {
        let shown = match what.is_empty() {
            true => path.display().to_string(),
            false => format!("{} ({what})", path.display()),
        };
        self.files.push(shown);
    }

    fn out_dir(&self) -> &Path {
        &self.out_dir
    }
}

pub fn run(args: &DemoArgs) -> CommandResult {
    let mut demo = Demo {
        out_dir: args.out_dir.clone(),
        json: args.json,
        stage: 0,
        stages: Vec::new(),
        files: Vec::new(),
    };
    let workload = periodic::run(&mut demo)?;
    let system = mc::run(&mut demo)?;
    mc::run_for_real(&mut demo, &system)?;
    imprecise::run(&mut demo)?;
    vm::run(&mut demo)?;
    platform::run(&mut demo)?;
    report::run(&mut demo, &workload)?;
    finish(&demo);
    Ok(0)
}

/// The files to open, and what to try next; in JSON the whole document.
fn finish(demo: &Demo) {
    if demo.json {
        crate::args::print_json(&serde_json::json!({
            "out_dir": demo.out_dir.display().to_string(),
            "stages": demo.stages,
            "files": demo.files,
        }));
        return;
    }
    println!("\nFiles: Gantt charts and the report open in a browser, traces in ui.perfetto.dev");
    for file in &demo.files {
        println!("  {file}");
    }
    println!(
        "Next: kairos simulate {}/workload.toml --policy gfp --gantt gfp.svg",
        demo.out_dir.display()
    );
}
