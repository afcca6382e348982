//! The time each analysis test takes on the SchedCAT oracle sets
//! (single thread, per file, as SchedCAT's own timings are given; the files are in
//! `crates/kairos-analysis/tests/data/schedcat/`), and the speed-up of the
//! parallel batch path with more worker threads.

use crate::Failure;
use kairos_analysis::{registry, SporadicTask};
use kairos_model::Duration;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::path::Path;
use std::time::Instant as WallClock;

/// The tests SchedCAT's README gives timings for, by our name.
const TIMED_TESTS: [&str; 6] = ["gfb", "bak", "bcl", "bcl-iterative", "gedf-rta", "gfp-bc"];

/// Timed repetitions per (file, test); the median is reported.
const REPEATS: usize = 5;

#[derive(Deserialize)]
struct OracleLine {
    m: usize,
    tasks: Vec<[u64; 3]>,
}

struct OracleFile {
    name: String,
    sets: Vec<(Vec<SporadicTask>, usize)>,
}

fn load(dir: &Path) -> Result<Vec<OracleFile>, Failure> {
    let mut paths: Vec<_> = std::fs::read_dir(dir)
        .map_err(|e| Failure::bad_input(format!("cannot read {}: {e}", dir.display())))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "jsonl"))
        .collect();
    paths.sort();
    if paths.is_empty() {
        return Err(Failure::bad_input(format!(
            "{} holds no oracle file (*.jsonl); kairos ships SchedCAT's in crates/kairos-analysis/tests/data/schedcat",
            dir.display()
        )));
    }
    paths
        .iter()
        .map(|path| {
            let text = std::fs::read_to_string(path)
                .map_err(|e| Failure::bad_input(format!("{}: {e}", path.display())))?;
            let sets = text
                .lines()
                .filter(|l| !l.trim().is_empty())
                .map(|line| {
                    let o: OracleLine = serde_json::from_str(line)
                        .map_err(|e| Failure::bad_input(format!("{}: {e}", path.display())))?;
                    // Oracle tuples are [C, T, D] in microseconds.
                    let tasks = o
                        .tasks
                        .iter()
                        .map(|&[c, t, d]| {
                            let us = Duration::from_micros;
                            SporadicTask::new(us(c), us(d), us(t))
                        })
                        .collect();
                    Ok((tasks, o.m))
                })
                .collect::<Result<Vec<_>, Failure>>()?;
            Ok(OracleFile {
                name: path
                    .file_stem()
                    .unwrap_or_default()
                    .to_string_lossy()
                    .into_owned(),
                sets,
            })
        })
        .collect()
}

fn median_seconds(mut run: impl FnMut()) -> f64 {
    let mut times: Vec<f64> = (0..REPEATS)
        .map(|_| {
            let start = WallClock::now();
            run();
            start.elapsed().as_secs_f64()
        })
        .collect();
    times.sort_by(f64::total_cmp);
    times[REPEATS / 2]
}

/// The timings (`kairos bench --oracles --json`).
#[derive(Serialize)]
pub struct Report {
    pub repeats: usize,
    /// The tests timed, in column order.
    #[serde(skip)]
    pub tests: Vec<String>,
    pub files: Vec<FileTimes>,
    pub batch: Vec<BatchTime>,
}

#[derive(Serialize)]
pub struct FileTimes {
    pub file: String,
    pub sets: usize,
    /// Median seconds per test over the whole file, by test name.
    pub seconds: BTreeMap<String, f64>,
}

#[derive(Serialize)]
pub struct BatchTime {
    pub threads: usize,
    pub seconds: f64,
    pub speedup: f64,
}

/// Times the tests on every oracle file in `dir`.
pub fn run(dir: &Path) -> Result<Report, Failure> {
    let files = load(dir)?;
    let tests: Vec<&registry::Test> = TIMED_TESTS
        .iter()
        .filter_map(|n| registry::find(n))
        .collect();
    if tests.is_empty() {
        return Err(Failure::bad_input(
            "none of the timed tests is available in this build",
        ));
    }
    Ok(Report {
        repeats: REPEATS,
        tests: tests.iter().map(|t| t.name.clone()).collect(),
        files: files.iter().map(|f| time_file(f, &tests)).collect(),
        batch: speed_up(&files, &tests)?,
    })
}

fn time_file(file: &OracleFile, tests: &[&registry::Test]) -> FileTimes {
    let seconds = tests
        .iter()
        .map(|test| {
            let seconds = median_seconds(|| {
                for (tasks, m) in &file.sets {
                    std::hint::black_box(test.run(tasks, *m));
                }
            });
            (test.name.clone(), seconds)
        })
        .collect();
    FileTimes {
        file: file.name.clone(),
        sets: file.sets.len(),
        seconds,
    }
}

impl Report {
    /// The timings in text, as `kairos bench --oracles` prints them.
    pub fn text(&self) -> String {
        use std::fmt::Write;
        let mut out = format!("single thread, median of {REPEATS} runs, whole file (seconds):\n");
        let _ = write!(out, "{:<48}", "file (sets)");
        for t in &self.tests {
            let _ = write!(out, " {t:>13}");
        }
        out.push('\n');
        for file in &self.files {
            let _ = write!(out, "{:<48}", format!("{} ({})", file.file, file.sets));
            for test in &self.tests {
                let _ = write!(out, " {:>13.4}", file.seconds[test]);
            }
            out.push('\n');
        }
        let sets: usize = self.files.iter().map(|f| f.sets).sum();
        for batch in &self.batch {
            let _ = writeln!(
                out,
                "{sets} sets x {} tests with {} thread(s): {:.4} s (speed-up {:.2}x)",
                self.tests.len(),
                batch.threads,
                batch.seconds,
                batch.speedup
            );
        }
        out
    }
}

/// Every test on every set, with 1 thread and with all threads.
fn speed_up(files: &[OracleFile], tests: &[&registry::Test]) -> Result<Vec<BatchTime>, Failure> {
    let all: Vec<&(Vec<SporadicTask>, usize)> = files.iter().flat_map(|f| &f.sets).collect();
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut timings = Vec::new();
    for jobs in [1, threads] {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(jobs)
            .build()
            .map_err(|e| Failure::environment(e.to_string()))?;
        let seconds = median_seconds(|| {
            pool.install(|| {
                all.par_iter().for_each(|(tasks, m)| {
                    for test in tests {
                        std::hint::black_box(test.run(tasks, *m));
                    }
                })
            })
        });
        timings.push((jobs, seconds));
    }
    let (_, one) = timings[0];
    Ok(timings
        .into_iter()
        .map(|(threads, seconds)| BatchTime {
            threads,
            seconds,
            speedup: one / seconds,
        })
        .collect())
}
