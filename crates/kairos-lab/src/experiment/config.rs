//! The experiment config file: what to generate, which utilizations, which methods.

use crate::generation::{Generator, GeneratorSpec};
use kairos_analysis::registry;
use kairos_gen::mcdag::McDagParams;
use kairos_model::{parse_duration, Duration};
use kairos_policy::PolicyKind;
use serde::Serialize;

/// The file as written (TOML), read by [`super::decode`]. A required field is `None` when the
/// file's was unreadable (already reported): the rest is still resolved, so that every problem
/// shows in one run.
#[derive(Clone, Debug)]
pub struct ConfigFile {
    pub name: Option<String>,
    pub seed: Option<u64>,
    pub cores: Option<usize>,
    /// Task sets per utilization point.
    pub samples: Option<usize>,
    pub utilization: Option<UtilizationRange>,
    /// Periodic task sets (analysis tests and simulation).
    pub generator: Option<GeneratorSpec>,
    /// MC-DAG systems (table synthesis); `utilization` is then normalized (U / cores).
    pub mcdag: Option<McDagSpec>,
    pub methods: Option<Vec<MethodSpec>>,
    /// Simulated time per set is its hyper-period, capped here (default 10s).
    pub simulation_cap: Option<String>,
}

#[derive(Clone, Copy, Debug, Serialize, PartialEq)]
pub struct UtilizationRange {
    pub from: f64,
    pub to: f64,
    pub step: f64,
}

/// One line of the plot: an analysis test, "no deadline miss in simulation", or (MC-DAG
/// experiments) "tables synthesized".
#[derive(Clone, Debug)]
pub struct MethodSpec {
    pub test: Option<String>,
    pub simulate: Option<String>,
    pub synth: Option<String>,
}

/// The MC-DAG generator's parameters in an experiment config (docs/mcdag-gen.md); the
/// utilization of each point and the seed of each sample are filled in per system.
#[derive(Clone, Debug)]
pub struct McDagSpec {
    pub dags: Option<usize>,
    pub tasks: Option<usize>,
    pub levels: Option<usize>,
    pub edge_probability: Option<f64>,
    pub max_per_rank: Option<usize>,
    pub reduction: Option<f64>,
    pub level_fractions: Option<Vec<f64>>,
    /// Slot length, e.g. "1ms".
    pub slot: Option<String>,
    /// Periods divide this many slots; 0 = any integer period (hyper-periods may grow large).
    pub hyperperiod_base: Option<u64>,
}

/// How one MC-DAG system is scheduled.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum McMethod {
    Gmh(kairos_mc::Policy),
    Federated,
}

/// A method, resolved.
#[derive(Clone, Copy)]
pub enum Method {
    Test(&'static registry::Test),
    Simulate(PolicyKind),
    Synth(McMethod),
}

impl Method {
    pub fn label(&self) -> String {
        match self {
            Method::Test(t) => t.name.clone(),
            Method::Simulate(kind) => format!("sim-{}", kind.cli_name()),
            Method::Synth(McMethod::Gmh(policy)) => format!("gmh-{}", policy.name()),
            Method::Synth(McMethod::Federated) => "federated".into(),
        }
    }
}

/// What each sample is.
pub enum Workloads {
    Periodic(Generator),
    McDag(McDagParams),
}

/// A config whose every name was understood.
pub struct Config {
    pub name: String,
    pub seed: u64,
    pub cores: usize,
    pub samples: usize,
    pub points: Vec<f64>,
    pub workloads: Workloads,
    pub methods: Vec<Method>,
    pub simulation_cap: Duration,
}

/// Most utilization points one experiment may have.
const MAX_POINTS: usize = 10_000;

/// A problem found while resolving the config's names and numbers: the field path and what is
/// wrong (located through the reader's source map).
pub struct Problem {
    pub path: String,
    pub message: String,
}

fn problem(path: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem {
        path: path.into(),
        message: message.into(),
    }
}

impl ConfigFile {
    /// Every name and number understood, or every problem found besides those of the fields
    /// that were unreadable (`None`, reported when read).
    pub fn resolve(&self, default_name: &str) -> Result<Config, Vec<Problem>> {
        let mut problems = Vec::new();
        if self.methods.as_ref().is_some_and(|m| m.is_empty()) {
            problems.push(problem(
                "methods",
                "add at least one [[methods]] (test = \"gfb\" or simulate = \"gedf\")",
            ));
        }
        let workloads = self.workloads(&mut problems);
        let methods: Vec<Option<Method>> = match &self.methods {
            Some(specs) => specs
                .iter()
                .enumerate()
                .map(|m| resolve_method(m).map_err(|p| problems.push(p)).ok())
                .collect(),
            None => vec![None],
        };
        let simulation_cap = match &self.simulation_cap {
            Some(text) => parse_duration(text)
                .map_err(|e| problems.push(problem("simulation_cap", e.to_string())))
                .ok(),
            None => Some(Duration::from_secs(10)),
        };
        let points = self.utilization.as_ref().and_then(|range| {
            (range.points())
                .map_err(|e| problems.push(problem("utilization", e)))
                .ok()
        });
        let methods: Option<Vec<Method>> = methods.into_iter().collect();
        if let (Some(workloads), Some(methods)) = (&workloads, &methods) {
            if let Err(p) = check_methods_fit(workloads, methods) {
                problems.push(p);
            }
        }
        let scalars = (self.seed, self.cores, self.samples);
        match (workloads, methods, simulation_cap, points, scalars) {
            (
                Some(workloads),
                Some(methods),
                Some(simulation_cap),
                Some(points),
                (Some(seed), Some(cores), Some(samples)),
            ) if problems.is_empty() => Ok(Config {
                name: self
                    .name
                    .clone()
                    .unwrap_or_else(|| default_name.to_string()),
                seed,
                cores,
                samples,
                points,
                workloads,
                methods,
                simulation_cap,
            }),
            _ => Err(problems),
        }
    }

