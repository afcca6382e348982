//! Reading an experiment config (TOML) into a [`ConfigFile`]: every problem at once, each with
//! its `line:column`, field path and a hint (the closest known key for a typo), in the form
//! `kairos check` uses for workloads. Names (tests, policies, distributions) are checked later by
//! [`ConfigFile::resolve`], whose problems are located through the same source map.

use super::config::{Config, ConfigFile, McDagSpec, MethodSpec, UtilizationRange};
use crate::generation::{GeneratorSpec, Method as GenMethod};
use crate::Failure;
use kairos_model::decode::{join, Decoder, SourceMap};
use kairos_model::document::{self, Entry, Node, Value};
use kairos_model::{Diagnostic, Diagnostics, Format};

const TOP_KEYS: [&str; 9] = [
    "name",
    "seed",
    "cores",
    "samples",
    "simulation_cap",
    "utilization",
    "generator",
    "mcdag",
    "methods",
];
const UTILIZATION_KEYS: [&str; 3] = ["from", "to", "step"];
const GENERATOR_KEYS: [&str; 8] = [
    "method",
    "tasks",
    "utilizations",
    "periods",
    "deadlines",
    "grid",
    "max_task_utilization",
    "squeeze",
];
const MCDAG_KEYS: [&str; 9] = [
    "dags",
    "tasks",
    "levels",
    "edge_probability",
    "max_per_rank",
    "reduction",
    "level_fractions",
    "slot",
    "hyperperiod_base",
];
const METHOD_KEYS: [&str; 3] = ["test", "simulate", "synth"];
const GEN_METHODS: &str = "until-cap, uunifast-discard, randfixedsum, rtxen, imprecise";

/// The config as far as it could be read (`None` when a required part could not), every
/// problem found, and the source map that locates fields for later checks.
pub fn read(source: &str) -> (Option<ConfigFile>, Diagnostics, SourceMap) {
    let root = match document::parse(source, Format::Toml) {
        Ok(root) => root,
        Err(diagnostics) => return (None, diagnostics, SourceMap::default()),
    };
    let mut reader = Reader(Decoder::default());
    let config = reader.config(&root);
    let Decoder {
        diagnostics,
        source_map,
    } = reader.0;
    (config, diagnostics, source_map)
}

/// The reader every experiment config shares (the guarantees study's too).
pub(super) struct Reader(pub(super) Decoder);

impl Reader {
    fn config(&mut self, root: &Node) -> Option<ConfigFile> {
        let entries = self.0.table(root, "")?;
        self.0.reject_unknown_keys(entries, &TOP_KEYS, "");
        let at = root.position;
        let name = self.optional(entries, "name", "", |r, n, p| r.0.folder_name(n, p));
        let seed = self.required(entries, "seed", at, "seed = 1", |r, n, p| r.whole(n, p));
        let cores = self.required(entries, "cores", at, "cores = 4", |r, n, p| {
            r.positive(n, p)
        });
        let samples = self.required(entries, "samples", at, "samples = 100", |r, n, p| {
            r.positive(n, p)
        });
        let cap = self.optional(entries, "simulation_cap", "", |r, n, p| r.0.string(n, p));
        let utilization = self.required(
            entries,
            "utilization",
            at,
            "[utilization] from = 1.0, to = 4.0, step = 0.2",
            |r, n, p| r.utilization(n, p),
        );
        let generator = self.optional(entries, "generator", "", |r, n, p| r.generator(n, p));
        let mcdag = self.optional(entries, "mcdag", "", |r, n, p| r.mcdag(n, p));
        let methods = self.required(
            entries,
            "methods",
            at,
            "[[methods]] test = \"gfb\" (or simulate = \"gedf\", synth = \"gedzl\")",
            |r, n, p| r.methods(n, p),
        );
        Some(ConfigFile {
            name,
            seed,
            cores: cores.map(|c| c as usize),
            samples: samples.map(|s| s as usize),
            utilization,
            generator,
            mcdag,
            methods,
            simulation_cap: cap,
        })
    }

    /// Reads `key` with `read` if present; `None` when absent or unreadable (reported), so the
    /// rest of the config is still read and resolved: every problem shows in one run.
    pub(super) fn optional<T>(
        &mut self,
        entries: &[Entry],
        key: &str,
        path: &str,
        read: impl FnOnce(&mut Self, &Node, &str) -> Option<T>,
    ) -> Option<T> {
        let node = self.0.field(entries, key, path)?;
        read(self, node, &join(path, key))
    }

