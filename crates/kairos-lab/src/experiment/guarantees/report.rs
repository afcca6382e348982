//! The guarantees study's outputs: one table per family (text), `results.csv` (a row per family
//! and utilization), `summary.json` (what `--json` prints), a summary line per family, and the
//! dry run's plan with the time it would take.

use super::config::Study;
use super::point::{FamilySums, StudyPoint, COLUMNS};
use super::profile::Charged;
use super::studied::Studied;
use crate::error::write_output;
use crate::experiment::{self, Finished};
use crate::plot::trimmed;
use crate::text::{charged, Column};
use crate::Failure;
use kairos_analysis::overheads::{Charges, Quantile};
use serde::Serialize;
use std::path::Path;

/// What `kairos experiment --json` prints of a guarantees study.
#[derive(Serialize)]
pub struct Summary {
    pub name: String,
    pub execution: &'static str,
    pub cores: usize,
    pub duration: String,
    pub overheads: Profile,
    /// Kernel dispatch's, charged to the families the kernel schedules, when measured.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kernel_overheads: Option<Profile>,
    pub families: Vec<FamilySummary>,
    pub points: Vec<StudyPoint>,
    pub files: Vec<String>,
}

/// The profile the overhead-aware analysis charged.
#[derive(Serialize)]
pub struct Profile {
    /// `given` (the config's `overheads`) or `measured` (at the study's start).
    pub source: &'static str,
    pub file: String,
    pub quantile: Quantile,
    /// Each role's charge, ns.
    pub charges: Charges,
}

/// One family over the whole study.
#[derive(Serialize)]
pub struct FamilySummary {
    pub family: &'static str,
    pub tests: &'static str,
    /// The highest utilization up to which (from the first point on) every set is accepted.
    pub ideal_all_up_to: Option<f64>,
    pub aware_all_up_to: Option<f64>,
    /// Sets the overhead-aware analysis accepted (every one was run), those that missed, and
    /// those with a miss the schedule caused and with one the host caused.
    pub aware_accepted: u64,
    pub aware_missed: u64,
    pub aware_missed_schedule: u64,
    pub aware_missed_host: u64,
    /// Sets only the ideal analysis accepted, run, and those that missed.
    pub ideal_only: u64,
    pub ideal_only_missed: u64,
}

/// Writes `results.csv` and `summary.json` into `out`; gives the summary and the text.
pub(super) fn write(
    study: &Study,
    (profile, kernel): (&Charged, Option<&Charged>),
    points: Vec<StudyPoint>,
    out: &Path,
) -> Result<Finished, Failure> {
    write_output(&out.join("results.csv"), csv(&points))?;
    let families: Vec<FamilySummary> = (study.families.iter())
        .map(|&f| summarize(f, &points))
        .collect();
    let names = ["results.csv", "summary.json", "points.jsonl"];
    let mut files: Vec<String> = names
        .iter()
        .map(|f| out.join(f).display().to_string())
        .collect();
    for charged in [Some(profile), kernel].into_iter().flatten() {
        if charged.source == "measured" {
            files.push(charged.file.display().to_string());
        }
    }
    let described = |charged: &Charged| Profile {
        source: charged.source,
        file: charged.file.display().to_string(),
        quantile: study.quantile,
        charges: Charges::at(&charged.overheads, study.quantile),
    };
    let summary = Summary {
        name: study.name.clone(),
        execution: if study.real { "real" } else { "simulated" },
        cores: study.sets.cores,
        duration: study.duration.to_string(),
        overheads: described(profile),
        kernel_overheads: kernel.map(described),
        families,
        points,
        files,
    };
    let json = serde_json::to_string_pretty(&summary).expect("the summary serializes");
    write_output(&out.join("summary.json"), json + "\n")?;
    let text = format!(
        "{}wrote {}\n",
        text(study, &summary),
        summary.files.join(", ")
    );
    Ok(Finished {
        summary: experiment::Summary::Guarantees(Box::new(summary)),
        text,
    })
}

fn csv(points: &[StudyPoint]) -> String {
    let headers: Vec<&str> = COLUMNS.iter().map(|c| c.0).collect();
    let mut out = format!("family,utilization,{}\n", headers.join(","));
    let families = points.first().map_or(0, |p| p.families.len());
    for f in 0..families {
        for p in points {
            let sums = &p.families[f];
            let values: Vec<String> = COLUMNS.iter().map(|c| c.2(sums).to_string()).collect();
            let u = trimmed(p.utilization);
            out.push_str(&format!("{},{u},{}\n", sums.family, values.join(",")));
        }
    }
    out
}

