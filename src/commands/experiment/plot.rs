//! Acceptance ratio against utilization, one line per method, as SVG and PNG (plotters).

use super::config::Config;
use super::resume::PointResult;
use crate::args::Failure;
use plotters::prelude::*;
use std::path::Path;

/// Fonts tried for text, in order (Debian's fonts-dejavu-core provides the first).
const FONT_FILES: [&str; 2] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
];

/// Writes `acceptance.svg` and `acceptance.png`; returns what to tell the user.
pub fn write_plots(
    out: &Path,
    config: &Config,
    results: &[PointResult],
    labels: &[String],
) -> Result<String, Failure> {
    if results.is_empty() {
        return Ok(String::new());
    }
    if !register_font() {
        return Ok(" (no plot: no DejaVuSans.ttf found; install fonts-dejavu-core)".into());
    }
    let svg = out.join("acceptance.svg");
    let png = out.join("acceptance.png");
    draw(
        SVGBackend::new(&svg, (900, 560)).into_drawing_area(),
        config,
        results,
        labels,
    )
    .map_err(|e| Failure::environment(format!("cannot draw {}: {e}", svg.display())))?;
    draw(
        BitMapBackend::new(&png, (900, 560)).into_drawing_area(),
        config,
        results,
        labels,
    )
    .map_err(|e| Failure::environment(format!("cannot draw {}: {e}", png.display())))?;
    Ok(format!(", {} and {}", svg.display(), png.display()))
}

fn register_font() -> bool {
    FONT_FILES.iter().any(|path| {
        std::fs::read(path).is_ok_and(|bytes| {
            // plotters keeps fonts for the life of the process; one leak per run.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok()
        })
    })
}

fn draw<B: DrawingBackend>(
    area: DrawingArea<B, plotters::coord::Shift>,
    config: &Config,
    results: &[PointResult],
    labels: &[String],
) -> Result<(), Box<dyn std::error::Error>>
where
    B::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let (from, to) = (
        results[0].utilization,
        results[results.len() - 1].utilization,
    );
    let x_range = if to > from {
        from..to
    } else {
        from - 0.5..to + 0.5
    };
    let title = format!(
        "{} — {} cores, {} sets per point",
        config.name, config.cores, config.samples
    );
    let mut chart = ChartBuilder::on(&area)
        .caption(title, ("sans-serif", 22))
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(56)
        .build_cartesian_2d(x_range, 0.0..1.02)?;
    chart
        .configure_mesh()
        .x_desc("total utilization")
        .y_desc("acceptance ratio")
        .label_style(("sans-serif", 14))
        .draw()?;
    for (m, label) in labels.iter().enumerate() {
        let color = Palette99::pick(m).to_rgba();
        let points: Vec<(f64, f64)> = results
            .iter()
            .map(|p| (p.utilization, p.accepted[m] as f64 / p.samples as f64))
            .collect();
        chart
            .draw_series(LineSeries::new(points.clone(), color.stroke_width(2)))?
            .label(label.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 18, y)], color.stroke_width(2))
            });
        chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .position(SeriesLabelPosition::UpperRight)
        .draw()?;
    area.present()?;
    Ok(())
}
