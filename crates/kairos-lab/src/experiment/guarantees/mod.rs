//! `kairos experiment` on a guarantees study (`study = "guarantees"`): do the sets an analysis
//! accepts hold on this machine's cores? For each utilization, `samples` seeded sets per family
//! (`family`: G-EDF, P-EDF, G-FP on periodic sets, G-RMWP and P-RMWP on imprecise ones) are
//! judged by the family's tests twice, ideally and with the overheads of a measured profile
//! charged (B. B. Brandenburg, "Scheduling and Locking in Multiprocessor Real-Time Operating
//! Systems", PhD dissertation, UNC Chapel Hill, 2011, chapter 3: preemption-centric accounting,
//! `kairos_analysis::overheads`), and every set either accepts runs for `duration` under the
//! family's policy on kairos's user-space dispatcher, with the partition and optional deadlines
//! of the verdict that accepted it (`set`). The VM families (`vm`) split the periodic set
//! over the domains of a hierarchical system, judged by the compositional analysis ideally and
//! overhead-aware, and run on the VCPU budgets of the analysis that accepted it. The
//! mixed-criticality family (`mc`) draws MC-DAG systems, judged by table synthesis without
//! and with the slot guard, and runs their tables on the table dispatcher. A set the
//! overhead-aware analysis accepts that misses a deadline is a broken guarantee; a set only the
//! ideal analysis accepts shows what the overheads the ideal analysis ignores cost.
//!
//! As every experiment: reproducible from the config (the sets of sample `k` at point `p` come
//! from their own seeded stream), resumable by point, progress through the [`Observer`]. Runs on
//! real cores go one after the other on the calibrated cores; a SIGINT or SIGTERM stops the
//! current run cleanly and the study with it, keeping the finished points.

mod config;
mod family;
mod mc;
mod point;
mod profile;
mod report;
mod set;
mod studied;
mod vm;

pub use config::{check, Study};
pub use point::{FamilySums, StudyPoint};
pub use report::Summary;

use super::realtime::calibrated_cores;
use super::resume::Store;
use super::sample::sample_seed;
use super::{Event, Observer, Outcome, Request};
use crate::Failure;
use kairos_os::signals::{self, StopSignals};
use rayon::prelude::*;
use set::{Execution, Judged, Kept, Setup};
use std::path::{Path, PathBuf};
use studied::Studied;

/// Whether `text` is a guarantees study config: its top level has `study = "guarantees"`.
pub fn is_study(text: &str) -> bool {
    text.parse::<toml::Table>()
        .is_ok_and(|t| t.get("study").and_then(|s| s.as_str()) == Some("guarantees"))
}

/// What `kairos check` says of a valid study: one line.
pub fn describe(study: &Study) -> String {
    let families: Vec<&str> = study.families.iter().map(|f| f.name()).collect();
    format!(
        "guarantees study {}: {} point(s) of {} set(s), families {}, {} core(s), accepted sets run {} {}",
        study.name,
        study.points.len(),
        study.samples,
        families.join(", "),
        study.sets.cores,
        study.duration,
        if study.real { "on real cores" } else { "simulated" }
    )
}

