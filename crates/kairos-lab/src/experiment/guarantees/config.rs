//! The guarantees study's config (`study = "guarantees"`), read like every experiment config
//! ([`crate::experiment::decode`]): every problem at once, each with its `line:column`, field
//! path and a hint, as `kairos check` and `kairos experiment` report them. Every key but
//! `study` has a default: the 2-core study of `examples/experiments/guarantees.toml`.

use super::family::Sets;
use super::studied::Studied;
use crate::experiment::config::UtilizationRange;
use crate::experiment::decode::study::check_with;
use crate::experiment::decode::Reader;
use crate::run::MAX_RUN_DURATION;
use kairos_analysis::overheads::Quantile;
use kairos_model::decode::ZeroAllowed;
use kairos_model::document::{Node, Value};
use kairos_model::{Diagnostics, Duration, Overheads};
use std::path::{Path, PathBuf};

const KEYS: [&str; 13] = [
    "study",
    "name",
    "execution",
    "seed",
    "cores",
    "samples",
    "families",
    "tasks",
    "periods",
    "duration",
    "overheads",
    "quantile",
    "utilization",
];

/// Where the overheads the analysis charges come from.
pub enum Profile {
    /// `overheads = "FILE"` (relative to the config's folder), read with the config.
    Given {
        path: PathBuf,
        overheads: Box<Overheads>,
    },
    /// Measured on this machine at the study's start ([`super::profile`]).
    Measured,
}

/// A study whose every key was understood.
pub struct Study {
    pub name: String,
    pub seed: u64,
    pub samples: usize,
    pub points: Vec<f64>,
    pub families: Vec<Studied>,
    pub sets: Sets,
    /// Each accepted set's run.
    pub duration: Duration,
    pub profile: Profile,
    pub quantile: Quantile,
    /// On real cores; otherwise in the simulator.
    pub real: bool,
}

impl Study {
    /// Whether a family of the study runs on the kernel's scheduler.
    pub fn has_kernel_family(&self) -> bool {
        self.families.iter().any(|f| f.kernel())
    }

    /// Whether a family of the study runs on kairos's user-space dispatcher.
    pub fn has_user_family(&self) -> bool {
        self.families.iter().any(|f| !f.kernel())
    }
}

/// Reads the config `source` (the file `path`): the study when there is no error, and every
/// problem with its position.
pub fn check(path: &Path, source: &str) -> (Option<Study>, Diagnostics) {
    check_with(source, |r, root| read(r, root, path))
}

/// The study as far as it reads; its problems are in `r`'s diagnostics.
fn read(r: &mut Reader, root: &Node, path: &Path) -> Option<Study> {
    let entries = r.0.table(root, "")?;
    r.0.reject_unknown_keys(entries, &KEYS, "");
    let hint = "study = \"guarantees\"";
    let study = r.required(entries, "study", root.position, hint, |r, n, p| {
        r.choice(n, p, &["guarantees"], hint)
    });
    let stem = path.file_stem().map(|s| s.to_string_lossy().into_owned());
    let name = r.folder_name(entries).or(stem);
    let execution = r.top(entries, "execution", |r, n, p| {
        let hint = "execution = \"real\" or \"simulated\"";
        r.choice(n, p, &["real", "simulated"], hint)
    });
    let seed = r.top(entries, "seed", |r, n, p| r.whole(n, p));
    let cores = r.top(entries, "cores", |r, n, p| r.positive(n, p));
    let samples = r.top(entries, "samples", |r, n, p| r.positive(n, p));
    let real = execution.as_deref().is_none_or(|e| e == "real");
    let families = r.top(entries, "families", |r, n, p| families(r, n, p, real));
    let tasks = r.top(entries, "tasks", |r, n, p| r.positive(n, p));
    let periods = r.top(entries, "periods", |r, n, p| {
        r.period_range(n, p, "periods = [\"5ms\", \"50ms\"]")
    });
    let duration = r.top(entries, "duration", duration);
    let quantile = r.top(entries, "quantile", |r, n, p| {
        let name = r.0.string(n, p)?;
        Quantile::parse(&name)
            .map_err(|e| r.report(n, p, &e, Some("quantile = \"max\", \"p999\" or \"p99\"")))
            .ok()
    });
    let charged = quantile.unwrap_or_default();
    let profile = r.top(entries, "overheads", |r, n, p| {
        given(r, n, p, (path, charged))
    });
    let points = r.top(entries, "utilization", |r, n, p| {
        let range = r.utilization(n, p)?;
        (range.points()).map_err(|e| r.report(n, p, &e, None)).ok()
    });
    study?;
    let default_points = UtilizationRange {
        from: 0.3,
        to: 1.9,
        step: 0.2,
    };
    Some(Study {
        name: name.unwrap_or_else(|| "guarantees".into()),
        seed: seed.unwrap_or(0),
        samples: samples.unwrap_or(3) as usize,
        points: points.unwrap_or_else(|| default_points.points().expect("valid")),
        families: families.unwrap_or_else(|| {
            let all = Studied::all().into_iter();
            all.filter(|f| f.by_default() && (real || f.simulates()))
                .collect()
        }),
        sets: Sets {
            cores: cores.unwrap_or(2) as usize,
            tasks: tasks.unwrap_or(8) as usize,
            periods_ms: periods.unwrap_or((5, 50)),
        },
        duration: duration.unwrap_or(Duration::from_secs(2)),
        profile: profile.unwrap_or(Profile::Measured),
        quantile: quantile.unwrap_or_default(),
        real,
    })
}

