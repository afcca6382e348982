//! The families of the guarantees study: a policy of kairos's dispatcher, or one the kernel
//! schedules (`kairos run --dispatch kernel`), the analysis tests that speak for it, the sets
//! it is given, and how what a test found (a partition, optional deadlines) becomes the
//! workload that runs.

use crate::imprecise::prepare_with_margin;
use crate::Failure;
use kairos_analysis::Verdict;
use kairos_gen::imprecise::{generate_imprecise, ImpreciseConfig};
use kairos_gen::{generate_with_uunifast, make_workload, seeded, DeadlineDist, PeriodDist};
use kairos_model::{CoreId, Duration, Workload};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_rt::periodic::PeriodicPolicy;
use serde::Serialize;

/// A policy and the tests of its guarantee.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Family {
    Gedf,
    Pedf,
    Gfp,
    Edzl,
    Grmwp,
    Prmwp,
    /// P-FP with SCHED_FIFO priorities, scheduled by the kernel.
    PfpKernel,
    /// G-FP with SCHED_FIFO priorities, scheduled by the kernel.
    GfpKernel,
}

impl Family {
    /// Every family, in the order the study reports them.
    pub const ALL: [Family; 8] = [
        Family::Gedf,
        Family::Pedf,
        Family::Gfp,
        Family::Edzl,
        Family::Grmwp,
        Family::Prmwp,
        Family::PfpKernel,
        Family::GfpKernel,
    ];

    /// The policy the dispatcher runs, or the kernel's counterpart (which the run's simulated
    /// twin runs).
    pub fn kind(self) -> PolicyKind {
        match self {
            Family::Gedf => PolicyKind::GlobalEdf,
            Family::Pedf => PolicyKind::PartitionedEdf,
            Family::Gfp | Family::GfpKernel => PolicyKind::GlobalFp,
            Family::Edzl => PolicyKind::GlobalEdzl,
            Family::Grmwp => PolicyKind::GlobalRmwp,
            Family::Prmwp => PolicyKind::PartitionedRmwp,
            Family::PfpKernel => PolicyKind::PartitionedFp,
        }
    }

    /// When the kernel schedules the family's runs, its policy there.
    pub fn kernel(self) -> Option<PeriodicPolicy> {
        match self {
            Family::PfpKernel => Some(PeriodicPolicy::Pfp),
            Family::GfpKernel => Some(PeriodicPolicy::Gfp),
            _ => None,
        }
    }

    /// The family's name, as configs write it: the policy's, as `kairos run --policy` writes
    /// it, with `-kernel` when the kernel schedules it.
    pub fn name(self) -> &'static str {
        match self {
            Family::PfpKernel => "pfp-kernel",
            Family::GfpKernel => "gfp-kernel",
            _ => self.kind().cli_name(),
        }
    }

    /// `kairos run --dispatch` of the family's runs.
    pub fn dispatch(self) -> &'static str {
        match self.kernel() {
            Some(_) => "kernel",
            None => "user",
        }
    }

    /// The family called `name`, if any.
    pub fn from_name(name: &str) -> Option<Family> {
        Family::ALL.into_iter().find(|f| f.name() == name)
    }

    /// The tests (`kairos analyze --tests`) whose guarantee the policy's runs are held to; the
    /// set is accepted when any of them accepts it. Each analyses the policy as it runs:
    /// P-EDF's first-fit decreasing with exact EDF admission (the mapping then runs), G-FP in
    /// rate-monotonic order, and the RMWP tests' own partition and optional deadlines.
    pub fn tests(self) -> &'static str {
        match self {
            Family::Gedf => "gfb,bak,bcl,gedf-rta",
            Family::Pedf => "partitioned-ffd-edf",
            Family::Gfp | Family::GfpKernel => "gfp-bc,gfp-guan",
            Family::Edzl => "gedzl",
            Family::Grmwp => "g-rmwp",
            Family::Prmwp => "p-rmwp-cnf",
            Family::PfpKernel => "partitioned-ffd-fp",
        }
    }

    /// Imprecise tasks (the RMWP families) rather than plain periodic ones.
    pub fn imprecise(self) -> bool {
        matches!(self, Family::Grmwp | Family::Prmwp)
    }

    /// The priority order of the tests (rate-monotonic, as they assume for sets without
    /// priorities), which the fixed-priority policies then follow.
    pub fn order(self) -> PriorityOrder {
        PriorityOrder::RateMonotonic
    }
}

/// How a study draws its sets.
#[derive(Clone, Copy, Debug)]
pub struct Sets {
    pub cores: usize,
    /// Periodic sets: tasks per set (UUniFast-discard).
    pub tasks: usize,
    /// Whole milliseconds: log-uniform for periodic sets, uniform for imprecise ones (as
    /// Chishiro and Yamasaki draw them).
    pub periods_ms: (u64, u64),
}

impl Sets {
    /// The set of total utilization `utilization` drawn from `seed`: periodic with implicit
    /// deadlines, or imprecise (`kairos_gen::imprecise`). The periodic families share one set
    /// per seed and so do the imprecise ones, so the families judge the same sets.
    pub fn draw(&self, imprecise: bool, seed: u64, utilization: f64) -> Result<Workload, String> {
        let mut rng = seeded(seed);
        let (min_ms, max_ms) = self.periods_ms;
        let tasks = match imprecise {
            true => {
                let config = ImpreciseConfig {
                    periods_ms: self.periods_ms,
                    ..ImpreciseConfig::new(utilization)
                };
                generate_imprecise(&mut rng, &config)
            }
            false => generate_with_uunifast(
                &mut rng,
                self.tasks,
                utilization,
                PeriodDist::LogUniform { min_ms, max_ms },
                DeadlineDist::Implicit,
                Duration::from_micros(1),
                1.0,
            ),
        };
        Ok(make_workload(
            None,
            self.cores,
            tasks.map_err(|e| e.to_string())?,
        ))
    }
}

/// `workload` as `family` runs it after `verdict` accepted it: the verdict's partition written
/// into every task's `core` and its optional deadlines into every imprecise task (as a user
/// could write them), then prepared as `kairos run` prepares it, which keeps what the file
/// gives (`kairos_lab::imprecise`). No margin: the overhead-aware verdict's optional deadlines
/// already make room for the dispatcher's costs.
pub fn prepared(
    family: Family,
    workload: &Workload,
    verdict: &Verdict,
) -> Result<Workload, Failure> {
    let mut planned = workload.clone();
    for (i, task) in planned.tasks.iter_mut().enumerate() {
        if let Some(mapping) = &verdict.mapping {
            task.core = Some(CoreId(mapping[i]));
        }
        if let (Some(parts), Some(ods)) = (&mut task.imprecise, &verdict.optional_deadlines) {
            parts.optional_deadline = Some(ods[i]);
        }
    }
    // The notices say a verdict was negative; the verdict given here accepted the set.
    let mut quiet = |_: &str| {};
    let ready = prepare_with_margin(family.kind(), &planned, Duration::ZERO, &mut quiet)?;
    Ok(ready.into_owned())
}
