//! The VMM scheduler's costs on real cores, as Xi, Xu, Lu, Phan, Gill,
//! Sokolsky and Lee measure RT-Xen 2.0's in "Real-Time Multi-Core Virtual Machine Scheduling
//! in Xen" (section IV-C, figure 3): per scheduler, the distribution (CDF) of `do_schedule`
//! (here the policy's decision: VMM and guests together, [`DECIDE`]) and of `context_switch`
//! (here a decision's request to the worker's first instruction, [`REQUEST_TO_START`]).
//! `context_saved`, which puts a descheduled VCPU back in rt-global's shared queue after the
//! switch, has no counterpart: kairos's decision sees every VCPU at once, under one lock.
//!
//! The paper's setup scaled to this machine: 4 domains of as many VCPUs as cores, each VCPU a
//! 20 % share (every 10 ms), gEDF guests with a CPU-bound load of 3.1 / 5 of the cores; VCPUs
//! spread evenly over the cores under rt-partition, free under rt-global and credit.

use crate::error::write_output;
use crate::plot::{draw_legend, register_font, trimmed, DrawResult, LegendEntry, PALETTE};
use crate::{Failure, Notify};
use kairos_model::vm_load::check_vm_source;
use kairos_model::{Duration, Format};
use kairos_os::{online_cpus, privilege};
use kairos_policy::policies::hierarchical::VmPlan;
use kairos_rt::dispatcher::{run_user, UserRunConfig, DECIDE, REQUEST_TO_START};
use kairos_rt::measure::HistogramJson;
use kairos_rt::watchdog::RunControl;
use kairos_sim::vm::vm_policy;
use plotters::prelude::*;
use std::path::Path;

#[derive(serde::Serialize)]
pub struct JsonRow<'a> {
    scheduler: &'a str,
    quantity: &'a str,
    #[serde(flatten)]
    histogram: &'a HistogramJson,
}

const SCHEDULERS: [&str; 3] = ["rt-global", "rt-partition", "credit"];
const QUANTITIES: [(&str, &str); 2] = [
    ("do_schedule", DECIDE),
    ("context_switch", REQUEST_TO_START),
];

/// The paper's overhead system on `cores` cores under `scheduler`.
fn system(scheduler: &str, cores: usize) -> String {
    let mut text =
        format!("name = \"vmm-overheads\"\ncores = {cores}\n[vmm]\nscheduler = \"{scheduler}\"\n");
    let load_per_domain = 3.1 / 5.0 * cores as f64 / 4.0;
    for d in 0..4 {
        text.push_str(&format!("[[domains]]\nname = \"d{d}\"\nguest = \"gedf\"\n"));
        for v in 0..cores {
            let cpus = match scheduler {
                "rt-partition" => format!("cpus = [{}]\n", (d * cores + v) % cores),
                _ => String::new(),
            };
            text.push_str(&format!(
                "[[domains.vcpus]]\nname = \"v{v}\"\nbudget = \"2ms\"\nperiod = \"10ms\"\n{cpus}"
            ));
        }
        for t in 0..2 {
            let wcet_us = (load_per_domain / 2.0 * 20_000.0) as u64;
            text.push_str(&format!(
                "[[domains.tasks]]\nname = \"t{t}\"\nwcet = \"{wcet_us}us\"\nperiod = \"20ms\"\n"
            ));
        }
    }
    text
}

/// Each scheduler's decision and context-switch histograms over a run of `duration`.
pub struct Report {
    rows: Vec<Row>,
}

/// Runs the setup under each scheduler for `duration` (1s to 60s).
pub fn run(duration: Duration) -> Result<Report, Failure> {
    let ns = duration.as_nanos();
    if !(1_000_000_000..=60_000_000_000).contains(&ns) {
        return Err(Failure::bad_input("--duration must be between 1s and 60s"));
    }
    privilege::require_rt().map_err(crate::run::platform_failure)?;
    let cores = online_cpus().len().clamp(1, 5);
    let mut rows = Vec::new();
    for scheduler in SCHEDULERS {
        let checked = check_vm_source(&system(scheduler, cores), Format::Toml);
        let system = checked
            .system
            .ok_or_else(|| Failure::bad_input("the overhead system does not check"))?;
        let plan = VmPlan::new(&system).map_err(|r| Failure::bad_input(r.0))?;
        let mut config = UserRunConfig::new(ns);
        config.control = Some(RunControl::new());
        let policy = vm_policy(&plan).map_err(|r| Failure::bad_input(r.0))?;
        let run = run_user(&plan.workload, policy, &config).map_err(crate::run::run_failure)?;
        for (quantity, histogram) in QUANTITIES {
            if let Some(h) = run.result.histograms.get(histogram) {
                rows.push((scheduler, quantity, h.clone()));
            }
        }
    }
    Ok(Report { rows })
}