/// One family's sums at every point, in order.
fn of(family: Studied, points: &[StudyPoint]) -> Vec<(f64, &FamilySums)> {
    (points.iter())
        .filter_map(|p| {
            let sums = p.families.iter().find(|s| s.family == family.name())?;
            Some((p.utilization, sums))
        })
        .collect()
}

fn summarize(family: Studied, points: &[StudyPoint]) -> FamilySummary {
    let rows = of(family, points);
    let all_up_to = |accepted: fn(&FamilySums) -> u64| {
        (rows.iter())
            .take_while(|(_, s)| s.sets > 0 && accepted(s) == s.sets)
            .last()
            .map(|(u, _)| *u)
    };
    let total = |value: fn(&FamilySums) -> u64| rows.iter().map(|(_, s)| value(s)).sum::<u64>();
    let (aware, aware_missed) = (total(|s| s.aware), total(|s| s.aware_missed));
    FamilySummary {
        family: family.name(),
        tests: family.tests(),
        ideal_all_up_to: all_up_to(|s| s.ideal),
        aware_all_up_to: all_up_to(|s| s.aware),
        aware_accepted: aware,
        aware_missed,
        aware_missed_schedule: total(|s| s.aware_missed_schedule),
        aware_missed_host: total(|s| s.aware_missed_host),
        ideal_only: total(|s| s.run) - aware,
        ideal_only_missed: total(|s| s.missed) - aware_missed,
    }
}

fn text(study: &Study, summary: &Summary) -> String {
    let kernel = study.has_kernel_family();
    let place = match (study.real, study.has_user_family(), kernel) {
        (true, _, false) => "on real cores (kairos's user-space dispatcher)",
        (true, true, true) => "on real cores (kairos's user-space dispatcher, or the kernel's scheduler for a -kernel family)",
        (true, false, true) => "on real cores (the kernel's scheduler)",
        (false, ..) => "in the simulator (charging the profile's switch and migration costs)",
    };
    let mut out = format!(
        "{}: {} cores, {} set(s) per point, each set either analysis accepts run {} {place}\n",
        study.name, study.sets.cores, study.samples, study.duration,
    );
    let first = match study.has_user_family() {
        true => "overheads",
        false => "kernel dispatch's overheads",
    };
    let profiles = [(first, Some(&summary.overheads))].into_iter().chain([(
        "kernel dispatch's overheads",
        summary.kernel_overheads.as_ref(),
    )]);
    for (what, o) in profiles.filter_map(|(what, o)| Some((what, o?))) {
        out.push_str(&format!(
            "{what} {} ({}), charged at {}: {}\n",
            o.source,
            o.file,
            o.quantile.name(),
            charged(&o.charges)
        ));
    }
    for &family in &study.families {
        out.push_str(&format!(
            "\n{} (tests {})\n{:<6}",
            family.name(),
            family.tests().replace(',', ", "),
            "U"
        ));
        let shown = || COLUMNS.iter().filter_map(|c| Some((c.1?, c.2)));
        for (header, _) in shown() {
            out.push_str(&width(header).right(header));
        }
        out.push('\n');
        for (u, sums) in of(family, &summary.points) {
            out.push_str(&format!("{:<6}", trimmed(u)));
            for (header, value) in shown() {
                out.push_str(&width(header).number(&value(sums).to_string()));
            }
            out.push('\n');
        }
    }
    out.push('\n');
    for f in &summary.families {
        out.push_str(&format!("{}: {}\n", f.family, line(f, study.points[0])));
    }
    out
}

/// A column one wider than its header (at least 6), so that cells stay one space apart.
fn width(header: &str) -> Column {
    Column::fixed(header.chars().count().max(6) + 1)
}

