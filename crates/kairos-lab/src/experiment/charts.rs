//! Acceptance ratio against utilization, one line per method, as SVG and PNG (plotters); for
//! MC-DAG experiments also preemptions and migrations per job of the accepted tables, and for
//! imprecise sets run by parts the mean QoS.
//!
//! Readability rules: every method has its own colour (a colour-blind-safe palette without
//! yellow), marker shape and dash pattern, so equal curves stay visible on top of each other;
//! the first method is drawn last (on top); the legend sits outside the plot area; the y axis
//! ends a little above the largest value so no point is clipped; simulations' inconclusive sets
//! are a dashed line of the same colour, "accepted or inconclusive".

use super::config::{Config, Workloads};
use super::results::{PointResult, QualitySum};
use super::{Event, Observer};
use crate::plot::{dashed_segment, register_font, trimmed, DrawResult, NO_FONT, PALETTE};
use crate::Failure;
use plotters::coord::types::RangedCoordf64;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

const SIZE: (u32, u32) = (1000, 560);
/// Width of the legend panel right of the plot.
const LEGEND_WIDTH: u32 = 250;

/// Writes `acceptance.svg` and `.png` (and the MC-DAG quality plots); returns the files
/// written. Without a font nothing is drawn and `observe` is told why.
pub(super) fn write_plots(
    out: &Path,
    config: &Config,
    results: &[PointResult],
    labels: &[String],
    observe: Observer,
) -> Result<Vec<String>, Failure> {
    if results.is_empty() {
        return Ok(Vec::new());
    }
    if !register_font() {
        observe(Event::Notice(NO_FONT));
        return Ok(Vec::new());
    }
    let mut written = Vec::new();
    for chart in charts(config, results) {
        let svg = out.join(format!("{}.svg", chart.file));
        let png = out.join(format!("{}.png", chart.file));
        let plot = Plot {
            config,
            results,
            labels,
            chart: &chart,
        };
        plot.draw(SVGBackend::new(&svg, SIZE).into_drawing_area())
            .map_err(|e| Failure::environment(format!("cannot draw {}: {e}", svg.display())))?;
        plot.draw(BitMapBackend::new(&png, SIZE).into_drawing_area())
            .map_err(|e| Failure::environment(format!("cannot draw {}: {e}", png.display())))?;
        written.push(svg.display().to_string());
        written.push(png.display().to_string());
    }
    Ok(written)
}

/// `", a, b"` for the "wrote ..." line.
pub(super) fn listed(files: &[String]) -> String {
    files.iter().map(|f| format!(", {f}")).collect()
}

fn charts(config: &Config, results: &[PointResult]) -> Vec<Chart> {
    let mut charts = vec![Chart {
        file: "acceptance",
        y_desc: "acceptance ratio",
        value: |p, m| Some(p.accepted[m] as f64 / p.samples as f64),
        upper: Some(|p, m| (p.accepted[m] + p.inconclusive(m)) as f64 / p.samples as f64),
    }];
    if matches!(config.workloads, Workloads::McDag(_)) {
        charts.push(Chart {
            file: "preemptions",
            y_desc: "preemptions per job (accepted tables)",
            value: |p, m| p.quality.get(m).and_then(QualitySum::preemptions_per_job),
            upper: None,
        });
        charts.push(Chart {
            file: "migrations",
            y_desc: "migrations per job (accepted tables)",
            value: |p, m| p.quality.get(m).and_then(QualitySum::migrations_per_job),
            upper: None,
        });
    }
    if results.iter().any(|p| !p.qos.is_empty()) {
        charts.push(Chart {
            file: "qos",
            y_desc: "mean QoS (optional time executed / requested)",
            value: |p, m| p.qos(m),
            upper: None,
        });
    }
    charts
}

/// One plot: a value per point and method (`None`: no point drawn there), and optionally an
/// upper value drawn dashed where it differs (accepted or inconclusive).
struct Chart {
    file: &'static str,
    y_desc: &'static str,
    value: fn(&PointResult, usize) -> Option<f64>,
    upper: Option<fn(&PointResult, usize) -> f64>,
}

/// One chart of an experiment's results, ready to draw on any backend.
struct Plot<'a> {
    config: &'a Config,
    results: &'a [PointResult],
    labels: &'a [String],
    chart: &'a Chart,
}

