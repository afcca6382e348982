//! `manage.svg/.png`: per period, T_RT with its prediction and the target (the study's
//! equation 3 as it ran), and below it each best-effort core's S_BE as a share of P.

use super::report::Report;
use crate::plot::{register_font, DrawResult, NO_FONT, PALETTE};
use crate::{Failure, Notify};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

const SIZE: (u32, u32) = (1100, 720);

pub fn draw(dir: &Path, report: &Report, notify: Notify) -> Result<(), Failure> {
    if !register_font() {
        notify(NO_FONT);
        return Ok(());
    }
    let fail =
        |e: Box<dyn std::error::Error>| Failure::environment(format!("cannot draw manage: {e}"));
    panels(
        SVGBackend::new(&dir.join("manage.svg"), SIZE).into_drawing_area(),
        report,
    )
    .map_err(fail)?;
    panels(
        BitMapBackend::new(&dir.join("manage.png"), SIZE).into_drawing_area(),
        report,
    )
    .map_err(fail)
}

fn panels<B: DrawingBackend>(area: DrawingArea<B, Shift>, report: &Report) -> DrawResult
where
    B::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let (top, bottom) = area.split_vertically(SIZE.1 * 3 / 5);
    times(top, report)?;
    shares(bottom, report)?;
    area.present()?;
    Ok(())
}

fn times<B: DrawingBackend>(area: DrawingArea<B, Shift>, report: &Report) -> DrawResult
where
    B::ErrorType: 'static,
{
    let periods = &report.outcome.periods;
    let ms = |d: kairos_model::Duration| d.as_millis_f64();
    let target = ms(report.system.target());
    let hi = periods
        .iter()
        .map(|r| ms(r.job.execution).max(ms(r.predicted)))
        .fold(target, f64::max)
        * 1.1;
    let n = periods.len().max(1) as f64;
    let mut chart = ChartBuilder::on(&area)
        .caption(
            "T_RT per period: measured, predicted, target",
            ("sans-serif", 20),
        )
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..n, 0.0..hi)?;
    chart
        .configure_mesh()
        .y_desc("ms")
        .label_style(("sans-serif", 13))
        .draw()?;
    let line = |f: &dyn Fn(&kairos_platform::manage::manager::PeriodRecord) -> f64| {
        periods
            .iter()
            .enumerate()
            .map(|(i, r)| (i as f64, f(r)))
            .collect::<Vec<_>>()
    };
    chart
        .draw_series(LineSeries::new(line(&|r| ms(r.job.execution)), PALETTE[0]))?
        .label("T_RT measured")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], PALETTE[0]));
    chart
        .draw_series(LineSeries::new(line(&|r| ms(r.predicted)), PALETTE[1]))?
        .label("predicted")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], PALETTE[1]));
    chart
        .draw_series(LineSeries::new([(0.0, target), (n, target)], BLACK))?
        .label("target (D - margin)")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 16, y)], BLACK));
    chart
        .configure_series_labels()
        .background_style(WHITE)
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .draw()?;
    Ok(())
}

fn shares<B: DrawingBackend>(area: DrawingArea<B, Shift>, report: &Report) -> DrawResult
where
    B::ErrorType: 'static,
{
    let periods = &report.outcome.periods;
    let p = report.system.manager.period.as_nanos() as f64;
    let n = periods.len().max(1) as f64;
    let mut chart = ChartBuilder::on(&area)
        .caption("S_BE per best-effort core, % of P", ("sans-serif", 18))
        .margin(12)
        .x_label_area_size(30)
        .y_label_area_size(60)
        .build_cartesian_2d(0.0..n, 0.0..105.0)?;
    chart
        .configure_mesh()
        .x_desc("period z")
        .y_desc("%")
        .label_style(("sans-serif", 13))
        .draw()?;
    for (i, core) in report.outcome.be_cores.iter().enumerate() {
        let color = PALETTE[(i + 2) % PALETTE.len()];
        let points: Vec<(f64, f64)> = periods
            .iter()
            .enumerate()
            .map(|(z, r)| (z as f64, 100.0 * r.be_share[i].as_nanos() as f64 / p))
            .collect();
        chart
            .draw_series(LineSeries::new(points, color))?
            .label(format!("core {core}"))
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color));
    }
    chart
        .configure_series_labels()
        .background_style(WHITE)
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .draw()?;
    Ok(())
}
