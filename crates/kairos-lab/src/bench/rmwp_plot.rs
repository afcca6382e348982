//! The plots of `kairos bench rmwp`, laid out like figures 6 to 10 of Chishiro and Yamasaki's
//! evaluation: per quantity, the average (left) and the maximum (right) cost in microseconds
//! against the number of tasks, one line per policy.

use super::rmwp::{Row, POLICIES, QUANTITIES};
use crate::plot::{register_font, DrawResult};
use crate::{Failure, Notify};
use plotters::prelude::*;
use std::path::Path;

const SIZE: (u32, u32) = (1000, 420);
const COLOURS: [RGBColor; 4] = [
    RGBColor(31, 119, 180),
    RGBColor(214, 39, 40),
    RGBColor(44, 160, 44),
    RGBColor(148, 103, 189),
];

/// Writes `rmwp-<quantity>.svg` per quantity; returns the file names.
pub fn write(
    dir: &Path,
    rows: &[Row],
    tasks: &[usize],
    notify: Notify,
) -> Result<Vec<String>, Failure> {
    std::fs::create_dir_all(dir)
        .map_err(|e| Failure::environment(format!("cannot create {}: {e}", dir.display())))?;
    if !register_font() {
        notify("notice: no font found: the plots have no text");
    }
    let mut files = Vec::new();
    for &(quantity, _, figure) in &QUANTITIES {
        let name = format!("rmwp-{quantity}.svg");
        let path = dir.join(&name);
        let area = SVGBackend::new(&path, SIZE).into_drawing_area();
        draw(area, rows, tasks, quantity, figure)
            .map_err(|e| Failure::environment(format!("cannot draw {}: {e}", path.display())))?;
        files.push(name);
    }
    Ok(files)
}

fn draw<B: DrawingBackend>(
    area: DrawingArea<B, plotters::coord::Shift>,
    rows: &[Row],
    tasks: &[usize],
    quantity: &str,
    figure: u8,
) -> DrawResult
where
    B::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let title = format!("{quantity} (the paper's figure {figure})");
    let area = area.titled(&title, ("sans-serif", 20))?;
    let (left, right) = area.split_horizontally(SIZE.0 / 2);
    panel(&left, rows, tasks, quantity, "average", |r| r.mean_ns)?;
    panel(&right, rows, tasks, quantity, "maximum", |r| r.max_ns)?;
    area.present()?;
    Ok(())
}

fn panel<B: DrawingBackend>(
    area: &DrawingArea<B, plotters::coord::Shift>,
    rows: &[Row],
    tasks: &[usize],
    quantity: &str,
    what: &str,
    value: fn(&Row) -> u64,
) -> DrawResult
where
    B::ErrorType: 'static,
{
    let mine: Vec<&Row> = rows.iter().filter(|r| r.quantity == quantity).collect();
    let top = mine.iter().map(|r| value(r)).max().unwrap_or(1) as f64 / 1000.0;
    let x_max = tasks.len().max(2) as f64 - 1.0;
    let mut chart = ChartBuilder::on(area)
        .caption(what, ("sans-serif", 16))
        .margin(12)
        .x_label_area_size(40)
        .y_label_area_size(56)
        .build_cartesian_2d(-0.2..x_max + 0.2, 0.0..top * 1.1 + 1e-3)?;
    chart
        .configure_mesh()
        .x_desc("number of tasks")
        .y_desc("us")
        .x_labels(tasks.len().max(2))
        .x_label_formatter(&|x| {
            let i = x.round() as usize;
            tasks.get(i).map_or(String::new(), |n| n.to_string())
        })
        .light_line_style(RGBColor(238, 238, 238))
        .draw()?;
    for (k, kind) in POLICIES.iter().enumerate() {
        let points: Vec<(f64, f64)> = (tasks.iter().enumerate())
            .filter_map(|(i, &n)| {
                let row = mine
                    .iter()
                    .find(|r| r.policy == kind.cli_name() && r.tasks == n)?;
                Some((i as f64, value(row) as f64 / 1000.0))
            })
            .collect();
        if points.is_empty() {
            continue;
        }
        let colour = COLOURS[k];
        chart
            .draw_series(LineSeries::new(points.clone(), colour.stroke_width(2)))?
            .label(kind.cli_name())
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 18, y)], colour));
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, colour.filled())))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.8))
        .border_style(BLACK)
        .draw()?;
    Ok(())
}
