//! What to generate, as written in experiment configs and on `kairos gen`'s command line, and
//! the call into `kairos-gen` that does it.

pub mod mcdag;
mod sets;

pub use sets::{batch_line, generated_workloads, task_sets, workload_value};

use kairos_gen::imprecise::{generate_imprecise, ImpreciseConfig};
use kairos_gen::{
    generate_rtxen, generate_until_cap, generate_with_randfixedsum, generate_with_uunifast,
    ChaCha8Rng, DeadlineDist, PeriodDist, RtXenConfig, UtilDist,
};
use kairos_model::{parse_duration, Duration, Task};

/// How the utilizations of a set are drawn.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Deserialize)]
#[serde(rename_all = "kebab-case")]
/// Each method's description is [`Method::summary`], which help texts show.
pub enum Method {
    UntilCap,
    UunifastDiscard,
    Randfixedsum,
    Rtxen,
    /// `kairos_gen::imprecise`.
    Imprecise,
}

impl Method {
    /// Every method, in the order help texts list them.
    pub const ALL: [Method; 5] = [
        Method::UntilCap,
        Method::UunifastDiscard,
        Method::Randfixedsum,
        Method::Rtxen,
        Method::Imprecise,
    ];

    /// The name configs and `kairos gen --method` use.
    pub fn name(self) -> &'static str {
        match self {
            Method::UntilCap => "until-cap",
            Method::UunifastDiscard => "uunifast-discard",
            Method::Randfixedsum => "randfixedsum",
            Method::Rtxen => "rtxen",
            Method::Imprecise => "imprecise",
        }
    }

    /// The method called `name`, if any.
    pub fn from_name(name: &str) -> Option<Method> {
        Method::ALL.into_iter().find(|m| m.name() == name)
    }

    /// One line on how the method draws, for help texts.
    pub fn summary(self) -> &'static str {
        match self {
            Method::UntilCap => {
                "SchedCAT style: draw tasks from `utilizations` until the total reaches the target"
            }
            Method::UunifastDiscard => {
                "UUniFast-discard: `tasks` utilizations summing to the target, each at most \
                 `max_task_utilization` (Bini & Buttazzo 2005; Davis & Burns 2009)"
            }
            Method::Randfixedsum => {
                "RandFixedSum: uniform over the utilization simplex with per-task bounds \
                 (Emberson et al.)"
            }
            Method::Rtxen => {
                "RT-Xen 2.0: bimodal utilizations, periods 350-850 ms, a pad task to hit the target"
            }
            Method::Imprecise => {
                "imprecise tasks (mandatory, optional, wind-up) as Chishiro and Yamasaki's \
                 evaluation of G-RMWP and P-RMWP draws them; uses only the grid"
            }
        }
    }
}

/// A generator as written in a config (every field but `method` has a default).
#[derive(Clone, Debug)]
pub struct GeneratorSpec {
    pub method: Method,
    /// Number of tasks (uunifast-discard, randfixedsum).
    pub tasks: Option<usize>,
    pub utilizations: String,
    pub periods: String,
    pub deadlines: String,
    /// Time grid of periods and WCETs.
    pub grid: String,
    pub max_task_utilization: f64,
    /// until-cap: shrink the task that overshoots to fit instead of dropping it.
    pub squeeze: bool,
}

impl GeneratorSpec {
    /// A spec of `method` with every other field at its default (as documented).
    pub fn with_method(method: Method) -> GeneratorSpec {
        GeneratorSpec {
            method,
            tasks: None,
            utilizations: "uni-medium".into(),
            periods: "uni-moderate".into(),
            deadlines: "implicit".into(),
            grid: "1us".into(),
            max_task_utilization: 1.0,
            squeeze: false,
        }
    }
}

/// Task sets to draw, as `kairos gen` takes them and Python passes them (a JSON object with
/// these keys, every one but `utilization` optional with `kairos gen`'s default).
#[derive(Clone, Debug, serde::Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SetRequest {
    /// Total utilization of each set.
    pub utilization: f64,
    /// Cores written into each workload.
    pub cores: usize,
    pub count: usize,
    pub seed: u64,
    pub method: Method,
    pub tasks: Option<usize>,
    pub utilizations: String,
    pub periods: String,
    pub deadlines: String,
    pub grid: String,
    pub max_task_utilization: f64,
    pub squeeze: bool,
}

