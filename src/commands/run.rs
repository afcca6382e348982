//! `kairos run` (in progress).

use crate::args::{CommandResult, Failure};

#[derive(clap::Args)]
pub struct Args {}

pub fn run(_args: &Args) -> CommandResult {
    Err(Failure::bad_input("not implemented yet"))
}
