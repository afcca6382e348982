//! The tour behind `kairos demo`: every stage kairos has, on embedded inputs, in seconds: a
//! periodic workload checked, analysed and simulated under every policy (`periodic`); a
//! mixed-criticality DAG system from its tables to a real run (`mc`); imprecise tasks under
//! the RMWP family (`imprecise`); a VM system's interfaces and two-level schedule (`vm`);
//! this machine's OS latencies (`platform`); and the HTML report of the first workload
//! (`report`).
//!
//! Each stage says its text line by line and adds its figures to the [`Tour`], so a script
//! reads the same facts a person reads: the command line prints the lines, or with `--json`
//! the tour.

mod imprecise;
mod mc;
mod periodic;
mod platform;
mod report;
mod tour;
mod vm;

pub use tour::{Figures, Ordered, RealRun, Stage};

use crate::error::write_output;
use crate::{Failure, Notify};
use serde::Serialize;
use std::path::{Path, PathBuf};

/// Where the tour writes its inputs, Gantt charts, traces, tables and the HTML report.
#[derive(Clone, Debug)]
pub struct Request {
    pub out_dir: PathBuf,
}

/// What the tour showed, as `kairos demo --json` prints it.
#[derive(Serialize)]
pub struct Tour {
    pub out_dir: String,
    pub stages: Vec<Stage>,
    /// The files worth opening, each with what it shows.
    pub files: Vec<String>,
}

/// The tour as it goes: where files go, what has been shown, and where lines go.
struct Demo<'a> {
    out_dir: PathBuf,
    stages: Vec<Stage>,
    files: Vec<String>,
    /// The text a person reads, one line per call.
    say: Notify<'a>,
    /// Notices and warnings of the stages the tour calls.
    notify: Notify<'a>,
}

impl Demo<'_> {
    /// Says the heading of the next stage, `name`.
    fn stage(&mut self, name: &'static str, heading: &str) {
        let line = format!("\n== {}. {name}: {heading}", self.stages.len() + 1);
        self.say(line);
    }

    /// Records the figures of the stage `name` last announced.
    fn record(&mut self, name: &'static str, figures: Figures) {
        self.stages.push(Stage {
            stage: name,
            figures,
        });
    }

    /// A line of the text.
    fn say(&mut self, line: impl AsRef<str>) {
        (self.say)(line.as_ref());
    }

    /// A block of whole lines of the text, line by line.
    fn say_block(&mut self, block: &str) {
        for line in block.lines() {
            (self.say)(line);
        }
    }

    /// `contents` written to `name` in the output folder; its path.
    fn write(&self, name: &str, contents: impl AsRef<[u8]>) -> Result<PathBuf, Failure> {
        let path = self.out_dir.join(name);
        write_output(&path, contents)?;
        Ok(path)
    }

    /// A file worth opening, listed at the end with what it shows.
    fn file(&mut self, path: &Path, what: &str) {
        let shown = match what.is_empty() {
            true => path.display().to_string(),
            false => format!("{} ({what})", path.display()),
        };
        self.files.push(shown);
    }

    fn out_dir(&self) -> &Path {
        &self.out_dir
    }
}

/// Runs every stage in turn, writing its files under `request.out_dir`; the text goes line by
/// line to `say`, the stages' notices to `notify`.
pub fn run(request: &Request, say: Notify, notify: Notify) -> Result<Tour, Failure> {
    let mut demo = Demo {
        out_dir: request.out_dir.clone(),
        stages: Vec::new(),
        files: Vec::new(),
        say,
        notify,
    };
    let workload = periodic::run(&mut demo)?;
    let system = mc::run(&mut demo)?;
    mc::run_for_real(&mut demo, &system)?;
    imprecise::run(&mut demo)?;
    vm::run(&mut demo)?;
    platform::run(&mut demo)?;
    report::run(&mut demo, &workload)?;
    finish(&mut demo);
    Ok(Tour {
        out_dir: demo.out_dir.display().to_string(),
        stages: demo.stages,
        files: demo.files,
    })
}

/// The files to open, and what to try next.
fn finish(demo: &mut Demo) {
    demo.say("\nFiles: Gantt charts and the report open in a browser, traces in ui.perfetto.dev");
    for file in demo.files.clone() {
        demo.say(format!("  {file}"));
    }
    let next = format!(
        "Next: kairos simulate {}/workload.toml --policy gfp --gantt gfp.svg",
        demo.out_dir.display()
    );
    demo.say(next);
}
