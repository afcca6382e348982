//! `kairos platform latency`: the suite once on a quiet machine and, with `--stress`, once more
//! with stress-ng on the other cores; the OS-latency study's table side by side with the deterioration in
//! percent, JSON, CSV and a plot like its figure 3.

use super::table::{self, Deterioration, Row};
use super::{benches, cpus, measure, plot, stressors, Observer, Suite};
use crate::error::write_output;
use crate::{Failure, Notify};
use kairos_os::signals::StopSignals;
use kairos_platform::oslat::Bench;
use kairos_platform::stress::StressSpec;
use serde::Serialize;
use std::path::Path;
use std::time::Instant;

#[derive(Serialize)]
pub struct Report {
    pub cpu: usize,
    /// The stressors and their CPUs, when stressed.
    pub stress: Option<StressJson>,
    pub benchmarks: Vec<Row>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stressed: Option<Vec<Row>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub deterioration: Option<Vec<Deterioration>>,
}

#[derive(Serialize)]
pub struct StressJson {
    pub stressors: Vec<String>,
    pub cpus: Vec<usize>,
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

/// What to measure: the suite, alone and, with `stress` (`STRESSORS[:N]`), under stress on N
/// other cores.
pub struct Request {
    pub suite: Suite,
    pub stress: Option<String>,
}

/// Runs the suite as `request` asks; SIGINT and SIGTERM stop it (nothing is reported).
pub fn run(request: &Request, progress: &Observer) -> Result<Report, Failure> {
    let benches = benches(&request.suite.benches, &Bench::ALL)?;
    let (cpu, others) = cpus(request.suite.cpu)?;
    let spec = request
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
    let calm = measure(&request.suite, &benches, cpu, None, "quiet", 0, progress)?;
    let calm: Vec<Row> = calm.iter().map(Row::of).collect();
    let stressed = match &spec {
        Some(spec) => {
            // Stress slows the suite down: a generous bound, stress-ng is stopped at the end.
            let timeout = 4 * started.elapsed().as_secs() + 60;
            let rows = measure(
                &request.suite,
                &benches,
                cpu,
                Some(spec),
                "stressed",
                timeout,
                progress,
            )?;
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
    Ok(report)
}

impl Report {
    /// Writes `latency.json`, `latency.csv` and the chart into `dir`.
    pub fn write(&self, dir: &Path, notify: Notify) -> Result<(), Failure> {
        let json = serde_json::to_string_pretty(self).expect("report serializes");
        write_output(&dir.join("latency.json"), &json)?;
        let stressed = self.stressed.as_deref();
        write_output(
            &dir.join("latency.csv"),
            table::csv(&self.benchmarks, stressed),
        )?;
        plot::latency(dir, &self.benchmarks, stressed, notify)
    }

    /// The report in text; `written` is the folder the files went to, if any.
    pub fn text(&self, written: Option<&Path>) -> String {
        let stress = self.stress.as_ref().map_or(String::new(), |s| {
            let list = s.stressors.join(",");
            format!("; stressed: stressors {list} on CPU(s) {:?}", s.cpus)
        });
        let mut out = format!(
            "OS latency on CPU {} (SCHED_FIFO, memory locked){stress}\n",
            self.cpu
        );
        out.push_str(&table::text(&self.benchmarks, self.stressed.as_deref()));
        if let Some(dir) = written {
            let files = "latency.json, latency.csv, latency.svg, latency.png";
            out.push_str(&format!("wrote {}: {files}\n", dir.display()));
        }
        out
    }
}
