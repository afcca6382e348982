//! Command-line values for input files; the loading itself is `kairos_lab::input`.

pub use kairos_lab::input::*;
use kairos_model::Duration;

/// clap parser for `--slot`: a duration greater than zero.
pub fn slot_arg(text: &str) -> Result<Duration, String> {
    let slot = crate::args::duration_arg(text)?;
    let floor = kairos_model::decode::MIN_PERIOD;
    if slot.is_zero() {
        return Err("a slot must last more than zero (e.g. 1ms)".into());
    }
    if slot < floor {
        return Err(format!(
            "a slot of {slot} is below {floor}: every slot of a table is a step to synthesize and simulate (e.g. 1ms)"
        ));
    }
    Ok(slot)
}

/// The `[overheads]` table of a file (a profile `kairos bench overheads --out` wrote, or any
/// workload with one); its diagnostics go to stderr, located.
pub fn load_overheads(
    path: &std::path::Path,
) -> Result<kairos_model::Overheads, crate::args::Failure> {
    let source = read_text(path)?;
    kairos_model::input::load_overheads(path, &source).map_err(|diagnostics| {
        let name = path.display().to_string();
        for d in diagnostics.iter() {
            eprintln!("{}", d.render(&name));
        }
        crate::args::Failure::bad_input(format!("{name}: no usable [overheads] table"))
    })
}
