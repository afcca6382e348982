//! Plots of the platform measurements (plotters, SVG and PNG): the suite's ACET and WCET per
//! benchmark without and with stress on a logarithmic axis (figure 3 of the OS-latency study), and each
//! benchmark's figures against the number of stressed cores with the fitted lines (figure 4),
//! and Multi-scheduling's latency and jitter against best-effort load (its figure 3).

use super::interference::Fit;
use super::sweep::{Config, Point};
use super::table::Row;
use crate::plot::{register_font, DrawResult, NO_FONT, PALETTE};
use crate::{Failure, Notify};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

const SIZE: (u32, u32) = (1100, 560);

/// Draws `draw` into `<stem>.svg` and `<stem>.png` under `dir`.
fn both(
    dir: &Path,
    stem: &str,
    draw: &dyn Fn(DrawingArea<SVGBackend, Shift>) -> DrawResult,
    draw_png: &dyn Fn(DrawingArea<BitMapBackend, Shift>) -> DrawResult,
    notify: Notify,
) -> Result<(), Failure> {
    if !register_font() {
        notify(NO_FONT);
        return Ok(());
    }
    let svg = dir.join(format!("{stem}.svg"));
    let png = dir.join(format!("{stem}.png"));
    let fail =
        |e: Box<dyn std::error::Error>| Failure::environment(format!("cannot draw {stem}: {e}"));
    draw(SVGBackend::new(&svg, SIZE).into_drawing_area()).map_err(fail)?;
    draw_png(BitMapBackend::new(&png, SIZE).into_drawing_area()).map_err(fail)?;
    Ok(())
}

/// `latency.svg/.png`.
pub fn latency(
    dir: &Path,
    calm: &[Row],
    stressed: Option<&[Row]>,
    notify: Notify,
) -> Result<(), Failure> {
    both(
        dir,
        "latency",
        &|a| bars(a, calm, stressed),
        &|a| bars(a, calm, stressed),
        notify,
    )
}

fn bars<B: DrawingBackend>(
    area: DrawingArea<B, Shift>,
    calm: &[Row],
    stressed: Option<&[Row]>,
) -> DrawResult
where
    B::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let us = |ns: u64| (ns.max(1) as f64) / 1000.0;
    let all = calm.iter().chain(stressed.into_iter().flatten());
    let lo = all.clone().map(|r| us(r.acet_ns)).fold(f64::MAX, f64::min) / 3.0;
    let hi = all.map(|r| us(r.wcet_ns)).fold(0.0, f64::max) * 2.0;
    let mut chart = ChartBuilder::on(&area)
        .caption(
            "OS latency per call: ACET and WCET, quiet and stressed",
            ("sans-serif", 20),
        )
        .margin(16)
        .x_label_area_size(40)
        .y_label_area_size(70)
        .build_cartesian_2d(0.0..calm.len() as f64, (lo..hi).log_scale())?;
    chart
        .configure_mesh()
        .disable_x_mesh()
        .x_labels(0)
        .y_desc("µs per sample (log)")
        .label_style(("sans-serif", 14))
        .draw()?;
    // Bars: quiet ACET, stressed ACET, quiet WCET, stressed WCET.
    let series: Vec<(&str, RGBColor, Vec<u64>)> = {
        let pick = |rows: &[Row], f: fn(&Row) -> u64| rows.iter().map(f).collect::<Vec<u64>>();
        let mut s = vec![("ACET, quiet", PALETTE[0], pick(calm, |r| r.acet_ns))];
        if let Some(st) = stressed {
            s.push(("ACET, stressed", PALETTE[1], pick(st, |r| r.acet_ns)));
        }
        s.push(("WCET, quiet", PALETTE[5], pick(calm, |r| r.wcet_ns)));
        if let Some(st) = stressed {
            s.push(("WCET, stressed", PALETTE[3], pick(st, |r| r.wcet_ns)));
        }
        s
    };
    let width = 0.8 / series.len() as f64;
    for (k, (label, color, values)) in series.iter().enumerate() {
        let color = *color;
        let rects = values.iter().enumerate().map(|(i, &v)| {
            let x = i as f64 + 0.1 + k as f64 * width;
            Rectangle::new([(x, lo), (x + width * 0.9, us(v))], color.filled())
        });
        chart
            .draw_series(rects)?
            .label(*label)
            .legend(move |(x, y)| Rectangle::new([(x, y - 5), (x + 12, y + 5)], color.filled()));
    }
    let names = calm.iter().enumerate().map(|(i, r)| {
        Text::new(
            r.name.to_string(),
            (i as f64 + 0.3, lo * 1.15),
            ("sans-serif", 15),
        )
    });
    chart.draw_series(names)?;
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 14))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    area.present()?;
    Ok(())
}

/// `interference.svg/.png`: per benchmark (a panel each), ACET, MCET and WCET against k.
pub fn interference(dir: &Path, ks: &[usize], fits: &[Fit], notify: Notify) -> Result<(), Failure> {
    both(
        dir,
        "interference",
        &|a| lines(a, ks, fits),
        &|a| lines(a, ks, fits),
        notify,
    )
}

