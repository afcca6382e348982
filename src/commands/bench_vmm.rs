//! `kairos bench vmm`: the VMM scheduler's costs on real cores, as RT-Xen 2.0's are measured
//! (`kairos_lab::bench::vmm`).

use crate::args::{duration_arg, CommandResult};
use kairos_model::Duration;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct VmmArgs {
    /// Length of each scheduler's run (1s to 60s).
    #[arg(long, allow_hyphen_values = true, value_parser = duration_arg, default_value = "3s")]
    pub duration: Duration,
    /// Folder for vmm-overheads.csv (the CDFs) and vmm-overheads.svg (default: the table only).
    #[arg(long = "out-dir", alias = "out", value_name = "DIR")]
    pub out_dir: Option<PathBuf>,
    /// Print the rows as JSON (`scheduler`, `quantity`, `count`, `min`, `p50`, `p99`, `max`
    /// in ns, and the histogram's `buckets`) instead of the table.
    #[arg(long)]
    pub json: bool,
}

/// One measured distribution, as `--json` prints it.
pub fn run(args: &VmmArgs) -> CommandResult {
    let report = kairos_lab::bench::vmm::run(args.duration)?;
    if let Some(dir) = &args.out_dir {
        report.write(dir, &mut crate::args::to_stderr)?;
        eprintln!("wrote {}/vmm-overheads.csv and .svg", dir.display());
    }
    match args.json {
        true => crate::args::print_json(&report.json()),
        false => print!("{}", report.text()),
    }
    Ok(0)
}