    fn workloads(&self, problems: &mut Vec<Problem>) -> Option<Workloads> {
        match (&self.generator, &self.mcdag) {
            (Some(generator), None) => {
                match generator.resolve() {
                    Ok(generator) => Some(Workloads::Periodic(generator)),
                    Err(found) => {
                        problems.extend(found.into_iter().map(|(field, message)| {
                            problem(format!("generator.{field}"), message)
                        }));
                        None
                    }
                }
            }
            // Before the cores are known, the MC-DAG parameters are resolved on one, for their
            // own problems only.
            (None, Some(mcdag)) => mcdag
                .resolve(self.cores.unwrap_or(1))
                .map_err(|e| problems.push(problem("mcdag.slot", e)))
                .ok()
                .map(Workloads::McDag),
            (generator, _) => {
                let at = if generator.is_some() {
                    "mcdag"
                } else {
                    "generator"
                };
                problems.push(problem(
                    at,
                    "give exactly one of [generator] (periodic task sets) or [mcdag] (MC-DAG systems)",
                ));
                None
            }
        }
    }
}

impl McDagSpec {
    fn resolve(&self, cores: usize) -> Result<McDagParams, String> {
        let defaults = McDagParams::default();
        let slot = match &self.slot {
            Some(text) => parse_duration(text).map_err(|e| e.to_string())?,
            None => defaults.slot,
        };
        Ok(McDagParams {
            dags: self.dags.unwrap_or(defaults.dags),
            tasks: self.tasks.unwrap_or(defaults.tasks),
            levels: self.levels.unwrap_or(defaults.levels),
            edge_probability: self.edge_probability.unwrap_or(defaults.edge_probability),
            max_per_rank: self.max_per_rank.unwrap_or(defaults.max_per_rank),
            reduction: self.reduction.unwrap_or(defaults.reduction),
            level_fractions: self.level_fractions.clone().unwrap_or_default(),
            slot,
            // 0 asks for any integer period, as `kairos gen --hyperperiod-base 0` does.
            hyperperiod_base: match self.hyperperiod_base {
                Some(0) => None,
                Some(base) => Some(base),
                None => defaults.hyperperiod_base,
            },
            cores,
            ..defaults
        })
    }
}

/// Periodic sets take tests and simulations; MC-DAG systems take synthesis methods.
fn check_methods_fit(workloads: &Workloads, methods: &[Method]) -> Result<(), Problem> {
    let mc = matches!(workloads, Workloads::McDag(_));
    match methods
        .iter()
        .position(|m| matches!(m, Method::Synth(_)) != mc)
    {
        None => Ok(()),
        Some(i) if mc => Err(problem(
            format!("methods[{i}]"),
            "MC-DAG experiments take `synth = \"gedzl\" | \"gedf\" | \"gllf\" | \"federated\"`",
        )),
        Some(i) => Err(problem(
            format!("methods[{i}]"),
            "`synth` needs an [mcdag] generator instead of [generator]",
        )),
    }
}

fn resolve_synth(i: usize, name: &str) -> Result<Method, Problem> {
    if name == "federated" {
        return Ok(Method::Synth(McMethod::Federated));
    }
    kairos_mc::Policy::from_name(name)
        .map(|p| Method::Synth(McMethod::Gmh(p)))
        .ok_or_else(|| {
            problem(
                format!("methods[{i}].synth"),
                format!("unknown synthesis `{name}` (gedzl, gedf, gllf, federated)"),
            )
        })
}

fn resolve_method((i, spec): (usize, &MethodSpec)) -> Result<Method, Problem> {
    let one_of = || {
        problem(
            format!("methods[{i}]"),
            "give exactly one of `test`, `simulate` or `synth`",
        )
    };
    match (&spec.test, &spec.simulate, &spec.synth) {
        (None, None, Some(synth)) => resolve_synth(i, synth),
        (Some(test), None, None) => registry::find(test).map(Method::Test).ok_or_else(|| {
            problem(
                format!("methods[{i}].test"),
                format!("unknown test `{test}` (see `kairos analyze --list`)"),
            )
        }),
        (None, Some(policy), None) => kairos_policy::registry::of_tasks(policy)
            .map(Method::Simulate)
            .map_err(|why| problem(format!("methods[{i}].simulate"), why)),
        _ => Err(one_of()),
    }
}

impl UtilizationRange {
    /// `from, from + step, ..., <= to` (computed by index, so no drift accumulates).
    pub fn points(&self) -> Result<Vec<f64>, String> {
        let valid = self.from.is_finite() && self.to.is_finite() && self.step.is_finite();
        if !valid || self.step <= 0.0 || self.from <= 0.0 || self.to < self.from {
            return Err("need 0 < from <= to and step > 0".into());
        }
        let count = ((self.to - self.from) / self.step + 1e-9).floor() as usize + 1;
        if count > MAX_POINTS {
            return Err(format!("{count} points is more than {MAX_POINTS}"));
        }
        Ok((0..count)
            .map(|k| round6(self.from + k as f64 * self.step))
            .collect())
    }
}

/// Utilization values are labels in files: keep them free of float noise.
fn round6(x: f64) -> f64 {
    (x * 1e6).round() / 1e6
}