impl Report {
    /// Writes the CDFs as CSV and, when a font is found, the chart into `dir`.
    pub fn write(&self, dir: &Path, notify: Notify) -> Result<(), Failure> {
        write_output(&dir.join("vmm-overheads.csv"), cdf_csv(&self.rows))?;
        match register_font() {
            true => plot(dir, &self.rows)?,
            false => notify(crate::plot::NO_FONT),
        }
        Ok(())
    }

    /// The rows as `kairos bench vmm --json` prints them.
    pub fn json(&self) -> Vec<JsonRow<'_>> {
        (self.rows.iter())
            .map(|(scheduler, quantity, histogram)| JsonRow {
                scheduler,
                quantity,
                histogram,
            })
            .collect()
    }

    /// The report in text.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let mut out = format!(
            "{:<13} {:<15} {:>8} {:>9} {:>9} {:>9}\n",
            "scheduler", "quantity", "calls", "p50", "p99", "max"
        );
        for (scheduler, quantity, h) in &self.rows {
            let s = &h.summary;
            let us = crate::text::human_ns;
            let _ = writeln!(
                out,
                "{scheduler:<13} {quantity:<15} {:>8} {:>9} {:>9} {:>9}",
                s.count,
                us(s.p50),
                us(s.p99),
                us(s.max)
            );
        }
        out
    }
}

type Row = (&'static str, &'static str, HistogramJson);

/// `(value_ns, fraction at or below)` of a histogram.
fn cdf(h: &HistogramJson) -> Vec<(u64, f64)> {
    let total = h.buckets.iter().map(|&(_, c)| c).sum::<u64>().max(1) as f64;
    let mut seen = 0;
    (h.buckets.iter())
        .map(|&(v, c)| {
            seen += c;
            (v, seen as f64 / total)
        })
        .collect()
}

fn cdf_csv(rows: &[Row]) -> String {
    let mut out = String::from("scheduler,quantity,value_ns,fraction\n");
    for (scheduler, quantity, h) in rows {
        for (v, f) in cdf(h) {
            out.push_str(&format!("{scheduler},{quantity},{v},{f:.6}\n"));
        }
    }
    out
}

fn plot(dir: &Path, rows: &[Row]) -> Result<(), Failure> {
    let path = dir.join("vmm-overheads.svg");
    let area = SVGBackend::new(&path, (1200, 460)).into_drawing_area();
    draw(area, rows)
        .map_err(|e| Failure::environment(format!("cannot draw {}: {e}", path.display())))
}

fn draw<B: DrawingBackend>(area: DrawingArea<B, plotters::coord::Shift>, rows: &[Row]) -> DrawResult
where
    B::ErrorType: 'static,
{
    area.fill(&WHITE)?;
    let (panels, legend) = area.split_horizontally(1200 - 250);
    let halves = panels.split_evenly((1, QUANTITIES.len()));
    for ((quantity, _), panel) in QUANTITIES.iter().zip(&halves) {
        let mine: Vec<&Row> = rows.iter().filter(|r| r.1 == *quantity).collect();
        let x_max =
            (mine.iter().map(|r| r.2.summary.p99).max().unwrap_or(1) as f64 / 1000.0).max(0.001);
        let mut chart = ChartBuilder::on(panel)
            .caption(format!("{quantity} (figure 3)"), ("sans-serif", 16))
            .margin(12)
            .x_label_area_size(40)
            .y_label_area_size(50)
            .build_cartesian_2d(0.0..x_max * 1.05, 0.0..1.0)?;
        chart
            .configure_mesh()
            .x_desc("us (to the largest p99)")
            .y_desc("CDF")
            .x_label_formatter(&|x| trimmed(*x))
            .draw()?;
        for (k, scheduler) in SCHEDULERS.iter().enumerate() {
            let Some(row) = mine.iter().find(|r| r.0 == *scheduler) else {
                continue;
            };
            let points: Vec<(f64, f64)> = cdf(&row.2)
                .into_iter()
                .map(|(v, f)| (v as f64 / 1000.0, f))
                .collect();
            chart.draw_series(LineSeries::new(points, PALETTE[k].stroke_width(2)))?;
        }
    }
    let entries: Vec<LegendEntry> = (SCHEDULERS.iter().enumerate())
        .map(|(k, s)| LegendEntry {
            label: s.to_string(),
            color: PALETTE[k],
            dashed: false,
        })
        .collect();
    draw_legend(&legend, &entries)?;
    area.present()?;
    Ok(())
}
