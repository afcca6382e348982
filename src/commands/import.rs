//! `kairos import mcdag FILE.xml` and `kairos import simso FILE.xml`: another tool's system
//! file converted to the kairos format (docs/import.md).

use crate::args::{write_output, CommandResult};
use crate::input::load_for;
use kairos_model::input::{Input, InputKind, LoadOptions};
use kairos_model::mc_load::{to_json, to_toml};
use kairos_model::Duration;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub format: ImportFormat,
}

#[derive(clap::Subcommand)]
pub enum ImportFormat {
    /// The MC-DAG framework's XML (`<mcsystem>` with `<mcdag>`, `<cores>`, `<levels>`).
    Mcdag(McdagArgs),
    /// SimSo's XML configuration (`<simulation>` with `<sched>`, `<processors>`, `<tasks>`).
    Simso(SimsoArgs),
}

#[derive(clap::Args)]
pub struct SimsoArgs {
    /// The XML file SimSo's Configuration.save wrote.
    pub file: PathBuf,
    /// Output file (kairos TOML); standard output if absent.
    #[arg(long, short, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Print what was written as JSON (`out`, `tasks`, `cores`, SimSo's `policy` and
    /// `duration_ns`, `notes`); needs --out.
    #[arg(long, requires = "out")]
    pub json: bool,
}

#[derive(clap::Args)]
pub struct McdagArgs {
    /// The XML file.
    pub file: PathBuf,
    /// How long one time unit of the file lasts.
    #[arg(long, allow_hyphen_values = true, default_value = "1ms", value_parser = crate::input::slot_arg)]
    pub slot: Duration,
    /// Number of cores, replacing the file's `<cores number="M"/>`.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub cores: Option<u64>,
    /// Output file: kairos TOML, or JSON when the name ends in .json; standard output if absent.
    #[arg(long, short, value_name = "FILE")]
    pub out: Option<PathBuf>,
    /// Print what was written as JSON (`out`, `dags`, `tasks`, `levels`, `cores`); needs --out.
    #[arg(long, requires = "out")]
    pub json: bool,
}

pub fn run(args: &Args) -> CommandResult {
    match &args.format {
        ImportFormat::Mcdag(args) => mcdag(args),
        ImportFormat::Simso(args) => simso(args),
    }
}

/// `kairos import simso`: the workload, checked like any kairos file, and the simulation that
/// reproduces SimSo's run (policy and duration) on standard error.
fn simso(args: &SimsoArgs) -> CommandResult {
    let kinds = [InputKind::SimsoXml];
    let spinner =
        crate::progress::spinner(&format!("importing {}", args.file.display()), args.json);
    let taken = load_for(&args.file, "import simso", &kinds, &LoadOptions::default());
    drop(spinner);
    let taken = taken?;
    let Input::Workload(workload) = taken.input else {
        unreachable!("a SimSo configuration loads to a workload")
    };
    let import = taken.simso.expect("a SimSo configuration carries its run");
    let text = &import.toml;
    if let (true, Some(path)) = (args.json, &args.out) {
        write_output(path, text)?;
        crate::args::print_json(&serde_json::json!({
            "out": path.display().to_string(),
            "tasks": workload.tasks.len(),
            "cores": workload.cores,
            "policy": import.policy,
            "duration_ns": import.duration.as_nanos(),
            "notes": import.notes,
        }));
        return Ok(0);
    }
    for note in &import.notes {
        eprintln!("note: {note}");
    }
    let target = args
        .out
        .as_ref()
        .map_or("FILE".into(), |p| p.display().to_string());
    match import.policy {
        Some(policy) => eprintln!(
            "SimSo's run: kairos simulate {target} --policy {policy} --duration {}",
            import.duration
        ),
        None => eprintln!(
            "SimSo's scheduler {} has no kairos policy with the same rules",
            import.scheduler
        ),
    }
    match &args.out {
        Some(path) => {
            write_output(path, text)?;
            println!(
                "wrote {}: {} task(s) on {} core(s)",
                path.display(),
                workload.tasks.len(),
                workload.cores
            );
        }
        None => print!("{text}"),
    }
    Ok(0)
}

fn mcdag(args: &McdagArgs) -> CommandResult {
    let options = LoadOptions {
        slot: args.slot,
        cores: args.cores.map(|c| c as usize),
    };
    let kinds = [InputKind::McDagXml];
    let spinner =
        crate::progress::spinner(&format!("importing {}", args.file.display()), args.json);
    let loaded = load_for(&args.file, "import mcdag", &kinds, &options);
    drop(spinner);
    let Input::Mc(system) = loaded?.input else {
        unreachable!("MC-DAG XML loads to an MC-DAG system")
    };
    let name = args.file.display().to_string();
    let json = args
        .out
        .as_ref()
        .is_some_and(|p| p.to_string_lossy().to_ascii_lowercase().ends_with(".json"));
    let text = if json {
        to_json(&system)
    } else {
        let source_name = args
            .file
            .file_name()
            .map_or(name.clone(), |n| n.to_string_lossy().into_owned())
            .replace(char::is_control, "?");
        format!(
            "# Imported by `kairos import mcdag` from {source_name} (MC-DAG framework XML), one slot = {}.\n{}",
            args.slot,
            to_toml(&system)
        )
    };
    match &args.out {
        Some(path) => {
            write_output(path, text)?;
            let tasks: usize = system.dags.iter().map(|d| d.tasks.len()).sum();
            if args.json {
                crate::args::print_json(&serde_json::json!({
                    "out": path.display().to_string(),
                    "dags": system.dags.len(),
                    "tasks": tasks,
                    "levels": system.level_count(),
                    "cores": system.cores,
                }));
                return Ok(0);
            }
            println!(
                "wrote {}: {} DAG(s), {tasks} task(s), {} level(s) on {} core(s)",
                path.display(),
                system.dags.len(),
                system.level_count(),
                system.cores
            );
        }
        None => print!("{text}"),
    }
    Ok(0)
}
