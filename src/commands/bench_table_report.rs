//! How the table runtime's benches report: a table per point (or one JSON document with
//! `--json`), the same rows as CSV, and the plot of medians and p99 against the point.

use crate::args::Failure;
use kairos_rt::measure::Summary;
use kairos_rt::table::bench::Figures;
use plotters::prelude::*;
use std::fmt::Write as _;
use std::path::Path;

pub(super) fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

pub(super) fn row<'a>(figures: &'a Figures, name: &str) -> Option<&'a Summary> {
    figures.rows.iter().find(|(n, _)| n == name).map(|(_, s)| s)
}

/// What a runtime bench prints and writes: a table per point on standard output (or, with
/// `--json`, one JSON document at the end) and the same rows as CSV.
pub(super) struct Output {
    json: bool,
    csv: String,
    points: Vec<serde_json::Value>,
}

const CSV_HEADER: &str = "point,measure,count,min_ns,p50_ns,p99_ns,max_ns,mean_ns\n";

impl Output {
    pub(super) fn new(json: bool) -> Output {
        Output {
            json,
            csv: CSV_HEADER.to_string(),
            points: Vec::new(),
        }
    }

    /// Starts a point: its table header, and its JSON object (`extra` fields added).
    pub(super) fn point(&mut self, title: &str, key: &str, extra: serde_json::Value) {
        self.say(title);
        self.say(&format!(
            "  {:<44} {:>8} {:>8} {:>8} {:>9} {:>7}",
            "us", "min", "p50", "p99", "max", "n"
        ));
        let mut point = serde_json::json!({"point": key, "measures": {}});
        if let (Some(point), Some(extra)) = (point.as_object_mut(), extra.as_object()) {
            point.extend(extra.clone());
        }
        self.points.push(point);
    }

    pub(super) fn row(&mut self, name: &str, s: &Summary) {
        self.say(&format!(
            "  {name:<44} {:>8.1} {:>8.1} {:>8.1} {:>9.1} {:>7}",
            us(s.min),
            us(s.p50),
            us(s.p99),
            us(s.max),
            s.count
        ));
        let key = self.points.last().map_or(String::new(), |p| {
            p["point"].as_str().unwrap_or_default().to_string()
        });
        let _ = writeln!(
            self.csv,
            "{key},{name},{},{},{},{},{},{}",
            s.count, s.min, s.p50, s.p99, s.max, s.mean
        );
        if let Some(point) = self.points.last_mut() {
            point["measures"][name] = serde_json::to_value(s).expect("summary serializes");
        }
    }

    /// A line of the text report (nothing with `--json`).
    pub(super) fn say(&self, line: &str) {
        if !self.json {
            println!("{line}");
        }
    }

    /// Writes the CSV; with `--json` prints the document, else says what was written.
    pub(super) fn finish(self, bench: &str, csv: &Path, files: &[&Path]) -> Result<(), Failure> {
        write_file(csv, &self.csv)?;
        let written: Vec<String> = std::iter::once(csv)
            .chain(files.iter().copied())
            .map(|p| p.display().to_string())
            .collect();
        match self.json {
            true => println!(
                "{}",
                serde_json::to_string_pretty(&serde_json::json!({
                    "bench": bench, "points": self.points, "files": written,
                }))
                .expect("report serializes")
            ),
            false => println!("wrote {}", written.join(", ")),
        }
        Ok(())
    }
}

fn write_file(path: &Path, text: &str) -> Result<(), Failure> {
    crate::args::write_output(path, text)
}
/// Median (line) and p99 (dashed) of each series against the points' x, in microseconds.
pub(super) fn plot(
    path: &Path,
    title: &str,
    x_desc: &str,
    points: &[(f64, Figures)],
    series: &[&str],
) -> Result<(), Failure> {
    if !kairos_lab::plot::register_font() {
        eprintln!("warning: no plot drawn: no DejaVuSans.ttf found (install fonts-dejavu-core)");
        return Ok(());
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Failure::environment(format!("{}: {e}", parent.display())))?;
    }
    draw(path, title, x_desc, points, series)
        .map_err(|e| Failure::environment(format!("cannot draw {}: {e}", path.display())))
}

/// The legend sits right of the plot (no data under it); x is a count (tasks or cores), so
/// only whole numbers are labelled; colours avoid yellow on white.
fn draw(
    path: &Path,
    title: &str,
    x_desc: &str,
    points: &[(f64, Figures)],
    series: &[&str],
) -> Result<(), Box<dyn std::error::Error>> {
    use kairos_lab::plot::{draw_legend, trimmed, LegendEntry, PALETTE};
    let area = SVGBackend::new(path, (1100, 560)).into_drawing_area();
    area.fill(&WHITE)?;
    let (plot_area, legend_area) = area.split_horizontally(720);
    let value = |f: &Figures, name: &str, p99: bool| {
        row(f, name).map(|s| us(if p99 { s.p99 } else { s.p50 }))
    };
    let y_max = points
        .iter()
        .flat_map(|(_, f)| series.iter().filter_map(move |n| value(f, n, true)))
        .fold(1.0, f64::max)
        * 1.1;
    let (x_min, x_max) = points
        .iter()
        .fold((f64::MAX, f64::MIN), |(lo, hi), (x, _)| {
            (lo.min(*x), hi.max(*x))
        });
    let mut chart = ChartBuilder::on(&plot_area)
        .caption(title, ("sans-serif", 20))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(x_min - 0.5..x_max + 0.5, 0.0..y_max)?;
    let whole = |x: &f64| match x.fract() == 0.0 {
        true => trimmed(*x),
        false => String::new(),
    };
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc("microseconds (line: median, dashed: p99)")
        .x_labels(((x_max - x_min) as usize + 2).clamp(2, 40) * 2)
        .x_label_formatter(&whole)
        .y_label_formatter(&|y| trimmed(*y))
        .light_line_style(RGBColor(238, 238, 238))
        .label_style(("sans-serif", 14))
        .draw()?;
    let mut legend = Vec::new();
    for (i, name) in series.iter().enumerate() {
        let color = PALETTE[i % PALETTE.len()];
        for p99 in [false, true] {
            let line: Vec<(f64, f64)> = points
                .iter()
                .filter_map(|(x, f)| value(f, name, p99).map(|v| (*x, v)))
                .collect();
            let style = color.stroke_width(if p99 { 1 } else { 2 });
            if p99 {
                chart.draw_series(DashedLineSeries::new(line.clone(), 6, 4, style))?;
            } else {
                chart.draw_series(LineSeries::new(line.clone(), style))?;
            }
            chart.draw_series(line.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
            let label = format!("{name} {}", if p99 { "p99" } else { "median" });
            legend.push(LegendEntry {
                label,
                color,
                dashed: p99,
            });
        }
    }
    draw_legend(&legend_area, &legend)?;
    area.present()?;
    Ok(())
}
