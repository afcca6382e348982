//! Acceptance ratio against utilization, one line per method, as SVG and PNG (plotters); for
//! MC-DAG experiments also preemptions and migrations per job of the accepted tables.

use super::config::{Config, Workloads};
use super::resume::{PointResult, QualitySum};
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
    let mut charts = vec![Chart {
        file: "acceptance",
        y_desc: "acceptance ratio",
        value: |p, m| Some(p.accepted[m] as f64 / p.samples as f64),
    }];
    if matches!(config.workloads, Workloads::McDag(_)) {
        charts.push(Chart {
            file: "preemptions",
            y_desc: "preemptions per job (accepted tables)",
            value: |p, m| p.quality.get(m).and_then(QualitySum::preemptions_per_job),
        });
        charts.push(Chart {
            file: "migrations",
            y_desc: "migrations per job (accepted tables)",
            value: |p, m| p.quality.get(m).and_then(QualitySum::migrations_per_job),
        });
    }
    let mut written = Vec::new();
    for chart in &charts {
        let svg = out.join(format!("{}.svg", chart.file));
        let png = out.join(format!("{}.png", chart.file));
        draw(
            SVGBackend::new(&svg, (900, 560)).into_drawing_area(),
            config,
            results,
            labels,
            chart,
        )
        .map_err(|e| Failure::environment(format!("cannot draw {}: {e}", svg.display())))?;
        draw(
            BitMapBackend::new(&png, (900, 560)).into_drawing_area(),
            config,
            results,
            labels,
            chart,
        )
        .map_err(|e| Failure::environment(format!("cannot draw {}: {e}", png.display())))?;
        written.push(svg.display().to_string());
        written.push(png.display().to_string());
    }
    Ok(format!(", {}", written.join(", ")))
}

/// One plot: a value per point and method (`None`: no point drawn there).
struct Chart {
    file: &'static str,
    y_desc: &'static str,
    value: fn(&PointResult, usize) -> Option<f64>,
}

pub(crate) fn register_font() -> bool {
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
    chart_spec: &Chart,
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
        .build_cartesian_2d(x_range, 0.0..y_max(results, labels.len(), chart_spec))?;
    let x_desc = match config.workloads {
        Workloads::McDag(_) => "normalized utilization U / m",
        Workloads::Periodic(_) => "total utilization",
    };
    chart
        .configure_mesh()
        .x_desc(x_desc)
        .y_desc(chart_spec.y_desc)
        .label_style(("sans-serif", 14))
        .draw()?;
    for (m, label) in labels.iter().enumerate() {
        let color = Palette99::pick(m).to_rgba();
        let points: Vec<(f64, f64)> = results
            .iter()
            .filter_map(|p| (chart_spec.value)(p, m).map(|v| (p.utilization, v)))
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

/// The top of the y axis: 1.02 for ratios, a little above the largest value otherwise.
fn y_max(results: &[PointResult], methods: usize, chart: &Chart) -> f64 {
    let largest = results
        .iter()
        .flat_map(|p| (0..methods).filter_map(move |m| (chart.value)(p, m)))
        .fold(1.0, f64::max);
    largest * 1.02
}
