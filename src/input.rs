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
    load_profile(path, kairos_analysis::overheads::Quantile::Max)
}

/// [`load_overheads`] for an analysis charging `quantile`: a distribution without that point
/// (`p999` in a profile written before it was measured) is a located error.
pub fn load_profile(
    path: &std::path::Path,
    quantile: kairos_analysis::overheads::Quantile,
) -> Result<kairos_model::Overheads, crate::args::Failure> {
    let source = read_text(path)?;
    let point = quantile.profile_key();
    kairos_model::input::load_overheads_charging(path, &source, point).map_err(|diagnostics| {
        let name = path.display().to_string();
        for d in diagnostics.iter() {
            eprintln!("{}", d.render(&name));
        }
        crate::args::Failure::bad_input(format!("{name}: no usable [overheads] table"))
    })
}

/// A workload's own `[overheads]` charged at `quantile`: refused, located, when a distribution
/// in it lacks the point (as [`load_profile`] refuses a profile).
pub fn refuse_own_lacking(
    path: &std::path::Path,
    quantile: kairos_analysis::overheads::Quantile,
) -> Result<(), crate::args::Failure> {
    let Some(point) = quantile.profile_key() else {
        return Ok(());
    };
    let source = read_text(path)?;
    let format = kairos_model::input::format_of(path);
    let lacking = kairos_model::distributions_lacking(&source, format, point);
    let name = path.display().to_string();
    lacking
        .iter()
        .for_each(|d| eprintln!("{}", d.render(&name)));
    match lacking.has_errors() {
        true => Err(crate::args::Failure::bad_input(format!(
            "{name}: its [overheads] cannot be charged at {}",
            quantile.name()
        ))),
        false => Ok(()),
    }
}