fn lines<B: DrawingBackend>(area: DrawingArea<B, Shift>, ks: &[usize], fits: &[Fit]) -> DrawResult
where
    B::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let mut benches: Vec<&str> = fits.iter().map(|f| f.bench).collect();
    benches.dedup();
    let panels = area.split_evenly((1, benches.len().max(1)));
    let k_max = ks.iter().copied().max().unwrap_or(1).max(1) as f64;
    for (panel, bench) in panels.iter().zip(&benches) {
        let mine: Vec<&Fit> = fits.iter().filter(|f| f.bench == *bench).collect();
        let top = mine
            .iter()
            .flat_map(|f| f.values_us.iter())
            .fold(0.0f64, |a, &b| a.max(b))
            * 1.1;
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{bench}: µs vs stressed cores"), ("sans-serif", 18))
            .margin(14)
            .x_label_area_size(40)
            .y_label_area_size(64)
            .build_cartesian_2d(-0.2..k_max + 0.2, 0.0..top.max(1e-3))?;
        chart
            .configure_mesh()
            .x_desc("stressed cores k")
            .y_desc("µs")
            .x_labels(ks.len().clamp(2, 10))
            .label_style(("sans-serif", 13))
            .draw()?;
        for (m, fit) in mine.iter().enumerate() {
            let color = PALETTE[m % PALETTE.len()];
            let points: Vec<(f64, f64)> = ks
                .iter()
                .map(|&k| k as f64)
                .zip(fit.values_us.iter().copied())
                .collect();
            chart
                .draw_series(points.iter().map(|&p| Circle::new(p, 4, color.filled())))?
                .label(format!(
                    "{} (slope {:.2}{} µs/core, R² {:.3})",
                    fit.stat,
                    fit.slope_ns / 1000.0,
                    fit.slope_ci95_ns
                        .map_or(String::new(), |h| format!(" ± {:.2}", h / 1000.0)),
                    fit.r2
                ))
                .legend(move |(x, y)| Circle::new((x + 6, y), 4, color.filled()));
            let line = [0.0, k_max].map(|k| (k, (fit.intercept_ns + fit.slope_ns * k) / 1000.0));
            chart.draw_series(LineSeries::new(line, color.stroke_width(2)))?;
        }
        chart
            .configure_series_labels()
            .background_style(WHITE.mix(0.9))
            .border_style(BLACK)
            .label_font(("sans-serif", 12))
            .position(SeriesLabelPosition::UpperLeft)
            .draw()?;
    }
    area.present()?;
    Ok(())
}

/// `load-sweep.svg/.png`: per configuration, the p99 timer latency (solid) and the p99 period
/// jitter (dashed) against the best-effort load, on a logarithmic axis (Multi-scheduling's figure 3).
pub fn sweep(dir: &Path, points: &[Point], notify: Notify) -> Result<(), Failure> {
    both(
        dir,
        "load-sweep",
        &|a| sweep_lines(a, points),
        &|a| sweep_lines(a, points),
        notify,
    )
}

fn sweep_lines<B: DrawingBackend>(area: DrawingArea<B, Shift>, points: &[Point]) -> DrawResult
where
    B::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let us = |ns: u64| ns.max(100) as f64 / 1000.0;
    let values = points
        .iter()
        .flat_map(|p| [us(p.latency_ns.p99), us(p.period_jitter_ns.p99)]);
    let lo = values.clone().fold(f64::MAX, f64::min) / 2.0;
    let hi = values.fold(0.0, f64::max) * 2.0;
    let mut chart = ChartBuilder::on(&area)
        .caption(
            "p99 timer latency (solid) and period jitter (dashed) vs best-effort load",
            ("sans-serif", 18),
        )
        .margin(16)
        .x_label_area_size(44)
        .y_label_area_size(70)
        .build_cartesian_2d(-2.0..102.0, (lo..hi).log_scale())?;
    chart
        .configure_mesh()
        .x_desc("best-effort CPU load (%)")
        .y_desc("µs (log)")
        .label_style(("sans-serif", 14))
        .draw()?;
    for (m, config) in [Config::Standard, Config::Fifo, Config::Partitioned]
        .into_iter()
        .enumerate()
    {
        let color = PALETTE[m];
        let mine: Vec<&Point> = points.iter().filter(|p| p.config == config).collect();
        let latency: Vec<(f64, f64)> = mine
            .iter()
            .map(|p| (f64::from(p.load_pct), us(p.latency_ns.p99)))
            .collect();
        let jitter: Vec<(f64, f64)> = mine
            .iter()
            .map(|p| (f64::from(p.load_pct), us(p.period_jitter_ns.p99)))
            .collect();
        chart
            .draw_series(LineSeries::new(latency.clone(), color.stroke_width(2)))?
            .label(config.label())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 16, y)], color.stroke_width(2)));
        chart.draw_series(latency.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
        chart.draw_series(DashedLineSeries::new(jitter, 6, 4, color.stroke_width(2)))?;
    }
    chart
        .configure_series_labels()
        .background_style(WHITE.mix(0.9))
        .border_style(BLACK)
        .label_font(("sans-serif", 13))
        .position(SeriesLabelPosition::UpperLeft)
        .draw()?;
    area.present()?;
    Ok(())
}
