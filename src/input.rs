//! Command-line values for input files; the loading itself is `kairos_lab::input`.

pub use kairos_lab::input::*;
use kairos_model::Duration;

/// clap parser for `--slot`: a duration greater than zero.
pub fn slot_arg(text: &str) -> Result<Duration, String> {
    let slot = crate::args::duration_arg(text)?;
    if slot.is_zero() {
        return Err("a slot must last more than zero (e.g. 1ms)".into());
    }
    Ok(slot)
}
