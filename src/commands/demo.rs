//! `kairos demo`: the tour of every stage kairos has, on embedded inputs, run by
//! `kairos_lab::demo`. Here the options become its request; its lines are printed as they come,
//! or with `--json` the tour is printed whole.

use crate::args::{print_json, to_stderr, CommandResult};
use kairos_lab::demo::{run as tour, Request};
use std::path::PathBuf;

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

pub fn run(args: &DemoArgs) -> CommandResult {
    let request = Request {
        out_dir: args.out_dir.clone(),
    };
    let mut say = |line: &str| {
        if !args.json {
            println!("{line}");
        }
    };
    let shown = tour(&request, &mut say, &mut to_stderr)?;
    if args.json {
        print_json(&shown);
    }
    Ok(0)
}
