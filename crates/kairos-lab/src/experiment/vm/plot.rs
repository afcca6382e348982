//! The RT-Xen study's plots: one per figure of the paper, as SVG and PNG, a line per
//! configuration over the study's utilizations.

use super::figures::Figure;
use super::point::StudyPoint;
use super::Study;
use crate::plot::{draw_legend, trimmed, DrawResult, LegendEntry, PALETTE};
use crate::Failure;
use plotters::prelude::*;
use std::path::Path;

const SIZE: (u32, u32) = (1000, 560);
const LEGEND_WIDTH: u32 = 250;

/// Draws figure `f` into `out` as SVG and PNG; gives the names of the files written.
pub(super) fn plot(
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
