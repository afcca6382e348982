//! `kairos platform latency`: the suite once on a quiet machine and, with `--stress`, once more
//! with stress-ng on the other cores; the OS-latency study's table side by side with the deterioration in
//! percent, JSON, CSV and a plot like its figure 3.

use super::table::{self, Deterioration, Row};
use super::{benches, cpus, measure, plot, stressors, LatencyArgs};
use crate::args::{write_output, CommandResult, Failure};
use kairos_os::signals::StopSignals;
use kairos_platform::oslat::Bench;
use kairos_platform::stress::StressSpec;
use serde::Serialize;
use std::time::Instant;

#[derive(Serialize)]
struct Report {
    cpu: usize,
    /// The stressors and their CPUs, when stressed.
    stress: Option<StressJson>,
    benchmarks: Vec<Row>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stressed: Option<Vec<Row>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    deterioration: Option<Vec<Deterioration>>,
}

#[derive(Serialize)]
struct StressJson {
    stressors: Vec<String>,
    cpus: Vec<usize>,
}

/// `STRESSORS[:N]` on the first N of `others` (default: all of them).
fn stress_spec(text: &str, others: &[usize]) -> Result<StressSpec, Failure> {
    let (list, count) = match text.split_once(':') {
        Some((list, n)) => {
            let n: usize = n.parse().map_err(|_| {
                Failure::bad_input(format!("--stress {text}: N after ':' is a number of cores"))
            })?;
            (list, n)
        }
        None => (text, others.len()),
    };
    if others.is_empty() {
        return Err(Failure::bad_input(
            "--stress needs another CPU than the measured one: this process has one CPU",
        ));
    }
    if count == 0 || count > others.len() {
        return Err(Failure::bad_input(format!(
            "--stress {text}: between 1 and {} other cores here",
            others.len()
        )));
    }
    StressSpec::parse(&stressors(list)?, others[..count].to_vec()).map_err(Failure::bad_input)
}

pub fn run(args: &LatencyArgs) -> CommandResult {
    let benches = benches(&args.suite.bench, &Bench::ALL)?;
    let (cpu, others) = cpus(args.suite.cpu)?;
    let spec = args
        .stress
        .as_deref()
        .map(|s| stress_spec(s, &others))
        .transpose()?;
    if spec.as_ref().is_some_and(StressSpec::needs_stress_ng)
        && !kairos_platform::stress::available()
    {
        return Err(Failure::environment(
            "--stress needs stress-ng (Debian: apt install stress-ng)",
        ));
    }
    let _signals = StopSignals::install();
    let started = Instant::now();
    let calm = measure(&args.suite, &benches, cpu, None, "quiet", 0)?;
    let calm: Vec<Row> = calm.iter().map(Row::of).collect();
    let stressed = match &spec {
        Some(spec) => {
            // Stress slows the suite down: a generous bound, stress-ng is stopped at the end.
            let timeout = 4 * started.elapsed().as_secs() + 60;
            let rows = measure(&args.suite, &benches, cpu, Some(spec), "stressed", timeout)?;
            Some(rows.iter().map(Row::of).collect::<Vec<Row>>())
        }
        None => None,
    };
    let report = Report {
        cpu,
        stress: spec.as_ref().map(|s| StressJson {
            stressors: s.stressors.clone(),
            cpus: s.cpus.clone(),
        }),
        deterioration: stressed.as_deref().map(|s| table::deterioration(&calm, s)),
        benchmarks: calm,
        stressed,
    };
    let json = serde_json::to_string_pretty(&report).expect("report serializes");
    if let Some(dir) = &args.suite.output.out_dir {
        write_output(&dir.join("latency.json"), &json)?;
        write_output(
            &dir.join("latency.csv"),
            table::csv(&report.benchmarks, report.stressed.as_deref()),
        )?;
        plot::latency(dir, &report.benchmarks, report.stressed.as_deref())?;
    }
    match args.suite.output.json {
        true => println!("{json}"),
        false => {
            let stress = report.stress.as_ref().map_or(String::new(), |s| {
                format!(
                    "; stressed: stressors {} on CPU(s) {:?}",
                    s.stressors.join(","),
                    s.cpus
                )
            });
            println!("OS latency on CPU {cpu} (SCHED_FIFO, memory locked){stress}");
            print!(
                "{}",
                table::text(&report.benchmarks, report.stressed.as_deref())
            );
            if let Some(dir) = &args.suite.output.out_dir {
                println!(
                    "wrote {}: latency.json, latency.csv, latency.svg, latency.png",
                    dir.display()
                );
            }
        }
    }
    Ok(0)
}