    /// Reads a top-level `key` that must be present (`hint` shows how to write it).
    pub(super) fn required<T>(
        &mut self,
        entries: &[Entry],
        key: &str,
        at: Option<kairos_model::Position>,
        hint: &str,
        read: impl FnOnce(&mut Self, &Node, &str) -> Option<T>,
    ) -> Option<T> {
        let node = self.0.required(entries, key, "", at, hint)?;
        read(self, node, key)
    }

    pub(super) fn whole(&mut self, node: &Node, path: &str) -> Option<u64> {
        self.0.count(node, path, u64::MAX)
    }

    pub(super) fn positive(&mut self, node: &Node, path: &str) -> Option<u64> {
        let value = self.whole(node, path)?;
        if value == 0 {
            self.report(node, path, "must be at least 1", None);
            return None;
        }
        Some(value)
    }

    pub(super) fn number(&mut self, node: &Node, path: &str) -> Option<f64> {
        match node.value {
            Value::Float(f) => Some(f),
            Value::Integer(i) => Some(i as f64),
            ref other => {
                let found = other.kind_name();
                self.report(
                    node,
                    path,
                    &format!("expected a number, found {found}"),
                    None,
                );
                None
            }
        }
    }

    fn boolean(&mut self, node: &Node, path: &str) -> Option<bool> {
        match node.value {
            Value::Bool(b) => Some(b),
            ref other => {
                let found = other.kind_name();
                self.report(
                    node,
                    path,
                    &format!("expected true or false, found {found}"),
                    None,
                );
                None
            }
        }
    }

    pub(super) fn report(&mut self, node: &Node, path: &str, message: &str, hint: Option<&str>) {
        let mut d = Diagnostic::error(message)
            .at_path(path)
            .at_position(node.position);
        if let Some(hint) = hint {
            d = d.with_hint(hint);
        }
        self.0.diagnostics.push(d);
    }

    pub(super) fn utilization(&mut self, node: &Node, path: &str) -> Option<UtilizationRange> {
        let entries = self.0.table(node, path)?;
        self.0.reject_unknown_keys(entries, &UTILIZATION_KEYS, path);
        let mut bound = |key: &str| {
            let node =
                self.0
                    .required(entries, key, path, node.position, "give from, to and step")?;
            self.number(node, &join(path, key))
        };
        let (from, to, step) = (bound("from"), bound("to"), bound("step"));
        Some(UtilizationRange {
            from: from?,
            to: to?,
            step: step?,
        })
    }

    fn generator(&mut self, node: &Node, path: &str) -> Option<GeneratorSpec> {
        let entries = self.0.table(node, path)?;
        self.0.reject_unknown_keys(entries, &GENERATOR_KEYS, path);
        let hint = format!("method is one of {GEN_METHODS}");
        let method = self
            .0
            .required(entries, "method", path, node.position, &hint)
            .and_then(|n| self.generator_method(n, &join(path, "method")));
        let tasks = self.optional(entries, "tasks", path, |r, n, p| r.positive(n, p));
        let mut text = |key: &str| self.optional(entries, key, path, |r, n, p| r.0.string(n, p));
        let (utilizations, periods) = (text("utilizations"), text("periods"));
        let (deadlines, grid) = (text("deadlines"), text("grid"));
        let max = self.optional(entries, "max_task_utilization", path, |r, n, p| {
            r.number(n, p)
        });
        let squeeze = self.optional(entries, "squeeze", path, |r, n, p| r.boolean(n, p));
        let defaults = GeneratorSpec::with_method(method?);
        Some(GeneratorSpec {
            tasks: tasks.map(|t| t as usize),
            utilizations: utilizations.unwrap_or(defaults.utilizations.clone()),
            periods: periods.unwrap_or(defaults.periods.clone()),
            deadlines: deadlines.unwrap_or(defaults.deadlines.clone()),
            grid: grid.unwrap_or(defaults.grid.clone()),
            max_task_utilization: max.unwrap_or(defaults.max_task_utilization),
            squeeze: squeeze.unwrap_or(false),
            ..defaults
        })
    }

    fn generator_method(&mut self, node: &Node, path: &str) -> Option<GenMethod> {
        let name = self.0.string(node, path)?;
        let method = GenMethod::from_name(&name);
        if method.is_none() {
            let message = format!("unknown generator method `{name}`");
            self.report(node, path, &message, Some(&format!("one of {GEN_METHODS}")));
        }
        method
    }