/// Runs (or plans) the study of `text`, the config `request` names.
pub(super) fn run(request: &Request, text: &str, observe: Observer) -> Result<Outcome, Failure> {
    let study = load(&request.config, text, observe)?;
    let out =
        (request.out_dir.clone()).unwrap_or_else(|| PathBuf::from("results").join(&study.name));
    if request.dry_run {
        return Ok(Outcome::Planned(report::plan(&study, &out)));
    }
    let earlier = std::fs::read_to_string(out.join("config.toml")).ok();
    let resumed = !request.fresh && earlier.as_deref() == Some(text);
    let mut store: Store<StudyPoint> = Store::open(&out, text, request.fresh, observe)?;
    if !resumed {
        // The sets an earlier study kept belong to its points, not to this one's.
        let _ = std::fs::remove_dir_all(out.join("broken"));
    }
    let todo: Vec<(usize, f64)> = (study.points.iter().copied().enumerate())
        .filter(|&(_, u)| !store.is_done(u))
        .collect();
    let execution = match study.real && !todo.is_empty() {
        true => Execution::Real(calibrated_cores(study.sets.cores)?),
        false => Execution::Simulated,
    };
    let charged = profile::obtain(&study, &out, resumed, observe)?;
    let kernel = profile::obtain_kernel(&study, &out, resumed, observe)?;
    let setup = Setup {
        profile: study.quantile.cap(&charged.overheads),
        kernel_profile: (kernel.as_ref()).map(|k| study.quantile.cap(&k.overheads)),
        quantile: study.quantile,
        duration: study.duration,
        execution,
    };
    if study.real && !todo.is_empty() {
        let notice = format!("estimate: {}", report::estimate(&study, todo.len(), false));
        observe(Event::Notice(&notice));
    }
    let pool = super::realtime::study_pool(study.real, request.jobs)?;
    observe(Event::Start {
        sets: (todo.len() * study.samples * study.families.len()) as u64,
    });
    let signals = study.real.then(StopSignals::install);
    for (index, utilization) in todo {
        observe(Event::Point { utilization });
        let keep = Keep {
            out: &out,
            profile: &charged.file,
            kernel_profile: kernel.as_ref().map(|k| k.file.as_path()),
        };
        let point =
            pool.install(|| run_point(&study, &setup, (index, utilization), keep, observe))?;
        store.record(point)?;
    }
    drop(signals);
    let results = store.results_in_order(&study.points);
    let profiles = (&charged, kernel.as_ref());
    Ok(Outcome::Finished(report::write(
        &study, profiles, results, &out,
    )?))
}

/// The study of `text` (the file `path`), every diagnostic sent to `observe` located; any
/// error refuses it (exit 2).
fn load(path: &Path, text: &str, observe: Observer) -> Result<Study, Failure> {
    let (study, diagnostics) = check(path, text);
    let name = path.display().to_string();
    for d in diagnostics.iter() {
        observe(Event::Notice(&d.render(&name)));
    }
    study.ok_or_else(|| super::decode::refusal(path, &diagnostics))
}

/// Where the sets that broke their guarantee go, and the profiles their reruns charge.
#[derive(Clone, Copy)]
struct Keep<'a> {
    out: &'a Path,
    profile: &'a Path,
    kernel_profile: Option<&'a Path>,
}

/// Every sample of one point under every family, samples in parallel (simulated) or one after
/// the other (on real cores), folded in sample order; each set that broke its guarantee
/// written under `keep.out` ([`keep_broken`]).
fn run_point(
    study: &Study,
    setup: &Setup,
    (index, utilization): (usize, f64),
    keep: Keep,
    observe: Observer,
) -> Result<StudyPoint, Failure> {
    let results: Vec<Result<Vec<Judged>, String>> = (0..study.samples)
        .into_par_iter()
        .map(|sample| {
            let seed = sample_seed(study.seed, index, sample);
            let judge = |&family: &Studied| {
                let judged = family.judge(&study.sets, seed, utilization, setup);
                observe(Event::Done { sets: 1 });
                judged
            };
            study.families.iter().map(judge).collect()
        })
        .collect();
    let mut families: Vec<FamilySums> =
        study.families.iter().map(|&f| FamilySums::new(f)).collect();
    forget_kept(keep.out, study, utilization);
    for (sample, result) in results.into_iter().enumerate() {
        let judged = result.map_err(|e| match signals::received() {
            Some(_) => Failure::environment(e),
            None => Failure::bad_input(format!("U = {utilization}: {e}")),
        })?;
        for ((sums, judged), family) in families.iter_mut().zip(judged).zip(&study.families) {
            if let Some(kept) = &judged.kept {
                let stem = format!("{}-u{utilization}-s{sample}", family.name());
                keep_broken(kept, &keep.out.join("broken").join(stem), keep, observe)?;
            }
            sums.add(judged);
        }
    }
    Ok(StudyPoint {
        utilization,
        families,
    })
}

/// Removes the sets an interrupted run of the point at `utilization` kept: the point runs
/// again, and keeps what it breaks now.
fn forget_kept(out: &Path, study: &Study, utilization: f64) {
    let Ok(entries) = std::fs::read_dir(out.join("broken")) else {
        return;
    };
    let prefixes: Vec<String> = (study.families.iter())
        .map(|f| format!("{}-u{utilization}-s", f.name()))
        .collect();
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        if prefixes.iter().any(|p| name.starts_with(p)) {
            let _ = std::fs::remove_file(entry.path());
        }
    }
}