/// What one family's runs say: the utilization the overheads cost (`first`: the study's first
/// point), and whether the overhead-aware guarantee held.
fn line(f: &FamilySummary, first: f64) -> String {
    let up_to = |u: Option<f64>| match u {
        Some(u) => format!("up to U = {}", trimmed(u)),
        None => format!("not even at U = {}", trimmed(first)),
    };
    let cost = match (f.ideal_all_up_to, f.aware_all_up_to) {
        (Some(ideal), Some(aware)) => format!(
            " (the overheads cost {} of utilization)",
            trimmed((ideal - aware).max(0.0))
        ),
        _ => String::new(),
    };
    let held = match (f.aware_accepted, f.aware_missed) {
        (0, _) => "it accepted no set, so no run put its guarantee to the test".to_string(),
        (n, 0) => format!("none of the {n} set(s) it accepted missed"),
        (n, k) => format!(
            "{k} of the {n} set(s) it accepted MISSED ({} by the schedule, {} by the host)",
            f.aware_missed_schedule, f.aware_missed_host
        ),
    };
    format!(
        "the ideal analysis accepts every set {}, the overhead-aware one {}{cost}; {held}; {} of the {} set(s) only the ideal analysis accepted missed",
        up_to(f.ideal_all_up_to),
        up_to(f.aware_all_up_to),
        f.ideal_only_missed,
        f.ideal_only
    )
}

/// The dry run's plan: what would run, and how long it would take at most.
pub(super) fn plan(study: &Study, out: &Path) -> String {
    let families: Vec<&str> = study.families.iter().map(|f| f.name()).collect();
    let (first, last) = (study.points[0], study.points[study.points.len() - 1]);
    format!(
        "{}: guarantees study on {} cores, families {}, {} point(s) from U = {} to {}, {} set(s) each; {}; output {}\n",
        study.name,
        study.sets.cores,
        families.join(", "),
        study.points.len(),
        trimmed(first),
        trimmed(last),
        study.samples,
        estimate(study, study.points.len(), true),
        out.display()
    )
}

/// How long `points` points take at most: every set run (a set neither analysis accepts is
/// not), and the profile's measurement when `measuring` and the study measures one.
pub(super) fn estimate(study: &Study, points: usize, measuring: bool) -> String {
    let runs = points * study.samples * study.families.len();
    let seconds = runs as f64 * study.duration.as_nanos() as f64 * 1e-9;
    let place = if study.real {
        "on real cores"
    } else {
        "simulated"
    };
    let measuring = match (measuring, &study.profile) {
        (true, super::config::Profile::Measured) => measurement(study),
        _ => String::new(),
    };
    format!(
        "at most {runs} run(s) of {} {place}, {:.0} s ({:.1} min) of runs{measuring}",
        study.duration,
        seconds,
        seconds / 60.0
    )
}

/// How long measuring `study`'s profiles takes: 3 s for the dispatcher's, 3 s more with an
/// imprecise family, 3 s for kernel dispatch's.
fn measurement(study: &Study) -> String {
    let user = study.has_user_family();
    let imprecise = study.families.iter().any(|f| f.imprecise());
    let mut runs: Vec<&str> = Vec::new();
    if user {
        runs.push("3 s");
    }
    if user && imprecise {
        runs.push("3 s more for RMWP");
    }
    if study.has_kernel_family() {
        runs.push(if user {
            "3 s more for kernel dispatch"
        } else {
            "3 s for kernel dispatch"
        });
    }
    format!(" after measuring the overheads ({})", runs.join(", "))
}

#[cfg(test)]
mod tests {
    use super::super::config::check;
    use super::*;

    fn study(families: &str) -> Study {
        let text = format!("study = \"guarantees\"\nfamilies = [{families}]\n");
        let (study, diagnostics) = check(Path::new("s.toml"), &text);
        study.unwrap_or_else(|| panic!("{diagnostics:?}"))
    }

    #[test]
    fn the_estimate_counts_only_the_profiles_the_study_measures() {
        let cases = [
            (r#""gedf""#, "(3 s)"),
            (r#""gedf", "prmwp""#, "(3 s, 3 s more for RMWP)"),
            (
                r#""gfp", "pfp-kernel""#,
                "(3 s, 3 s more for kernel dispatch)",
            ),
            (r#""pfp-kernel", "gfp-kernel""#, "(3 s for kernel dispatch)"),
        ];
        for (families, measured) in cases {
            let estimate = estimate(&study(families), 1, true);
            let expected = format!("after measuring the overheads {measured}");
            assert!(estimate.ends_with(&expected), "{families}: {estimate}");
        }
    }
}
