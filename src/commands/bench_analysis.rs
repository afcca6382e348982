//! `kairos bench --oracles DIR`: the time each analysis test takes on the SchedCAT oracle sets
//! (single thread, per file, as in `../shared/oracles/README.md`), and the speed-up of the
//! parallel batch path with more worker threads.

use crate::args::{CommandResult, Failure};
use kairos_analysis::{registry, SporadicTask};
use rayon::prelude::*;
use serde::Deserialize;
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
                        .map(|[c, t, d]| SporadicTask::new(c * 1000, d * 1000, t * 1000))
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

pub fn run(dir: &Path) -> CommandResult {
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
    println!("single thread, median of {REPEATS} runs, whole file (seconds):");
    print!("{:<48}", "file (sets)");
    for t in &tests {
        print!(" {:>13}", t.name);
    }
    println!();
    for file in &files {
        print!("{:<48}", format!("{} ({})", file.name, file.sets.len()));
        for test in &tests {
            let seconds = median_seconds(|| {
                for (tasks, m) in &file.sets {
                    std::hint::black_box(test.run(tasks, *m));
                }
            });
            print!(" {seconds:>13.4}");
        }
        println!();
    }
    speed_up(&files, &tests)
}

/// Every test on every set, with 1 thread and with all threads.
fn speed_up(files: &[OracleFile], tests: &[&registry::Test]) -> CommandResult {
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
    for (jobs, seconds) in &timings {
        println!(
            "{} sets x {} tests with {jobs} thread(s): {seconds:.4} s (speed-up {:.2}x)",
            all.len(),
            tests.len(),
            one / seconds
        );
    }
    Ok(0)
}