/// Writes `kept` as `stem` plus each file's extension and says how to run it again.
fn keep_broken(kept: &Kept, stem: &Path, keep: Keep, observe: Observer) -> Result<(), Failure> {
    let folder = stem.parent().expect("a stem under the output folder");
    let unwritable = |e: std::io::Error| Failure::environment(format!("{}: {e}", folder.display()));
    std::fs::create_dir_all(folder).map_err(unwritable)?;
    for (extension, text) in &kept.files {
        let path = PathBuf::from(format!("{}{extension}", stem.display()));
        std::fs::write(&path, text).map_err(unwritable)?;
    }
    let kernel_profile = keep.kernel_profile.unwrap_or(keep.profile);
    let args = (kept.run_args.replace("{stem}", &stem.display().to_string()))
        .replace("{profile}", &keep.profile.display().to_string())
        .replace(set::KERNEL_PROFILE, &kernel_profile.display().to_string());
    let notice = format!(
        "a broken guarantee kept: kairos run {}.toml {args}",
        stem.display()
    );
    let notice = match kept.files.iter().any(|(e, _)| *e == set::EVIDENCE) {
        true => format!(
            "{notice}\n  (what its run saw: {}{})",
            stem.display(),
            set::EVIDENCE
        ),
        false => notice,
    };
    observe(Event::Notice(&notice));
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kept_set_is_written_with_what_its_run_saw_and_the_notice_names_both() {
        let folder = std::env::temp_dir().join(format!("kairos-kept-{}", std::process::id()));
        let stem = folder.join("broken").join("pedf-u0.9-s1");
        let kept = Kept {
            files: vec![
                (".toml", "cores = 1\n".into()),
                (
                    set::EVIDENCE,
                    "deadline misses by cause: 0 host, 1 schedule\n".into(),
                ),
            ],
            run_args: "--policy pedf --overheads {profile}".into(),
        };
        let notices = std::sync::Mutex::new(Vec::new());
        let observe = |e: Event| {
            if let Event::Notice(text) = e {
                notices.lock().unwrap().push(text.to_string());
            }
        };
        let keep = Keep {
            out: &folder,
            profile: Path::new("p.toml"),
            kernel_profile: None,
        };
        keep_broken(&kept, &stem, keep, &observe).unwrap();
        let read = |ext: &str| std::fs::read_to_string(format!("{}{ext}", stem.display()));
        assert_eq!(read(".toml").unwrap(), "cores = 1\n");
        assert!(read(".run.txt").unwrap().contains("1 schedule"));
        let notices = notices.into_inner().unwrap();
        let text = notices.join("\n");
        assert!(
            text.contains(&format!(
                "kairos run {}.toml --policy pedf --overheads p.toml",
                stem.display()
            )),
            "{text}"
        );
        assert!(
            text.contains(&format!("what its run saw: {}.run.txt", stem.display())),
            "{text}"
        );
        std::fs::remove_dir_all(&folder).unwrap();
    }

    #[test]
    fn a_kept_set_of_a_kernel_family_is_rerun_charging_kernel_dispatchs_profile() {
        let folder = std::env::temp_dir().join(format!("kairos-kept-k-{}", std::process::id()));
        let stem = folder.join("broken").join("pfp-kernel-u0.9-s1");
        let kept = Kept {
            files: vec![(".toml", "cores = 1\n".into())],
            run_args: format!("--dispatch kernel --overheads {}", set::KERNEL_PROFILE),
        };
        let notices = std::sync::Mutex::new(Vec::new());
        let observe = |e: Event| {
            if let Event::Notice(text) = e {
                notices.lock().unwrap().push(text.to_string());
            }
        };
        let keep = |kernel_profile| Keep {
            out: &folder,
            profile: Path::new("p.toml"),
            kernel_profile,
        };
        keep_broken(&kept, &stem, keep(Some(Path::new("k.toml"))), &observe).unwrap();
        keep_broken(&kept, &stem, keep(None), &observe).unwrap();
        let notices = notices.into_inner().unwrap();
        let run = format!("kairos run {}.toml --dispatch kernel", stem.display());
        assert!(
            notices[0].contains(&format!("{run} --overheads k.toml")),
            "{notices:?}"
        );
        assert!(
            notices[1].contains(&format!("{run} --overheads p.toml")),
            "{notices:?}"
        );
        std::fs::remove_dir_all(&folder).unwrap();
    }
}
