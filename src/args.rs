//! Command-line values shared by several commands, and the error type commands return.

use kairos_model::{parse_duration, Duration, Instant};

pub use kairos_lab::error::write_output;
pub use kairos_lab::Failure;

pub type CommandResult = Result<u8, Failure>;

/// clap parser for durations written as in workload files ("10s", "1.5ms").
pub fn duration_arg(text: &str) -> Result<Duration, String> {
    parse_duration(text).map_err(|e| format!("{e} (write e.g. \"10s\", \"250ms\")"))
}

/// clap parser for `START..END` windows such as `0ms..200ms`.
pub fn window_arg(text: &str) -> Result<(Instant, Instant), String> {
    let (from, to) = text
        .split_once("..")
        .ok_or_else(|| format!("{text:?} is not a window: write START..END, e.g. 0ms..200ms"))?;
    let from = Instant::ZERO + duration_arg(from)?;
    let to = Instant::ZERO + duration_arg(to)?;
    if to <= from {
        return Err(format!("window {text:?} is empty: END must be after START"));
    }
    Ok((from, to))
}

/// clap parser for `--gantt FILE.svg`: the chart is SVG, so another extension is refused
/// rather than written with the wrong content.
pub fn svg_path_arg(text: &str) -> Result<std::path::PathBuf, String> {
    let path = std::path::PathBuf::from(text);
    match path.extension().and_then(|e| e.to_str()) {
        Some(e) if e.eq_ignore_ascii_case("svg") => Ok(path),
        _ => Err(format!(
            "{text:?}: the Gantt chart is written as SVG: name the file .svg \
             (for PNG convert it, e.g. `rsvg-convert chart.svg -o chart.png`)"
        )),
    }
}

/// clap parser for `--gantt-by core|task`: the rows of the Gantt chart.
pub fn rows_arg(text: &str) -> Result<kairos_trace::gantt::RowsBy, String> {
    match text {
        "core" => Ok(kairos_trace::gantt::RowsBy::Cores),
        "task" => Ok(kairos_trace::gantt::RowsBy::Tasks),
        _ => Err(format!("{text:?}: write core (a row per core) or task (a row per task, with releases and deadlines)")),
    }
}

/// clap values of `--policy`: every policy of kairos's list (`kairos_policy::registry`) that
/// runs periodic tasks (and the table policy when `tables`), each with its summary in
/// `--help`, then `extra` policies of the command's own (name, summary).
pub fn policy_values(
    tables: bool,
    extra: &'static [(&'static str, &'static str)],
) -> clap::builder::PossibleValuesParser {
    use clap::builder::PossibleValue;
    use kairos_policy::registry::{Runs, POLICIES};
    let listed = (POLICIES.iter())
        .filter(move |p| tables || p.runs != Runs::Tables)
        .map(|p| (p.name, p.summary));
    let values = listed
        .chain(extra.iter().copied())
        .map(|(name, summary)| PossibleValue::new(name).help(summary));
    clap::builder::PossibleValuesParser::new(values)
}

/// Prints a library notice or warning on standard error, where kairos's commands tell them.
pub fn to_stderr(line: &str) {
    crate::progress::eprint_line(line);
}

/// Prints `value` as the pretty JSON every `--json` of kairos prints.
pub fn print_json(value: &impl serde::Serialize) {
    println!(
        "{}",
        serde_json::to_string_pretty(value).expect("kairos's results serialize")
    );
}
