//! `kairos check FILE`: every problem at once, located, with the preparation every other command
//! makes before it runs (`kairos_lab::check`).

use crate::args::CommandResult;
use crate::input::read_text;
use kairos_lab::check::evaluate;
use kairos_model::Duration;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct CheckArgs {
    /// Any kairos input: a workload (.toml or .json), a mixed-criticality system (`dags`), a VM
    /// system (`domains`), a managed system (`manager`), an experiment config, an overhead
    /// profile, MC-DAG framework XML or a SimSo configuration (.xml).
    pub file: PathBuf,
    /// For MC-DAG framework XML: how long one time unit of the file lasts.
    #[arg(long, allow_hyphen_values = true, default_value = "1ms", value_parser = crate::input::slot_arg)]
    pub slot: Duration,
    /// Print the report as JSON: `ok`, the kind, counts, every diagnostic with line, column and
    /// path.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &CheckArgs) -> CommandResult {
    let spinner = crate::progress::spinner(&format!("checking {}", args.file.display()), args.json);
    let source = read_text(&args.file)?;
    let checked = evaluate(&args.file, &source, args.slot);
    drop(spinner);
    match args.json {
        true => crate::args::print_json(&checked.report),
        false => print!("{}", checked.text),
    }
    Ok(if !checked.report.ok {
        crate::exit::BAD_INPUT
    } else {
        0
    })
}
