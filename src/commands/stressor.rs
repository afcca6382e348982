//! `kairos stressor NAME`: one of kairos's own stressors as a process of its own, for stress
//! loads that stress-ng does not have (see [`kairos_platform::stress::static_key`]). kairos starts it
//! itself, pinned and inside the best-effort cgroups, wherever a stressor list names it
//! (`kairos platform ... --stress`, `kairos manage`'s best-effort programs); it is hidden from
//! the help because nobody needs to type it.

use crate::args::{CommandResult, Failure};
use kairos_model::Duration;
use std::path::PathBuf;

#[derive(clap::Args)]
pub struct Args {
    /// The stressor: static-key.
    #[arg(value_parser = ["static-key"])]
    pub name: String,
    /// Stop after this long at the latest (SIGINT and SIGTERM stop it earlier).
    #[arg(long, value_parser = crate::args::duration_arg)]
    pub timeout: Duration,
    /// Write the count of operations here, in stress-ng's YAML form.
    #[arg(long)]
    pub yaml: Option<PathBuf>,
}

pub fn run(args: &Args) -> CommandResult {
    let bound = std::time::Duration::from_nanos(args.timeout.as_nanos());
    kairos_platform::stress::static_key::run_process(bound, args.yaml.as_deref()).map_err(|e| {
        Failure::environment(format!(
            "static-key: {e} (the stressor opens software perf events: it needs \
             kernel.perf_event_paranoid 2 or less, or root)"
        ))
    })?;
    Ok(0)
}
