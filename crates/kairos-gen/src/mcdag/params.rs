//! The MC-DAG generator's parameters, their defaults (the reference protocol's shape) and their
//! checks.

use crate::error::GenError;
use kairos_model::Duration;

/// The generator's parameters; [`Default`] gives the reference protocol's shape.
#[derive(Clone, Debug, PartialEq)]
pub struct McDagParams {
    /// Number of DAGs.
    pub dags: usize,
    /// Tasks per DAG (`n`).
    pub tasks: usize,
    /// Number of criticality levels (`N`).
    pub levels: usize,
    /// Target utilization of every level (sum of `C(l) / T` over the tasks running at `l`).
    pub utilization: f64,
    /// Probability `e` of an edge from each earlier-rank vertex.
    pub edge_probability: f64,
    /// Most vertices per rank (`p`).
    pub max_per_rank: usize,
    /// `C(l) = max(1, floor(C(l+1) / reduction))` for tasks above level `l`; at least 1.
    pub reduction: f64,
    /// Share of the tasks whose own criticality is each level (lowest first); empty = equal
    /// shares. Every level gets at least one task per DAG whatever its share.
    pub level_fractions: Vec<f64>,
    /// Cores written into the system.
    pub cores: usize,
    /// Length of one slot: every period and WCET is a whole number of slots.
    pub slot: Duration,
    /// Periods divide this many slots, so the hyper-period does too; `None` = any integer in the
    /// range, as the reference tool (hyper-periods can then grow very large).
    pub hyperperiod_base: Option<u64>,
    /// Attempts before giving up with [`GenError::Infeasible`].
    pub max_attempts: u32,
    pub seed: u64,
}

impl McDagParams {
    /// 2^4 3^2 5^2 slots (3.6 s at 1 ms): every range `[x, 10x]` with `x <= 360` holds several
    /// divisors, and two DAGs' hyper-period stays at most 3600 slots.
    pub const DEFAULT_HYPERPERIOD_BASE: u64 = 3600;
}

impl Default for McDagParams {
    fn default() -> Self {
        McDagParams {
            dags: 1,
            tasks: 30,
            levels: 2,
            utilization: 4.0,
            edge_probability: 0.4,
            max_per_rank: 3,
            reduction: 2.0,
            level_fractions: Vec::new(),
            cores: 8,
            slot: Duration::from_millis(1),
            hyperperiod_base: Some(McDagParams::DEFAULT_HYPERPERIOD_BASE),
            max_attempts: 1000,
            seed: 0,
        }
    }
}

pub(super) fn check_params(p: &McDagParams) -> Result<(), GenError> {
    if p.dags == 0 {
        return Err(GenError::invalid("dags", p.dags, "at least 1"));
    }
    if p.levels == 0 {
        return Err(GenError::invalid("levels", p.levels, "at least 1"));
    }
    if p.tasks < p.levels {
        return Err(GenError::invalid(
            "tasks",
            p.tasks,
            "at least one task per level in each DAG",
        ));
    }
    if !(p.utilization.is_finite() && p.utilization > 0.0) {
        return Err(GenError::invalid(
            "utilization",
            p.utilization,
            "a finite number > 0",
        ));
    }
    if !(0.0..=1.0).contains(&p.edge_probability) {
        return Err(GenError::invalid(
            "edge_probability",
            p.edge_probability,
            "a probability in [0, 1]",
        ));
    }
    if p.max_per_rank == 0 {
        return Err(GenError::invalid(
            "max_per_rank",
            p.max_per_rank,
            "at least 1",
        ));
    }
    if !(p.reduction.is_finite() && p.reduction >= 1.0) {
        return Err(GenError::invalid(
            "reduction",
            p.reduction,
            "a finite number >= 1",
        ));
    }
    check_fractions(p)?;
    if p.cores == 0 {
        return Err(GenError::invalid("cores", p.cores, "at least 1"));
    }
    if p.slot.is_zero() {
        return Err(GenError::invalid("slot", p.slot, "a duration > 0"));
    }
    if p.hyperperiod_base == Some(0) {
        return Err(GenError::invalid(
            "hyperperiod_base",
            0,
            "at least 1 slot (or none)",
        ));
    }
    if p.max_attempts == 0 {
        return Err(GenError::invalid("max_attempts", 0, "at least 1"));
    }
    Ok(())
}

fn check_fractions(p: &McDagParams) -> Result<(), GenError> {
    let f = &p.level_fractions;
    if f.is_empty() {
        return Ok(());
    }
    let text = || format!("{f:?}");
    if f.len() != p.levels {
        return Err(GenError::invalid(
            "level_fractions",
            text(),
            "one share per level",
        ));
    }
    if f.iter().any(|x| !(x.is_finite() && *x >= 0.0)) || f.iter().sum::<f64>() <= 0.0 {
        return Err(GenError::invalid(
            "level_fractions",
            text(),
            "finite shares >= 0 with a positive sum",
        ));
    }
    Ok(())
}
