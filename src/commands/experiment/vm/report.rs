//! The RT-Xen study's outputs: one CSV and one plot (SVG and PNG) per figure of the paper,
//! the back-to-back table at one utilization, and a summary on standard output.

use super::figures::{figures, kinds, Figure, Kind};
use super::point::StudyPoint;
use super::set::{combos, vmm_name, RT_VMMS};
use super::Study;
use crate::args::{write_output, Failure};
use crate::commands::experiment::plot::{
    draw_legend, register_font, trimmed, DrawResult, LegendEntry, PALETTE,
};
use plotters::prelude::*;
use serde::Serialize;
use std::path::Path;

/// Writes every CSV and plot, prints the summary (or JSON); the output folder exists.
pub fn write(study: &Study, points: &[StudyPoint], out: &Path, json: bool) -> Result<(), Failure> {
    let figures = figures(study, points);
    let mut written = Vec::new();
    for f in &figures {
        write_output(&out.join(format!("{}.csv", f.file)), csv(points, f))?;
        written.push(format!("{}.csv", f.file));
    }
    let tables: Vec<Table> = (kinds(study).iter())
        .map(|kind| back_to_back(study, points, kind))
        .collect();
    for (table, kind) in tables.iter().zip(kinds(study)) {
        let file = format!("back-to-back{}.csv", kind.suffix);
        write_output(&out.join(&file), table_csv(table))?;
        written.push(file);
    }
    if register_font() {
        for f in &figures {
            written.extend(plot(study, points, f, out)?);
        }
    } else {
        eprintln!("warning: no plot drawn: no DejaVuSans.ttf found (install fonts-dejavu-core)");
    }
    if json {
        let summary = Summary {
            name: &study.name,
            points,
            back_to_back: &tables[0],
            back_to_back_real: tables.get(1),
            files: written
                .iter()
                .map(|f| out.join(f).display().to_string())
                .collect(),
        };
        println!(
            "{}",
            serde_json::to_string_pretty(&summary).expect("summary serializes")
        );
    } else {
        print!("{}", text(study, points, &figures, &tables));
        println!("wrote {}: {}", out.display(), written.join(", "));
    }
    Ok(())
}

#[derive(Serialize)]
struct Summary<'a> {
    name: &'a str,
    points: &'a [StudyPoint],
    back_to_back: &'a Table,
    #[serde(skip_serializing_if = "Option::is_none")]
    back_to_back_real: Option<&'a Table>,
    files: Vec<String>,
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
type Table = Vec<(String, Option<f64>)>;

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

const SIZE: (u32, u32) = (1000, 560);
const LEGEND_WIDTH: u32 = 250;

fn plot(
    study: &Study,
    points: &[StudyPoint],
    f: &Figure,
    out: &Path,
) -> Result<Vec<String>, Failure> {
    let svg = out.join(format!("{}.svg", f.file));
    let png = out.join(format!("{}.png", f.file));
    let fail = |e: Box<dyn std::error::Error>| {
        Failure::environment(format!("cannot draw {}: {e}", f.file))
    };
    draw(
        SVGBackend::new(&svg, SIZE).into_drawing_area(),
        study,
        points,
        f,
    )
    .map_err(fail)?;
    draw(
        BitMapBackend::new(&png, SIZE).into_drawing_area(),
        study,
        points,
        f,
    )
    .map_err(fail)?;
    Ok(vec![format!("{}.svg", f.file), format!("{}.png", f.file)])
}

fn draw<B: DrawingBackend>(
    area: DrawingArea<B, plotters::coord::Shift>,
    study: &Study,
    points: &[StudyPoint],
    f: &Figure,
) -> DrawResult
where
    B::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let (plot_area, legend_area) = area.split_horizontally(SIZE.0 - LEGEND_WIDTH);
    let xs: Vec<f64> = points.iter().map(|p| p.utilization).collect();
    let (from, to) = (xs[0], xs[xs.len() - 1]);
    let pad = if to > from { (to - from) * 0.02 } else { 0.5 };
    let top = (f.lines.iter().flat_map(|(_, v)| v.iter().flatten())).fold(
        if f.file == "bandwidth" { 0.0 } else { 1.0 },
        |a: f64, &b| a.max(b),
    );
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(format!("{} — {}", study.name, f.title), ("sans-serif", 18))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(64)
        .build_cartesian_2d(from - pad..to + pad, 0.0..(top * 1.06).max(1e-3))?;
    chart
        .configure_mesh()
        .x_desc("total utilization of the tasks")
        .y_desc(f.y_desc)
        .x_labels(xs.len().clamp(2, 12))
        .x_label_formatter(&|x| trimmed(*x))
        .y_label_formatter(&|y| trimmed(*y))
        .light_line_style(RGBColor(238, 238, 238))
        .label_style(("sans-serif", 14))
        .draw()?;
    let mut legend = Vec::new();
    for (m, (label, values)) in f.lines.iter().enumerate() {
        let color = PALETTE[m % PALETTE.len()];
        let dashed = m >= PALETTE.len() || m % 2 == 1;
        let series: Vec<(f64, f64)> = (xs.iter().zip(values))
            .filter_map(|(&x, v)| v.map(|v| (x, v)))
            .collect();
        let style = color.stroke_width(2);
        match dashed {
            true => chart.draw_series(DashedLineSeries::new(series.clone(), 8, 5, style))?,
            false => chart.draw_series(LineSeries::new(series.clone(), style))?,
        };
        chart.draw_series(series.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        legend.push(LegendEntry {
            label: label.clone(),
            color,
            dashed,
        });
    }
    draw_legend(&legend_area, &legend)?;
    area.present()?;
    Ok(())
}

/// What `--dry-run` prints.
pub fn plan(study: &Study, out: &Path) -> String {
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