impl Default for SetRequest {
    fn default() -> Self {
        let spec = GeneratorSpec::with_method(Method::UunifastDiscard);
        SetRequest {
            utilization: f64::NAN,
            cores: 4,
            count: 1,
            seed: 0,
            method: spec.method,
            tasks: spec.tasks,
            utilizations: spec.utilizations,
            periods: spec.periods,
            deadlines: spec.deadlines,
            grid: spec.grid,
            max_task_utilization: spec.max_task_utilization,
            squeeze: spec.squeeze,
        }
    }
}

impl SetRequest {
    /// The generator this request names.
    pub fn spec(&self) -> GeneratorSpec {
        GeneratorSpec {
            method: self.method,
            tasks: self.tasks,
            utilizations: self.utilizations.clone(),
            periods: self.periods.clone(),
            deadlines: self.deadlines.clone(),
            grid: self.grid.clone(),
            max_task_utilization: self.max_task_utilization,
            squeeze: self.squeeze,
        }
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

/// One problem of a generator spec: the field (e.g. `periods`) and what is wrong.
pub type SpecProblem = (&'static str, String);

impl GeneratorSpec {
    /// Checks every name and number; each problem names its field, and all are reported.
    pub fn resolve(&self) -> Result<Generator, Vec<SpecProblem>> {
        let mut problems = Vec::new();
        let needs_count = matches!(self.method, Method::UunifastDiscard | Method::Randfixedsum);
        match (needs_count, self.tasks) {
            (true, None) => problems.push((
                "tasks",
                "`tasks` (the number of tasks) is required for this method".to_string(),
            )),
            (true, Some(0)) => problems.push(("tasks", "must be at least 1".to_string())),
            (false, Some(_)) if self.method == Method::Imprecise => problems.push((
                "tasks",
                "the imprecise generator draws tasks until the utilization is reached: leave `tasks` out"
                    .to_string(),
            )),
            _ => {}
        }
        if !(self.max_task_utilization > 0.0 && self.max_task_utilization <= 1.0) {
            problems.push(("max_task_utilization", "must be in (0, 1]".to_string()));
        }
        let p = &mut problems;
        let utilizations = noted(p, "utilizations", self.utilizations.parse::<UtilDist>());
        let periods = noted(p, "periods", self.periods.parse::<PeriodDist>());
        let deadlines = noted(p, "deadlines", self.deadlines.parse::<DeadlineDist>());
        let grid = noted(p, "grid", positive_duration(&self.grid));
        match (utilizations, periods, deadlines, grid) {
            (Some(utilizations), Some(periods), Some(deadlines), Some(grid))
                if problems.is_empty() =>
            {
                Ok(Generator {
                    method: self.method,
                    tasks: self.tasks.unwrap_or(0),
                    utilizations,
                    periods,
                    deadlines,
                    grid,
                    max_task_utilization: self.max_task_utilization,
                    squeeze: self.squeeze,
                })
            }
            _ => Err(problems),
        }
    }
}

/// The value, or `None` with the problem noted under `field`.
fn noted<T, E: ToString>(
    problems: &mut Vec<SpecProblem>,
    field: &'static str,
    result: Result<T, E>,
) -> Option<T> {
    result
        .map_err(|e| problems.push((field, e.to_string())))
        .ok()
}

fn positive_duration(text: &str) -> Result<Duration, String> {
    match parse_duration(text) {
        Ok(d) if d.is_zero() => Err("must be greater than zero".to_string()),
        Ok(d) => Ok(d),
        Err(e) => Err(e.to_string()),
    }
}

/// The problems as one line, for the command line (`kairos gen`): `--periods: ...; --grid: ...`.
pub fn as_flags(problems: &[SpecProblem]) -> String {
    problems
        .iter()
        .map(|(field, message)| format!("--{}: {message}", field.replace('_', "-")))
        .collect::<Vec<_>>()
        .join("; ")
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
            Method::Imprecise => {
                let config = ImpreciseConfig {
                    grid: self.grid,
                    ..ImpreciseConfig::new(target)
                };
                generate_imprecise(rng, &config)
            }
        };
        result.map_err(|e| e.to_string())
    }
}