/// `families = ["gedf", ...]`: names of [`Studied::all`], each once, and in a simulated study
/// only those the simulator can judge.
fn families(r: &mut Reader, node: &Node, path: &str, real: bool) -> Option<Vec<Studied>> {
    let names: Vec<&str> = Studied::all().iter().map(|f| f.name()).collect();
    let hint = format!("one or more of {}", names.join(", "));
    let Value::Array(items) = &node.value else {
        let found = node.value.kind_name();
        let message = format!("expected an array of family names, found {found}");
        r.report(node, path, &message, Some(&hint));
        return None;
    };
    if items.is_empty() {
        r.report(node, path, "name at least one family", Some(&hint));
    }
    let mut chosen = Vec::new();
    for (i, item) in items.iter().enumerate() {
        let at = format!("{path}[{i}]");
        let Some(name) = r.0.string(item, &at) else {
            continue;
        };
        match Studied::from_name(&name) {
            Some(f) if chosen.contains(&f) => r.report(item, &at, "named twice", None),
            Some(f) if !real && !f.simulates() => {
                let message = format!(
                    "{name} runs on real cores only: the table simulator charges no overheads"
                );
                r.report(item, &at, &message, Some("execution = \"real\""))
            }
            Some(f) => chosen.push(f),
            None => r.report(item, &at, &format!("unknown family {name:?}"), Some(&hint)),
        }
    }
    Some(chosen)
}

/// Each accepted set's run: positive, and no longer than any real run may be.
fn duration(r: &mut Reader, node: &Node, path: &str) -> Option<Duration> {
    let d = r.0.duration(node, path, ZeroAllowed::No)?;
    if d > MAX_RUN_DURATION {
        let message = format!("{d} is longer than the {MAX_RUN_DURATION} a real run may take");
        r.report(
            node,
            path,
            &message,
            Some("a few seconds see many jobs of 5-50 ms periods"),
        );
        return None;
    }
    Some(d)
}

/// `overheads = "FILE"`: a profile read now, relative to the folder of `config`, whose
/// distributions must have the point `quantile` charges.
fn given(
    r: &mut Reader,
    node: &Node,
    path: &str,
    (config, quantile): (&Path, Quantile),
) -> Option<Profile> {
    let written = r.0.string(node, path)?;
    let file = config.parent().unwrap_or(Path::new("")).join(&written);
    let hint = "a profile `kairos bench overheads --out` wrote, relative to the config's folder";
    let source = match std::fs::read_to_string(&file) {
        Ok(source) => source,
        Err(e) => {
            let message = format!("cannot read {}: {e}", file.display());
            r.report(node, path, &message, Some(hint));
            return None;
        }
    };
    if kairos_model::input::load_overheads(&file, &source).is_err() {
        let message = format!("{} has no usable [overheads] table", file.display());
        let why = format!("`kairos check {}` says why", file.display());
        r.report(node, path, &message, Some(&why));
        return None;
    }
    let point = quantile.profile_key();
    match kairos_model::input::load_overheads_charging(&file, &source, point) {
        Ok(overheads) => Some(Profile::Given {
            path: file,
            overheads: Box::new(overheads),
        }),
        Err(lacking) => {
            let name = file.display().to_string();
            let at: Vec<String> = lacking.iter().map(|d| d.render(&name)).collect();
            let message = format!(
                "quantile {} is charged, but this profile's distributions lack it:\n{}",
                quantile.name(),
                at.join("\n")
            );
            let hint = "measure the profile again with `kairos bench overheads --out FILE`, or charge p99 or max";
            r.report(node, path, &message, Some(hint));
            None
        }
    }
}

#[cfg(test)]
mod tests;
