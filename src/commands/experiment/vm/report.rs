//! The RT-Xen study's outputs: one CSV and one plot (SVG and PNG) per figure of the paper,
//! the back-to-back table at one utilization, and a summary on standard output.

use super::set::{combos, vmm_name, RT_VMMS};
use super::{Study, StudyPoint};
use crate::args::{write_output, Failure};
use crate::commands::experiment::plot::{
    draw_legend, register_font, trimmed, DrawResult, LegendEntry, PALETTE,
};
use plotters::prelude::*;
use serde::Serialize;
use std::path::Path;

/// One figure: a value per point and line.
struct Figure {
    file: &'static str,
    title: &'static str,
    y_desc: &'static str,
    lines: Vec<(String, Vec<Option<f64>>)>,
}

fn ratio(n: u64, d: u64) -> Option<f64> {
    (d > 0).then(|| n as f64 / d as f64)
}

/// The guest of the miss-ratio figures, as the combos index it (pEDF first, then gEDF).
fn guest_offset(study: &Study) -> usize {
    match study.setup.guest {
        kairos_model::GuestScheduler::Gedf => RT_VMMS.len(),
        _ => 0,
    }
}

fn figures(study: &Study, points: &[StudyPoint]) -> Vec<Figure> {
    let labels: Vec<String> = combos().iter().map(|c| c.label()).collect();
    let per_combo =
        |f: &dyn Fn(&StudyPoint, usize) -> Option<f64>| -> Vec<(String, Vec<Option<f64>>)> {
            (labels.iter().enumerate())
                .map(|(c, l)| (l.clone(), points.iter().map(|p| f(p, c)).collect()))
                .collect()
        };
    let offset = guest_offset(study);
    let mut miss: Vec<(String, Vec<Option<f64>>)> = (RT_VMMS.iter().enumerate())
        .map(|(k, &(s, p))| {
            (
                vmm_name(s, p),
                points
                    .iter()
                    .map(|pt| pt.practice[offset + k].miss_ratio())
                    .collect(),
            )
        })
        .collect();
    miss.push((
        "credit".into(),
        points.iter().map(|p| p.credit.miss_ratio()).collect(),
    ));
    // RT_VMMS has gEDF at 0 and pEDF at 2; the periodic runs are figure 7's.
    let line = |label: &str, sum: &dyn Fn(&StudyPoint) -> Option<f64>| {
        (
            label.to_string(),
            points.iter().map(sum).collect::<Vec<_>>(),
        )
    };
    let servers = vec![
        line("gEDF, deferrable", &|p| p.deferrable[0].miss_ratio()),
        line("gEDF, periodic", &|p| p.practice[offset].miss_ratio()),
        line("pEDF, deferrable", &|p| p.deferrable[2].miss_ratio()),
        line("pEDF, periodic", &|p| p.practice[offset + 2].miss_ratio()),
    ];
    vec![
        Figure {
            file: "theory",
            title: "schedulable in theory (CSA), the paper's figure 4",
            y_desc: "fraction of sets schedulable",
            lines: per_combo(&|p, c| ratio(p.theory_accepted[c], p.samples)),
        },
        Figure {
            file: "practice",
            title: "no miss in simulation on the interfaces (periodic servers), figure 5",
            y_desc: "fraction of sets schedulable",
            lines: per_combo(&|p, c| ratio(p.practice_accepted[c], p.samples)),
        },
        Figure {
            file: "bandwidth",
            title: "total VCPU bandwidth of the interfaces, figure 6",
            y_desc: "average total bandwidth (cores)",
            lines: ["guest pEDF", "guest gEDF"]
                .iter()
                .enumerate()
                .map(|(g, l)| {
                    (
                        l.to_string(),
                        points
                            .iter()
                            .map(|p| {
                                (p.bandwidth_sets[g] > 0)
                                    .then(|| p.bandwidth_sum[g] / p.bandwidth_sets[g] as f64)
                            })
                            .collect(),
                    )
                })
                .collect(),
        },
        Figure {
            file: "miss-ratio",
            title: "deadline miss ratio by VMM scheduler (periodic servers), figure 7",
            y_desc: "deadline miss ratio",
            lines: miss,
        },
        Figure {
            file: "servers",
            title: "deferrable vs periodic servers, figure 8",
            y_desc: "deadline miss ratio",
            lines: servers,
        },
    ]
}

/// Writes every CSV and plot, prints the summary (or JSON); the output folder exists.
pub fn write(study: &Study, points: &[StudyPoint], out: &Path, json: bool) -> Result<(), Failure> {
    let figures = figures(study, points);
    let mut written = Vec::new();
    for f in &figures {
        write_output(&out.join(format!("{}.csv", f.file)), csv(points, f))?;
        written.push(format!("{}.csv", f.file));
    }
    let table = back_to_back(study, points);
    write_output(&out.join("back-to-back.csv"), table_csv(&table))?;
    written.push("back-to-back.csv".into());
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
            back_to_back: &table,
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
        print!("{}", text(study, points, &figures, &table));
        println!("wrote {}: {}", out.display(), written.join(", "));
    }
    Ok(())
}

#[derive(Serialize)]
struct Summary<'a> {
    name: &'a str,
    points: &'a [StudyPoint],
    back_to_back: &'a [(String, Option<f64>)],
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

/// The paper's Table I: back-to-back replenishments over all replenishments at the table's
/// utilization, per RT VMM scheduler (deferrable servers, the miss-ratio figures' guest).
fn back_to_back(study: &Study, points: &[StudyPoint]) -> Vec<(String, Option<f64>)> {
    let at = points
        .iter()
        .find(|p| (p.utilization - study.table_utilization).abs() < 1e-9);
    (RT_VMMS.iter().enumerate())
        .map(|(k, &(s, p))| {
            let ratio = at.and_then(|pt| pt.deferrable[k].back_to_back_ratio());
            (vmm_name(s, p), ratio)
        })
        .collect()
}

fn table_csv(table: &[(String, Option<f64>)]) -> String {
    let mut out = String::from("vmm,back_to_back_ratio\n");
    for (name, r) in table {
        out.push_str(&format!(
            "{name},{}\n",
            r.map_or(String::new(), |r| format!("{r:.6}"))
        ));
    }
    out
}

fn text(
    study: &Study,
    points: &[StudyPoint],
    figures: &[Figure],
    table: &[(String, Option<f64>)],
) -> String {
    let mut out = format!(
        "{}: {} sets per point, {} cores, {} domains, {} simulated per set and configuration\n",
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
    let unsound: u64 = points.iter().flat_map(|p| &p.accepted_but_missed).sum();
    out.push_str(&format!(
        "\nsets the analysis accepted that missed a deadline in simulation: {unsound}\n"
    ));
    out.push_str(&format!(
        "back-to-back replenishments at U = {} (Table I):",
        trimmed(study.table_utilization)
    ));
    for (name, r) in table {
        out.push_str(&format!(
            " {name} {}",
            r.map_or("-".into(), |r| format!("{:.1} %", 100.0 * r))
        ));
    }
    out.push('\n');
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
    format!(
        "{}: RT-Xen study, {} on {} cores, {} domains, {} point(s) from {} to {}, {} sets each, {} simulated per set and configuration ({} configurations per set), VCPU period {}; output {}\n",
        study.name,
        study.distribution.name(),
        study.setup.cores,
        study.setup.domains,
        study.points.len(),
        trimmed(study.points[0]),
        trimmed(study.points[study.points.len() - 1]),
        study.samples,
        study.setup.duration,
        combos().len() + 1 + RT_VMMS.len(),
        study.setup.vcpu_period,
        out.display()
    )
}
