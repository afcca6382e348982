//! The experiment config file: what to generate, which utilizations, which methods.

use crate::generation::{Generator, GeneratorSpec};
use kairos_analysis::registry;
use kairos_gen::mcdag::McDagParams;
use kairos_model::{parse_duration, Duration};
use kairos_sim::policy::PolicyKind;
use serde::{Deserialize, Serialize};

/// The file as written (TOML).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConfigFile {
    pub name: Option<String>,
    pub seed: u64,
    pub cores: usize,
    /// Task sets per utilization point.
    pub samples: usize,
    pub utilization: UtilizationRange,
    /// Periodic task sets (analysis tests and simulation).
    pub generator: Option<GeneratorSpec>,
    /// MC-DAG systems (table synthesis); `utilization` is then normalized (U / cores).
    pub mcdag: Option<McDagSpec>,
    pub methods: Vec<MethodSpec>,
    /// Simulated time per set is its hyper-period, capped here (default 10s).
    pub simulation_cap: Option<String>,
}

#[derive(Clone, Copy, Debug, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct UtilizationRange {
    pub from: f64,
    pub to: f64,
    pub step: f64,
}

/// One line of the plot: an analysis test, "no deadline miss in simulation", or (MC-DAG
/// experiments) "tables synthesized".
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodSpec {
    pub test: Option<String>,
    pub simulate: Option<String>,
    pub synth: Option<String>,
}

/// The MC-DAG generator's parameters in an experiment config (docs/mcdag-gen.md); the
/// utilization of each point and the seed of each sample are filled in per system.
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
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

impl ConfigFile {
    pub fn resolve(&self, default_name: &str) -> Result<Config, String> {
        if self.cores == 0 {
            return Err("cores must be at least 1".into());
        }
        if self.samples == 0 {
            return Err("samples must be at least 1".into());
        }
        if self.methods.is_empty() {
            return Err(
                "add at least one [[methods]] (test = \"gfb\" or simulate = \"gedf\")".into(),
            );
        }
        let workloads = match (&self.generator, &self.mcdag) {
            (Some(generator), None) => Workloads::Periodic(generator.resolve()?),
            (None, Some(mcdag)) => Workloads::McDag(mcdag.resolve(self.cores)?),
            _ => return Err(
                "give exactly one of [generator] (periodic task sets) or [mcdag] (MC-DAG systems)"
                    .into(),
            ),
        };
        let methods = self
            .methods
            .iter()
            .enumerate()
            .map(resolve_method)
            .collect::<Result<Vec<_>, _>>()?;
        check_methods_fit(&workloads, &methods)?;
        let simulation_cap = match &self.simulation_cap {
            Some(text) => parse_duration(text).map_err(|e| format!("simulation_cap: {e}"))?,
            None => Duration::from_secs(10),
        };
        Ok(Config {
            name: self
                .name
                .clone()
                .unwrap_or_else(|| default_name.to_string()),
            seed: self.seed,
            cores: self.cores,
            samples: self.samples,
            points: self.utilization.points()?,
            workloads,
            methods,
            simulation_cap,
        })
    }
}

impl McDagSpec {
    fn resolve(&self, cores: usize) -> Result<McDagParams, String> {
        let defaults = McDagParams::default();
        let slot = match &self.slot {
            Some(text) => parse_duration(text).map_err(|e| format!("mcdag.slot: {e}"))?,
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
fn check_methods_fit(workloads: &Workloads, methods: &[Method]) -> Result<(), String> {
    let mc = matches!(workloads, Workloads::McDag(_));
    match methods
        .iter()
        .position(|m| matches!(m, Method::Synth(_)) != mc)
    {
        None => Ok(()),
        Some(i) if mc => Err(format!(
            "methods[{i}]: MC-DAG experiments take `synth = \"gedzl\" | \"gedf\" | \"gllf\" | \"federated\"`"
        )),
        Some(i) => Err(format!(
            "methods[{i}]: `synth` needs an [mcdag] generator instead of [generator]"
        )),
    }
}

fn resolve_synth(i: usize, name: &str) -> Result<Method, String> {
    if name == "federated" {
        return Ok(Method::Synth(McMethod::Federated));
    }
    kairos_mc::Policy::from_name(name)
        .map(|p| Method::Synth(McMethod::Gmh(p)))
        .ok_or_else(|| {
            format!("methods[{i}]: unknown synthesis `{name}` (gedzl, gedf, gllf, federated)")
        })
}

fn resolve_method((i, spec): (usize, &MethodSpec)) -> Result<Method, String> {
    match (&spec.test, &spec.simulate) {
        _ if spec.synth.is_some() && (spec.test.is_some() || spec.simulate.is_some()) => Err(
            format!("methods[{i}]: give exactly one of `test`, `simulate` or `synth`"),
        ),
        (None, None) if spec.synth.is_some() => {
            resolve_synth(i, spec.synth.as_deref().unwrap_or_default())
        }
        (Some(test), None) => registry::find(test).map(Method::Test).ok_or_else(|| {
            format!("methods[{i}]: unknown test `{test}` (see `kairos analyze --list`)")
        }),
        (None, Some(policy)) => PolicyKind::from_cli_name(policy)
            .map(Method::Simulate)
            .ok_or_else(|| {
                format!("methods[{i}]: unknown policy `{policy}` (gedf, pedf, gfp, pfp, edzl)")
            }),
        _ => Err(format!(
            "methods[{i}]: give exactly one of `test`, `simulate` or `synth`"
        )),
    }
}

impl UtilizationRange {
    /// `from, from + step, ..., <= to` (computed by index, so no drift accumulates).
    pub fn points(&self) -> Result<Vec<f64>, String> {
        let valid = self.from.is_finite() && self.to.is_finite() && self.step.is_finite();
        if !valid || self.step <= 0.0 || self.from <= 0.0 || self.to < self.from {
            return Err("utilization: need 0 < from <= to and step > 0".into());
        }
        let count = ((self.to - self.from) / self.step + 1e-9).floor() as usize + 1;
        if count > MAX_POINTS {
            return Err(format!(
                "utilization: {count} points is more than {MAX_POINTS}"
            ));
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
