//! `kairos synth FILE`: one scheduling table per criticality level for an MC-DAG system
//! (GMH-MC-DAG, Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 4.2; docs/synth.md), or the federated
//! baseline; a summary with table quality, the table file, a Gantt chart of every level.

use crate::args::{duration_arg, write_output, CommandResult, Failure};
use kairos_analysis::overheads::Quantile;
use kairos_lab::synth::{
    gantt, synthesize_tables, OverheadRequest, Request, Summary, Synthesized, Tables,
};
use kairos_mc::Synthesis;
use kairos_model::input::LoadOptions;
use kairos_model::{Duration, McSystem};
use kairos_trace::gantt::GanttOptions;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// MC-DAG system: kairos TOML/JSON, or the MC-DAG framework's XML (.xml).
    pub file: PathBuf,
    /// Slot priority policy, or the federated baseline (heavy DAGs on dedicated cores).
    #[arg(long, value_parser = kairos_lab::synth::POLICIES, default_value = "gedzl")]
    pub policy: String,
    /// Number of cores, replacing the file's.
    #[arg(long, value_parser = clap::value_parser!(u64).range(1..=4096))]
    pub cores: Option<u64>,
    /// Length of one time unit of an XML file (the format has no unit).
    #[arg(long, allow_hyphen_values = true, default_value = "1ms", value_parser = duration_arg)]
    pub slot: Duration,
    /// Write the tables (JSON table file, times in ns) here.
    #[arg(short = 'o', long, value_name = "FILE.json")]
    pub out: Option<PathBuf>,
    /// Write every level's table as one Gantt chart (SVG).
    #[arg(long, value_name = "FILE.svg", value_parser = crate::args::svg_path_arg)]
    pub gantt: Option<PathBuf>,
    /// Only draw this part of the tables in the Gantt chart, e.g. 0ms..50ms.
    #[arg(long, allow_hyphen_values = true, value_parser = crate::args::window_arg, value_name = "START..END", requires = "gantt")]
    pub gantt_window: Option<(kairos_model::Instant, kairos_model::Instant)>,
    /// Rows of the Gantt chart: core (who runs where) or task (when each task runs, with
    /// release and deadline arrows).
    #[arg(long, value_name = "core|task", value_parser = crate::args::rows_arg, default_value = "core", requires = "gantt")]
    pub gantt_by: kairos_trace::gantt::RowsBy,
    /// Synthesize for the machine that measured this overhead profile (the `[overheads]` table
    /// `kairos bench overheads --out` writes): every slot loses the dispatcher's costs (the slot
    /// guard), so each WCET is given the whole slots that still hold it (docs/synth.md).
    #[arg(long, value_name = "FILE.toml")]
    pub overheads: Option<PathBuf>,
    /// Which point of each measured overhead distribution to charge: max (safe), p999 or p99.
    #[arg(long, value_name = "QUANTILE", default_value = "max", value_parser = crate::commands::analyze::quantile_arg)]
    pub overhead_quantile: Quantile,
    /// Print the summary as JSON.
    #[arg(long)]
    pub json: bool,
}

impl Args {
    /// The flags as the library's request (reading the overhead profile, if any).
    pub fn request(&self) -> Result<Request, Failure> {
        let overheads = match &self.overheads {
            Some(path) => Some(OverheadRequest {
                profile: crate::input::load_profile(path, self.overhead_quantile)?,
                quantile: self.overhead_quantile,
            }),
            None => None,
        };
        Ok(Request {
            file: self.file.display().to_string(),
            policy: self.policy.clone(),
            cores: self.cores.map(|c| c as usize),
            out: self.out.as_ref().map(|p| p.display().to_string()),
            overheads,
        })
    }
}

/// The system `kairos synth` synthesizes tables for.
pub fn load(args: &Args) -> Result<McSystem, Failure> {
    let options = LoadOptions {
        slot: args.slot,
        cores: None,
    };
    crate::input::mc_system(&args.file, "synth", &options)
}

pub fn run(args: &Args) -> CommandResult {
    let system = load(args)?;
    let synthesized = synthesize_tables(&args.request()?, &system)?;
    let Some(out) = &synthesized.synthesis else {
        match (&synthesized.summary, args.json) {
            (summary, true) => crate::args::print_json(summary),
            (Summary::NotSchedulable(no), false) => {
                println!("{}: not schedulable: {}", args.file.display(), no.reason);
                if let Some(charged) = &no.overheads {
                    print!("{}", kairos_lab::text::synth_overheads(charged));
                }
            }
            (Summary::Schedulable(_), false) => unreachable!("tables come with a synthesis"),
        }
        return Ok(crate::exit::NO);
    };
    if let Some(path) = &args.out {
        write_output(path, out.tables.to_json() + "\n")?;
    }
    if let Some(path) = &args.gantt {
        let view = GanttOptions {
            window: args.gantt_window,
            rows: args.gantt_by,
            title: None,
        };
        let file = args.file.display().to_string();
        write_output(path, gantt(&system, &out.tables, &file, &view))?;
    }
    match args.json {
        true => crate::args::print_json(&synthesized.summary),
        false => print_summary(args, out, &synthesized),
    }
    Ok(0)
}

fn print_summary(args: &Args, out: &Synthesis, synthesized: &Synthesized) {
    let t = &out.tables;
    let hyperperiod = Duration::from_nanos(t.hyperperiod);
    println!(
        "{}: {} level(s), hyper-period {hyperperiod} ({} slots of {}), {} core(s), policy {}",
        args.file.display(),
        t.levels.len(),
        t.hyperperiod / out.slot.as_nanos(),
        out.slot,
        t.cores,
        t.policy.as_deref().unwrap_or("?"),
    );
    println!(
        "{:<8} {:>8} {:>10} {:>12} {:>11} {:>12}",
        "level", "jobs", "intervals", "preemptions", "migrations", "preempt/job"
    );
    let rows = out
        .quality
        .levels
        .iter()
        .map(|l| (l.level.as_str(), &l.counts));
    for (name, c) in rows.chain([("total", &out.quality.total)]) {
        println!(
            "{name:<8} {:>8} {:>10} {:>12} {:>11} {:>12.3}",
            c.jobs,
            c.intervals,
            c.preemptions,
            c.migrations,
            c.preemptions_per_job()
        );
    }
    if let Summary::Schedulable(Tables {
        overheads: Some(charged),
        ..
    }) = &synthesized.summary
    {
        print!("{}", kairos_lab::text::synth_overheads(charged));
    }
    let elapsed = synthesized.elapsed;
    println!("synthesized in {:.3} ms", elapsed.as_secs_f64() * 1e3);
    if let Some(path) = &args.out {
        println!("tables written to {}", path.display());
    }
    if let Some(path) = &args.gantt {
        println!("Gantt chart written to {}", path.display());
    }
}
