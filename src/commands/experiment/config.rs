//! The experiment config file: what to generate, which utilizations, which methods.

use crate::generation::{Generator, GeneratorSpec};
use kairos_analysis::registry;
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
    pub generator: GeneratorSpec,
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

/// One line of the plot: an analysis test, or "no deadline miss in simulation".
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MethodSpec {
    pub test: Option<String>,
    pub simulate: Option<String>,
}

/// A method, resolved.
#[derive(Clone, Copy)]
pub enum Method {
    Test(&'static registry::Test),
    Simulate(PolicyKind),
}

impl Method {
    pub fn label(&self) -> String {
        match self {
            Method::Test(t) => t.name.clone(),
            Method::Simulate(kind) => format!("sim-{}", kind.cli_name()),
        }
    }
}

/// A config whose every name was understood.
pub struct Config {
    pub name: String,
    pub seed: u64,
    pub cores: usize,
    pub samples: usize,
    pub points: Vec<f64>,
    pub generator: Generator,
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
        let methods = self
            .methods
            .iter()
            .enumerate()
            .map(resolve_method)
            .collect::<Result<Vec<_>, _>>()?;
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
            generator: self.generator.resolve()?,
            methods,
            simulation_cap,
        })
    }
}

fn resolve_method((i, spec): (usize, &MethodSpec)) -> Result<Method, String> {
    match (&spec.test, &spec.simulate) {
        (Some(test), None) => registry::find(test).map(Method::Test).ok_or_else(|| {
            format!("methods[{i}]: unknown test `{test}` (see `kairos analyze --list`)")
        }),
        (None, Some(policy)) => PolicyKind::from_cli_name(policy)
            .map(Method::Simulate)
            .ok_or_else(|| {
                format!("methods[{i}]: unknown policy `{policy}` (gedf, pedf, gfp, pfp, edzl)")
            }),
        _ => Err(format!(
            "methods[{i}]: give exactly one of `test` or `simulate`"
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
