//! What to generate, as written in experiment configs and on `kairos gen`'s command line, and
//! the call into `kairos-gen` that does it.

use kairos_gen::{
    generate_rtxen, generate_until_cap, generate_with_randfixedsum, generate_with_uunifast,
    ChaCha8Rng, DeadlineDist, PeriodDist, RtXenConfig, UtilDist,
};
use kairos_model::{parse_duration, Duration, Task};
use serde::Deserialize;

/// How the utilizations of a set are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Deserialize, clap::ValueEnum)]
#[serde(rename_all = "kebab-case")]
pub enum Method {
    /// SchedCAT style: draw tasks from `utilizations` until the total reaches the target.
    UntilCap,
    /// UUniFast-discard: `tasks` utilizations summing to the target, each at most
    /// `max_task_utilization` (Bini & Buttazzo 2005; Davis & Burns 2009).
    UunifastDiscard,
    /// RandFixedSum: uniform over the utilization simplex with per-task bounds (Emberson et al.).
    Randfixedsum,
    /// RT-Xen 2.0: bimodal utilizations, periods 350-850 ms, a pad task to hit the target.
    Rtxen,
}

/// A generator as written in a config (every field but `method` has a default).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GeneratorSpec {
    pub method: Method,
    /// Number of tasks (uunifast-discard, randfixedsum).
    pub tasks: Option<usize>,
    #[serde(default = "defaults::utilizations")]
    pub utilizations: String,
    #[serde(default = "defaults::periods")]
    pub periods: String,
    #[serde(default = "defaults::deadlines")]
    pub deadlines: String,
    /// Time grid of periods and WCETs.
    #[serde(default = "defaults::grid")]
    pub grid: String,
    #[serde(default = "defaults::max_task_utilization")]
    pub max_task_utilization: f64,
    /// until-cap: scale the task that overshoots to fit instead of dropping it.
    #[serde(default)]
    pub squeeze: bool,
}

mod defaults {
    pub fn utilizations() -> String {
        "uni-medium".into()
    }
    pub fn periods() -> String {
        "uni-moderate".into()
    }
    pub fn deadlines() -> String {
        "implicit".into()
    }
    pub fn grid() -> String {
        "1us".into()
    }
    pub fn max_task_utilization() -> f64 {
        1.0
    }
}

/// A spec whose names were all understood.
#[derive(Clone, Copy, Debug)]
pub struct Generator {
    method: Method,
    tasks: usize,
    utilizations: UtilDist,
    periods: PeriodDist,
    deadlines: DeadlineDist,
    grid: Duration,
    max_task_utilization: f64,
    squeeze: bool,
}

impl GeneratorSpec {
    /// Checks every name and number; the error says which one is wrong.
    pub fn resolve(&self) -> Result<Generator, String> {
        let needs_count = matches!(self.method, Method::UunifastDiscard | Method::Randfixedsum);
        let tasks = match (needs_count, self.tasks) {
            (true, None) => {
                return Err(
                    "generator: `tasks` (the number of tasks) is required for this method".into(),
                )
            }
            (true, Some(0)) => return Err("generator: `tasks` must be at least 1".into()),
            (_, n) => n.unwrap_or(0),
        };
        if !(self.max_task_utilization > 0.0 && self.max_task_utilization <= 1.0) {
            return Err("generator: `max_task_utilization` must be in (0, 1]".into());
        }
        Ok(Generator {
            method: self.method,
            tasks,
            utilizations: self
                .utilizations
                .parse()
                .map_err(|e| format!("generator.utilizations: {e}"))?,
            periods: self
                .periods
                .parse()
                .map_err(|e| format!("generator.periods: {e}"))?,
            deadlines: self
                .deadlines
                .parse()
                .map_err(|e| format!("generator.deadlines: {e}"))?,
            grid: parse_duration(&self.grid)
                .map_err(|e| format!("generator.grid: {e}"))
                .and_then(|g| {
                    if g.is_zero() {
                        Err("generator.grid: must be greater than zero".to_string())
                    } else {
                        Ok(g)
                    }
                })?,
            max_task_utilization: self.max_task_utilization,
            squeeze: self.squeeze,
        })
    }
}

impl Generator {
    /// One task set of total utilization `target` (up to the grid and, for until-cap, the
    /// dropped task).
    pub fn generate(&self, rng: &mut ChaCha8Rng, target: f64) -> Result<Vec<Task>, String> {
        let result = match self.method {
            Method::UntilCap => generate_until_cap(
                rng,
                target,
                self.utilizations,
                self.periods,
                self.deadlines,
                self.grid,
                self.squeeze,
            ),
            Method::UunifastDiscard => generate_with_uunifast(
                rng,
                self.tasks,
                target,
                self.periods,
                self.deadlines,
                self.grid,
                self.max_task_utilization,
            ),
            Method::Randfixedsum => generate_with_randfixedsum(
                rng,
                self.tasks,
                target,
                self.max_task_utilization,
                self.periods,
                self.deadlines,
                self.grid,
            ),
            Method::Rtxen => {
                let config = RtXenConfig {
                    grid: self.grid,
                    ..RtXenConfig::new(target, self.utilizations)
                };
                generate_rtxen(rng, &config).map(|set| set.tasks)
            }
        };
        result.map_err(|e| e.to_string())
    }
}
