//! The RT-Xen study's outputs: one CSV and one plot (SVG and PNG) per figure of the paper,
//! the back-to-back table at one utilization, and the summary and text `kairos experiment`
//! prints.

use super::figures::{figures, kinds, Figure, Kind};
use super::plot::plot;
use super::point::StudyPoint;
use super::set::{combos, vmm_name, RT_VMMS};
use super::Study;
use crate::error::write_output;
use crate::experiment::{self, Event, Finished, Observer};
use crate::plot::{register_font, trimmed, NO_FONT};
use crate::Failure;
use serde::Serialize;
use std::path::Path;

/// Writes every CSV and plot into `out` (which exists); gives the summary and the text.
pub(super) fn write(
    study: &Study,
    points: Vec<StudyPoint>,
    out: &Path,
    observe: Observer,
) -> Result<Finished, Failure> {
    let figures = figures(study, &points);
    let mut written = Vec::new();
    for f in &figures {
        write_output(&out.join(format!("{}.csv", f.file)), csv(&points, f))?;
        written.push(format!("{}.csv", f.file));
    }
    let mut tables: Vec<Table> = (kinds(study).iter())
        .map(|kind| back_to_back(study, &points, kind))
        .collect();
    for (table, kind) in tables.iter().zip(kinds(study)) {
        let file = format!("back-to-back{}.csv", kind.suffix);
        write_output(&out.join(&file), table_csv(table))?;
        written.push(file);
    }
    if register_font() {
        for f in &figures {
            written.extend(plot(study, &points, f, out)?);
        }
    } else {
        observe(Event::Notice(NO_FONT));
    }
    let text = format!(
        "{}wrote {}: {}\n",
        text(study, &points, &figures, &tables),
        out.display(),
        written.join(", ")
    );
    let back_to_back_real = (tables.len() > 1).then(|| tables.remove(1));
    let summary = Summary {
        name: study.name.clone(),
        points,
        back_to_back: tables.remove(0),
        back_to_back_real,
        files: written
            .iter()
            .map(|f| out.join(f).display().to_string())
            .collect(),
    };
    Ok(Finished {
        summary: experiment::Summary::Study(summary),
        text,
    })
}

/// What `kairos experiment --json` prints of a study: every point's sums, the paper's Table I
/// (simulated; and on real cores, when the study ran there) and the files written.
#[derive(Serialize)]
pub struct Summary {
    pub name: String,
    pub points: Vec<StudyPoint>,
    pub back_to_back: Table,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub back_to_back_real: Option<Table>,
    pub files: Vec<String>,
}

fn csv(points: &[StudyPoint], f: &Figure) -> String {
    let mut out = String::from("utilization");
    for (label, _) in &f.lines {
        out.push_str(&format!(",{label}"));
    }
    out.push('\n');
    for (i, p) in points.iter().enumerate() {
        out.push_str(&trimmed(p.utilization));
        for (_, values) in &f.lines {
            out.push_str(&values[i].map_or(",".into(), |v| format!(",{v:.6}")));
        }
        out.push('\n');
    }
    out
}

/// The paper's Table I: per RT VMM scheduler, its back-to-back ratio.
pub type Table = Vec<(String, Option<f64>)>;

/// Table I of one kind of runs: back-to-back replenishments over all replenishments at the
/// table's utilization, per RT VMM scheduler (deferrable servers, the miss-ratio figures' guest).
fn back_to_back(study: &Study, points: &[StudyPoint], kind: &Kind) -> Table {
    let at = (points.iter())
        .find(|p| (p.utilization - study.table_utilization).abs() < 1e-9)
        .and_then(kind.pick);
    (RT_VMMS.iter().enumerate())
        .map(|(k, &(s, p))| {
            let ratio = at.and_then(|sums| sums.deferrable[k].back_to_back_ratio());
            (vmm_name(s, p), ratio)
        })
        .collect()
}

fn table_csv(table: &Table) -> String {
    let mut out = String::from("vmm,back_to_back_ratio\n");
    for (name, r) in table {
        out.push_str(&format!(
            "{name},{}\n",
            r.map_or(String::new(), |r| format!("{r:.6}"))
        ));
    }
    out
}

fn text(study: &Study, points: &[StudyPoint], figures: &[Figure], tables: &[Table]) -> String {
    let verb = if study.real {
        "run on real cores"
    } else {
        "simulated"
    };
    let mut out = format!(
        "{}: {} sets per point, {} cores, {} domains, {} {verb} per set and configuration\n",
        study.name, study.samples, study.setup.cores, study.setup.domains, study.setup.duration
    );
    for f in figures {
        out.push_str(&format!("\n{} ({}.csv)\n{:<28}", f.title, f.file, "U"));
        for p in points {
            out.push_str(&format!("{:>7}", trimmed(p.utilization)));
        }
        out.push('\n');
        for (label, values) in &f.lines {
            out.push_str(&format!("{label:<28}"));
            for v in values {
                out.push_str(&v.map_or(format!("{:>7}", "-"), |v| format!("{v:>7.3}")));
            }
            out.push('\n');
        }
    }
    out.push('\n');
    for (kind, table) in kinds(study).iter().zip(tables) {
        let unsound: u64 = (points.iter().filter_map(kind.pick))
            .flat_map(|sums| &sums.accepted_but_missed)
            .sum();
        out.push_str(&format!(
            "sets the analysis accepted that missed a deadline {}: {unsound}\n",
            kind.doing
        ));
        out.push_str(&format!(
            "back-to-back replenishments at U = {} (Table I){}:",
            trimmed(study.table_utilization),
            kind.place
        ));
        for (name, r) in table {
            out.push_str(&format!(
                " {name} {}",
                r.map_or("-".into(), |r| format!("{:.1} %", 100.0 * r))
            ));
        }
        out.push('\n');
    }
    out
}

/// The dry run's plan.
pub(super) fn plan(study: &Study, out: &Path) -> String {
    let configurations = combos().len() + 1 + RT_VMMS.len();
    let runs = match study.real {
        true => {
            let total = study.setup.duration.as_nanos() as f64
                * 1e-9
                * (study.points.len() * study.samples * configurations) as f64;
            format!(
                "run on real cores (then simulated with the run's overheads) per set and configuration, {:.0} s of runs in all",
                total
            )
        }
        false => "simulated per set and configuration".into(),
    };
    format!(
        "{}: RT-Xen study, {} on {} cores, {} domains, {} point(s) from {} to {}, {} sets each, {} {runs} ({configurations} configurations per set), VCPU period {}; output {}\n",
        study.name,
        study.distribution.name(),
        study.setup.cores,
        study.setup.domains,
        study.points.len(),
        trimmed(study.points[0]),
        trimmed(study.points[study.points.len() - 1]),
        study.samples,
        study.setup.duration,
        study.setup.vcpu_period,
        out.display()
    )
}
