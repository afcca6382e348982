//! `kairos validate-tables WORKLOAD TABLES.json`: checks scheduling tables against their MC-DAG
//! system with the independent validator (`kairos-validate`, Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems",
//! section 4.2; docs/validate-tables.md). Exit 0 when valid, 1 when violations are found, 2 on
//! bad input.

use crate::args::{duration_arg, CommandResult, Failure};
use crate::input::read_text;
use kairos_analysis::overheads::Quantile;
use kairos_lab::synth::overheads::guarded_system;
use kairos_lab::synth::OverheadRequest;
use kairos_lab::text::validation;
use kairos_model::input::LoadOptions;
use kairos_model::{Duration, TableSet};
use kairos_validate::validate;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// MC-DAG system: kairos TOML/JSON, or the MC-DAG framework's XML (.xml).
    pub workload: PathBuf,
    /// Table file (JSON, as written by `kairos synth --out`).
    pub tables: PathBuf,
    /// Length of one time unit of an XML workload (the format has no unit).
    #[arg(long, allow_hyphen_values = true, default_value = "1ms", value_parser = duration_arg)]
    pub slot: Duration,
    /// Number of cores, replacing the workload's (as `kairos synth --cores`).
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub cores: Option<u64>,
    /// Check tables `kairos synth --overheads` wrote: against the workload with the slot guard
    /// of this overhead profile charged to its WCETs, as synth charged it.
    #[arg(long, value_name = "FILE.toml")]
    pub overheads: Option<PathBuf>,
    /// The quantile synth charged (as `kairos synth --overhead-quantile`).
    #[arg(long, value_name = "QUANTILE", default_value = "max", value_parser = crate::commands::analyze::quantile_arg)]
    pub overhead_quantile: Quantile,
    /// Print the report as JSON.
    #[arg(long)]
    pub json: bool,
}

pub fn run(args: &Args) -> CommandResult {
    let options = LoadOptions {
        slot: args.slot,
        cores: None,
    };
    let mut system = crate::input::mc_system(&args.workload, "validate-tables", &options)?;
    if let Some(cores) = args.cores {
        system.cores = cores as usize;
    }
    if let Some(path) = &args.overheads {
        let asked = OverheadRequest {
            profile: crate::input::load_profile(path, args.overhead_quantile)?,
            quantile: args.overhead_quantile,
        };
        system = guarded_system(&system, system.cores, &asked).map_err(|refusal| {
            Failure::bad_input(format!(
                "{}: no tables with these overheads: {refusal}",
                args.workload.display()
            ))
        })?;
    }
    let text = read_text(&args.tables)?;
    let tables = TableSet::from_json(&text)
        .map_err(|e| Failure::bad_input(format!("{}: {e}", args.tables.display())))?;
    let report = validate(&system, &tables);
    let (workload, tables) = (args.workload.display(), args.tables.display());
    let names = (workload.to_string(), tables.to_string());
    match args.json {
        true => println!("{}", validation::json(&names.0, &names.1, &report)),
        false => print!("{}", validation::text(&names.0, &names.1, &report)),
    }
    Ok(if report.is_valid() {
        0
    } else {
        crate::exit::NO
    })
}