    fn mcdag(&mut self, node: &Node, path: &str) -> Option<McDagSpec> {
        let entries = self.0.table(node, path)?;
        self.0.reject_unknown_keys(entries, &MCDAG_KEYS, path);
        let mut count = |key: &str| self.optional(entries, key, path, |r, n, p| r.whole(n, p));
        let (dags, tasks, levels) = (count("dags"), count("tasks"), count("levels"));
        let (max_per_rank, base) = (count("max_per_rank"), count("hyperperiod_base"));
        let mut real = |key: &str| self.optional(entries, key, path, |r, n, p| r.number(n, p));
        let (edge_probability, reduction) = (real("edge_probability"), real("reduction"));
        let fractions = self.optional(entries, "level_fractions", path, |r, n, p| r.numbers(n, p));
        let slot = self.optional(entries, "slot", path, |r, n, p| r.0.string(n, p));
        let size = |v: Option<u64>| v.map(|v| v as usize);
        Some(McDagSpec {
            dags: size(dags),
            tasks: size(tasks),
            levels: size(levels),
            edge_probability,
            max_per_rank: size(max_per_rank),
            reduction,
            level_fractions: fractions,
            slot,
            hyperperiod_base: base,
        })
    }

    fn numbers(&mut self, node: &Node, path: &str) -> Option<Vec<f64>> {
        let Value::Array(items) = &node.value else {
            let found = node.value.kind_name();
            self.report(
                node,
                path,
                &format!("expected an array of numbers, found {found}"),
                None,
            );
            return None;
        };
        let values: Vec<Option<f64>> = items
            .iter()
            .enumerate()
            .map(|(i, item)| self.number(item, &format!("{path}[{i}]")))
            .collect();
        values.into_iter().collect()
    }

    fn methods(&mut self, node: &Node, path: &str) -> Option<Vec<MethodSpec>> {
        let Value::Array(items) = &node.value else {
            let found = node.value.kind_name();
            let message = format!("expected an array of tables, found {found}");
            self.report(
                node,
                path,
                &message,
                Some("write each method as a [[methods]] table"),
            );
            return None;
        };
        let methods: Vec<Option<MethodSpec>> = items
            .iter()
            .enumerate()
            .map(|(i, item)| self.method(item, &format!("{path}[{i}]")))
            .collect();
        methods.into_iter().collect()
    }

    fn method(&mut self, node: &Node, path: &str) -> Option<MethodSpec> {
        let entries = self.0.table(node, path)?;
        self.0.reject_unknown_keys(entries, &METHOD_KEYS, path);
        let mut text = |key: &str| self.optional(entries, key, path, |r, n, p| r.0.string(n, p));
        let (test, simulate, synth) = (text("test"), text("simulate"), text("synth"));
        Some(MethodSpec {
            test,
            simulate,
            synth,
        })
    }
}

/// Reads and resolves the config at `path`: the config when there is no error, and every
/// problem with its position.
pub fn check(path: &std::path::Path, text: &str) -> (Option<Config>, Diagnostics) {
    let (file, mut diagnostics, map) = read(text);
    let stem = path
        .file_stem()
        .map_or("experiment".into(), |s| s.to_string_lossy().into_owned());
    let config = file.and_then(|file| match file.resolve(&stem) {
        Ok(config) => Some(config),
        Err(problems) => {
            for p in problems {
                let at = locate(&map, &p.path);
                diagnostics.push(Diagnostic::error(p.message).at_path(p.path).at_position(at));
            }
            None
        }
    });
    diagnostics.sort_by_position();
    (config.filter(|_| !diagnostics.has_errors()), diagnostics)
}

/// Why the config at `path` is refused, once [`check`] found errors in it (the diagnostics
/// themselves are the caller's to show).
pub fn refusal(path: &std::path::Path, diagnostics: &Diagnostics) -> Failure {
    Failure::bad_input(format!(
        "{}: {} error(s): nothing run",
        path.display(),
        diagnostics.error_count()
    ))
}

/// The position of `path`, or of the nearest enclosing field given in the file (a missing
/// `generator.tasks` points at `[generator]`).
fn locate(map: &SourceMap, path: &str) -> Option<kairos_model::Position> {
    let mut path = path;
    loop {
        if let Some(at) = map.get(path) {
            return Some(at);
        }
        path = &path[..path.rfind(['.', '['])?];
    }
}

pub(super) mod study;
#[cfg(test)]
mod tests;