impl Plot<'_> {
    fn draw<B: DrawingBackend>(&self, area: DrawingArea<B, Shift>) -> DrawResult
    where
        B::ErrorType: 'static,
    {
        area.fill(&WHITE)?;
        let (plot_area, legend_area) = area.split_horizontally(SIZE.0 - LEGEND_WIDTH);
        let title = format!(
            "{} — {} cores, {} sets per point",
            self.config.name, self.config.cores, self.config.samples
        );
        let (from, to) = (
            self.results[0].utilization,
            self.results[self.results.len() - 1].utilization,
        );
        let pad = if to > from { (to - from) * 0.02 } else { 0.5 };
        let mut chart = ChartBuilder::on(&plot_area)
            .caption(title, ("sans-serif", 20))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(from - pad..to + pad, 0.0..self.y_max())?;
        let x_desc = match self.config.workloads {
            Workloads::McDag(_) => "normalized utilization U / m",
            Workloads::Periodic(_) => "total utilization",
        };
        chart
            .configure_mesh()
            .x_desc(x_desc)
            .y_desc(self.chart.y_desc)
            .x_labels(self.results.len().clamp(2, 12))
            .x_label_formatter(&|x| trimmed(*x))
            .y_label_formatter(&|y| trimmed(*y))
            .light_line_style(RGBColor(238, 238, 238))
            .label_style(("sans-serif", 14))
            .draw()?;
        // Reverse order: the first method, usually the one of interest, ends on top.
        for m in (0..self.labels.len()).rev() {
            self.draw_method(&mut chart, m)?;
        }
        // The thin "or inconclusive" lines go over everything: they may coincide with a method's
        // line, which would hide them.
        for m in 0..self.labels.len() {
            if let Some(upper) = self.upper_points(m) {
                let thin = PALETTE[m % PALETTE.len()].stroke_width(2);
                chart.draw_series(DashedLineSeries::new(upper, 3, 4, thin))?;
            }
        }
        self.draw_legend(&legend_area)?;
        area.present()?;
        Ok(())
    }

    fn draw_method<DB: DrawingBackend>(
        &self,
        chart: &mut ChartContext<DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
        m: usize,
    ) -> DrawResult
    where
        DB::ErrorType: 'static,
    {
        let style = PALETTE[m % PALETTE.len()].stroke_width(2);
        let points: Vec<(f64, f64)> = self
            .results
            .iter()
            .filter_map(|p| (self.chart.value)(p, m).map(|v| (p.utilization, v)))
            .collect();
        match dash(m) {
            None => chart.draw_series(LineSeries::new(points.clone(), style))?,
            Some((on, off)) => {
                chart.draw_series(DashedLineSeries::new(points.clone(), on, off, style))?
            }
        };
        draw_markers(chart, &points, m)?;
        Ok(())
    }

    /// The "accepted or inconclusive" line of method `m`, when it has inconclusive sets.
    fn upper_points(&self, m: usize) -> Option<Vec<(f64, f64)>> {
        let upper = self.chart.upper?;
        self.results.iter().any(|p| p.inconclusive(m) > 0).then(|| {
            self.results
                .iter()
                .map(|p| (p.utilization, upper(p, m)))
                .collect()
        })
    }

    fn has_values(&self, m: usize) -> bool {
        self.results
            .iter()
            .any(|p| (self.chart.value)(p, m).is_some())
    }

    fn has_upper(&self, m: usize) -> bool {
        self.upper_points(m).is_some()
    }

    fn draw_legend<B: DrawingBackend>(&self, area: &DrawingArea<B, Shift>) -> DrawResult
    where
        B::ErrorType: 'static,
    {
        let font = ("sans-serif", 14).into_font().color(&BLACK);
        let mut y = 60;
        for (m, label) in self.labels.iter().enumerate() {
            if !self.has_values(m) {
                // A method this chart has nothing for (QoS of an analysis test).
                continue;
            }
            let style = PALETTE[m % PALETTE.len()].stroke_width(2);
            let line = vec![(8, y), (44, y)];
            match dash(m) {
                None => area.draw(&PathElement::new(line, style))?,
                Some((on, off)) => {
                    for segment in dashed_segment(8, 44, y, on, off) {
                        area.draw(&PathElement::new(segment, style))?;
                    }
                }
            }
            legend_marker(area, (26, y), m)?;
            area.draw(&Text::new(label.clone(), (52, y - 8), font.clone()))?;
            y += 24;
            if self.has_upper(m) {
                let thin = PALETTE[m % PALETTE.len()].stroke_width(2);
                for segment in dashed_segment(8, 44, y, 3, 4) {
                    area.draw(&PathElement::new(segment, thin))?;
                }
                let text = format!("{label}: or inconclusive");
                area.draw(&Text::new(text, (52, y - 8), font.clone()))?;
                y += 24;
            }
        }
        Ok(())
    }

    /// The top of the y axis: a little above 1 for ratios, above the largest value otherwise.
    fn y_max(&self) -> f64 {
        let largest = self
            .results
            .iter()
            .flat_map(|p| (0..self.labels.len()).filter_map(move |m| (self.chart.value)(p, m)))
            .fold(1.0, f64::max);
        largest * 1.06
    }
}

/// Dash pattern of method `m`: every other method dashed (on, off pixels).
fn dash(m: usize) -> Option<(u32, u32)> {
    [None, Some((10, 5)), None, Some((4, 4))][m % 4]
}

/// Method `m`'s marker style: filled for even methods, hollow for odd ones so a marker under
/// another stays visible. With three shapes that makes six distinct markers.
fn marker_style(m: usize) -> ShapeStyle {
    let color = PALETTE[m % PALETTE.len()];
    if m.is_multiple_of(2) {
        color.filled()
    } else {
        color.stroke_width(2)
    }
}

/// Method `m`'s markers (circle, triangle, cross in turn) at `points` of the chart.
fn draw_markers<DB: DrawingBackend>(
    chart: &mut ChartContext<DB, Cartesian2d<RangedCoordf64, RangedCoordf64>>,
    points: &[(f64, f64)],
    m: usize,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let style = marker_style(m);
    match m % 3 {
        0 => chart.draw_series(points.iter().map(|&p| Circle::new(p, 4, style)))?,
        1 => chart.draw_series(points.iter().map(|&p| TriangleMarker::new(p, 6, style)))?,
        _ => chart.draw_series(points.iter().map(|&p| Cross::new(p, 5, style)))?,
    };
    Ok(())
}

/// The same marker in the legend, at pixel `at`.
fn legend_marker<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    m: usize,
) -> DrawResult
where
    DB::ErrorType: 'static,
{
    let style = marker_style(m);
    match m % 3 {
        0 => area.draw(&Circle::new(at, 4, style))?,
        1 => area.draw(&TriangleMarker::new(at, 6, style))?,
        _ => area.draw(&Cross::new(at, 5, style))?,
    }
    Ok(())
}
