//! `kairos import mcdag FILE.xml` and `kairos import simso FILE.xml`: another tool's system
//! file converted to the kairos format (docs/import.md).

use crate::args::{write_output, CommandResult, Failure};
use crate::input::read_text;
use kairos_model::mc_load::{to_json, to_toml};
use kairos_model::mcdag_xml::{import_with, ImportOptions};
use kairos_model::{simso_xml, Duration};
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    #[command(subcommand)]
    pub format: ImportFormat,
}

#[derive(clap::Subcommand)]
pub enum ImportFormat {
    /// The MC-DAG framework's XML (<mcsystem> with <mcdag>, <cores>, <levels>).
    Mcdag(McdagArgs),
    /// SimSo's XML configuration (<simulation> with <sched>, <processors>, <tasks>).
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
    /// Number of cores, replacing the file's <cores number="M"/>.
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
    let source = read_text(&args.file)?;
    let name = args.file.display().to_string();
    let spinner = crate::progress::spinner(&format!("importing {name}"), args.json);
    let import =
        simso_xml::import_simso(&source).map_err(|e| Failure::bad_input(format!("{name}: {e}")))?;
    drop(spinner);
    let stem = args.file.file_stem().map_or("simso".into(), |n| {
        n.to_string_lossy().replace(char::is_control, "?")
    });
    let text = simso_xml::to_toml(&import, &stem);
    let checked = kairos_model::check_source(&text, kairos_model::Format::Toml);
    for d in checked.diagnostics.iter() {
        eprintln!("{}", d.render(&name));
    }
    if checked.workload.is_none() {
        return Err(Failure::bad_input(format!(
            "{name}: the imported workload has errors: nothing written"
        )));
    }
    if let (true, Some(path)) = (args.json, &args.out) {
        write_output(path, &text)?;
        crate::args::print_json(&serde_json::json!({
            "out": path.display().to_string(),
            "tasks": import.tasks.len(),
            "cores": import.cores,
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
            write_output(path, &text)?;
            println!(
                "wrote {}: {} task(s) on {} core(s)",
                path.display(),
                import.tasks.len(),
                import.cores
            );
        }
        None => print!("{text}"),
    }
    Ok(0)
}

fn mcdag(args: &McdagArgs) -> CommandResult {
    let source = read_text(&args.file)?;
    let options = ImportOptions {
        slot: args.slot,
        cores: args.cores.map(|c| c as usize),
    };
    let spinner =
        crate::progress::spinner(&format!("importing {}", args.file.display()), args.json);
    let checked = import_with(&source, &options);
    drop(spinner);
    let name = args.file.display().to_string();
    for d in checked.diagnostics.iter() {
        eprintln!("{}", d.render(&name));
    }
    let Some(system) = checked.system else {
        return Err(Failure::bad_input(format!(
            "{name} has errors: nothing written"
        )));
    };
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
