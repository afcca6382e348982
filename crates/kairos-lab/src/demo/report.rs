//! The demo's last stage: the HTML page `kairos report` writes for the demo workload (its
//! analysis with evidence, each policy's simulation with a Gantt chart and response times),
//! one self-contained file to open or share.

use super::{Demo, Figures};
use crate::report::{build, Request, Written};
use crate::Failure;
use kairos_model::input::Input;
use kairos_model::{Instant, Workload};
use std::path::Path;

pub fn run(demo: &mut Demo, workload: &Workload) -> Result<(), Failure> {
    demo.stage(
        "report",
        "one HTML page of the demo workload (kairos report)",
    );
    let request = Request {
        file: Path::new("workload.toml"),
        policies: None,
        duration: None,
        gantt_window: (Instant::ZERO, Instant::from_nanos(100_000_000)),
        seed: 0,
        overrun: 0.0,
        max_events: crate::simulate::budget::DEFAULT_MAX_TRACE_EVENTS,
    };
    let page = build(&request, Input::Workload(workload.clone()), demo.notify)?;
    let path = demo.write("report.html", &page.html)?;
    let written = Written {
        out: path.display().to_string(),
        file: "workload.toml".into(),
        kind: page.kind,
        duration_ns: page.duration_ns,
        runs: page.runs,
    };
    demo.say(format!("  {}", crate::report::headline(&written)));
    demo.file(&path, "open in a browser");
    demo.record("report", Figures::Report { report: written });
    Ok(())
}
