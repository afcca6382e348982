//! How the table runtime's benches report: a table per point, one document, the same rows as
//! CSV, and the plot of medians and p99 against the point.

use crate::error::write_output;
use crate::{Failure, Notify};
use kairos_rt::measure::Summary;
use kairos_rt::table::bench::Figures;
use plotters::prelude::*;
use serde::Serialize;
use std::fmt::Write as _;
use std::path::Path;

pub(super) fn us(ns: u64) -> f64 {
    ns as f64 / 1000.0
}

pub(super) fn row<'a>(figures: &'a Figures, name: &str) -> Option<&'a Summary> {
    figures.rows.iter().find(|(n, _)| n == name).map(|(_, s)| s)
}

/// What a runtime bench reports: a table per point, line by line to the caller, the same
/// rows as CSV, and one document at the end.
pub(super) struct Output<'a> {
    say: Notify<'a>,
    csv: String,
    points: Vec<serde_json::Value>,
    warnings: Vec<&'static str>,
}

/// A table bench's measurements (`--json`): per point its measures in ns, and the files
/// written.
#[derive(Serialize)]
pub struct Report {
    pub bench: &'static str,
    pub points: Vec<serde_json::Value>,
    pub files: Vec<String>,
    /// What the user should be told besides (no font to draw the plot with).
    #[serde(skip)]
    pub warnings: Vec<&'static str>,
}

impl Report {
    /// The last line of the text report.
    pub fn written(&self) -> String {
        format!("wrote {}", self.files.join(", "))
    }
}

const CSV_HEADER: &str = "point,measure,count,min_ns,p50_ns,p99_ns,max_ns,mean_ns\n";

impl<'a> Output<'a> {
    pub(super) fn new(say: Notify<'a>) -> Output<'a> {
        Output {
            say,
            csv: CSV_HEADER.to_string(),
            points: Vec::new(),
            warnings: Vec::new(),
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

    /// The plot was not drawn: no font.
    pub(super) fn no_plot(&mut self) {
        self.warnings.push(crate::plot::NO_FONT);
    }

    /// A line of the text report.
    pub(super) fn say(&mut self, line: &str) {
        (self.say)(line);
    }

    /// Writes the CSV; the report names it and the other `files` written.
    pub(super) fn finish(
        self,
        bench: &'static str,
        csv: &Path,
        files: &[&Path],
    ) -> Result<Report, Failure> {
        write_output(csv, &self.csv)?;
        let files = std::iter::once(csv)
            .chain(files.iter().copied())
            .map(|p| p.display().to_string())
            .collect();
        Ok(Report {
            bench,
            points: self.points,
            files,
            warnings: self.warnings,
        })
    }
}

/// Median (line) and p99 (dashed) of each series against the points' x, in microseconds;
/// false when no font was found to draw with.
pub(super) fn plot(
    path: &Path,
    title: &str,
    x_desc: &str,
    points: &[(f64, Figures)],
    series: &[&str],
) -> Result<bool, Failure> {
    if !crate::plot::register_font() {
        return Ok(false);
    }
    if let Some(parent) = path.parent() {
        std::fs::create_dir_all(parent)
            .map_err(|e| Failure::environment(format!("{}: {e}", parent.display())))?;
    }
    draw(path, title, x_desc, points, series)
        .map_err(|e| Failure::environment(format!("cannot draw {}: {e}", path.display())))?;
    Ok(true)
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
    use crate::plot::{draw_legend, trimmed, LegendEntry, PALETTE};
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
