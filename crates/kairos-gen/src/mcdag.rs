//! Random MC-DAG systems, after the generator of the MC-DAG framework used by seed
//! Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems" (section 4.1 for the model, section 7 for the experiments) and
//! described in notes/generators.md ("MC-DAG"), with a seed.
//!
//! Procedure, for one attempt (all in integer slots of [`McDagParams::slot`]):
//! 1. per-DAG utilizations `U_g` by UUniFast over the DAGs, summing to `U`;
//! 2. each DAG's period `T_g` (= its deadline) is an integer drawn uniformly in
//!    `[n / U_g, 10 n / U_g]`; with [`McDagParams::hyperperiod_base`] set (the default), only among
//!    the divisors of that base, so the hyper-period divides it and stays moderate;
//! 3. each DAG's budget `B_g = round(U_g T_g)` slots, the last DAG's chosen so that the sum of
//!    `B_g / T_g` is as close to `U` as integers allow; every level gets the same budget, so every
//!    level's utilization is the same;
//! 4. the tasks are split among criticality levels (every level gets at least one task per DAG,
//!    the rest by [`McDagParams::level_fractions`]) and the levels are shuffled over the vertices;
//! 5. WCETs top-down: the tasks of the highest level share `B_g` by UUniFast-discard (each
//!    `C <= T`); at each lower level `l`, every higher task's WCET is the one above divided by the
//!    reduction factor (rounded down, at least one slot), and the tasks whose own level is `l`
//!    share what is left of `B_g` by UUniFast-discard; integer WCETs come from the utilizations by
//!    largest remainders, at least one slot each;
//! 6. vertices are created rank by rank (`1..=p` per rank); each earlier-rank vertex gets an edge
//!    to the new one with probability `e`, kept only if it never goes from a lower to a higher
//!    criticality (the reference generator never does) and the critical path still fits the
//!    deadline at every level (absent tasks weigh 0 there);
//! 7. the attempt is accepted when every level's utilization is within 0.1 % of `U`; otherwise
//!    the next draw of the same stream is tried, up to [`McDagParams::max_attempts`].
//!
//! Assumptions:
//! 1. implicit deadlines (`D = T`), as in the reference tool;
//! 2. a DAG has at least as many tasks as there are levels (one per level, so every level's
//!    budget can be met exactly);
//! 3. determinism follows the crate's rules ([`crate::rng`]): the same parameters give the same
//!    system on every machine.

use crate::error::GenError;
use crate::rng::{below, seeded, shuffle, uniform_inclusive, unit_f64, ChaCha8Rng};
use crate::uunifast::{uunifast, uunifast_discard, Discard};
use kairos_model::mcdag_xml::level_names;
use kairos_model::{Dag, McSystem, McTask};

mod params;

use params::check_params;
pub use params::McDagParams;

/// Relative tolerance on every level's utilization (notes/generators.md: 0.1 %).
pub const UTILIZATION_TOLERANCE: f64 = 1e-3;

/// A system drawn with `params.seed`.
pub fn generate_mcdag(params: &McDagParams) -> Result<McSystem, GenError> {
    generate_mcdag_with(&mut seeded(params.seed), params)
}

/// A system drawn from `rng` (`params.seed` is only used for the system's name), for callers
/// that draw many systems from one stream.
pub fn generate_mcdag_with(
    rng: &mut ChaCha8Rng,
    params: &McDagParams,
) -> Result<McSystem, GenError> {
    let shape = Shape::new(params)?;
    let top = shape.per_level[params.levels - 1];
    if params.utilization >= (params.dags * top) as f64 {
        return Err(GenError::Infeasible(format!(
            "utilization {} needs more than {top} task(s) of the highest level in each of the {} \
             DAG(s): a task's utilization is at most 1 and only those tasks run at that level \
             (raise the task count, the highest level's share, or the DAG count)",
            params.utilization, params.dags
        )));
    }
    for _ in 0..params.max_attempts {
        if let Some(system) = attempt(rng, params, &shape) {
            return Ok(system);
        }
    }
    Err(GenError::Infeasible(format!(
        "no system in {} attempts had every level's utilization within 0.1 % of {} with WCETs \
         that fit the periods; use more tasks per DAG, a lower utilization, or more attempts",
        params.max_attempts, params.utilization
    )))
}

/// What the parameters fix before any draw: tasks per level and the allowed periods.
struct Shape {
    /// Tasks whose own criticality is each level, per DAG.
    per_level: Vec<usize>,
    /// Sorted divisors of the hyper-period base, when there is one.
    divisors: Option<Vec<u64>>,
}

impl Shape {
    fn new(p: &McDagParams) -> Result<Shape, GenError> {
        check_params(p)?;
        let fractions = if p.level_fractions.is_empty() {
            vec![1.0; p.levels]
        } else {
            p.level_fractions.clone()
        };
        Ok(Shape {
            per_level: split_counts(p.tasks, &fractions),
            divisors: p.hyperperiod_base.map(divisors),
        })
    }
}

/// One task per level, then the other `n - N` by largest remainders of the shares.
fn split_counts(n: usize, fractions: &[f64]) -> Vec<usize> {
    let mut counts = vec![1; fractions.len()];
    let extra = apportion(n - fractions.len(), fractions);
    for (c, e) in counts.iter_mut().zip(extra) {
        *c += e as usize;
    }
    counts
}

/// Splits `total` into integers proportional to `weights` (largest remainders, ties to the
/// lower index). `weights` are finite, `>= 0`, with a positive sum.
fn apportion(total: usize, weights: &[f64]) -> Vec<u64> {
    let sum: f64 = weights.iter().sum();
    let exact: Vec<f64> = weights.iter().map(|w| w / sum * total as f64).collect();
    let mut parts: Vec<u64> = exact.iter().map(|x| x.floor() as u64).collect();
    let given: u64 = parts.iter().sum();
    let mut order: Vec<usize> = (0..weights.len()).collect();
    order.sort_by(|&a, &b| {
        let (fa, fb) = (exact[a] - exact[a].floor(), exact[b] - exact[b].floor());
        fb.total_cmp(&fa).then(a.cmp(&b))
    });
    for &i in order
        .iter()
        .cycle()
        .take((total as u64).saturating_sub(given) as usize)
    {
        parts[i] += 1;
    }
    parts
}

/// Divisors of `n`, sorted.
fn divisors(n: u64) -> Vec<u64> {
    let mut small = Vec::new();
    let mut large = Vec::new();
    let mut d = 1;
    while d <= n / d {
        if n.is_multiple_of(d) {
            small.push(d);
            if d != n / d {
                large.push(n / d);
            }
        }
        d += 1;
    }
    small.extend(large.into_iter().rev());
    small
}

/// One draw of a whole system; `None` when it must be redrawn.
fn attempt(rng: &mut ChaCha8Rng, p: &McDagParams, shape: &Shape) -> Option<McSystem> {
    let shares = uunifast(rng, p.dags, p.utilization).ok()?;
    let periods = shares
        .iter()
        .map(|&u| draw_period(rng, p.tasks, u, shape.divisors.as_deref()))
        .collect::<Option<Vec<u64>>>()?;
    let budgets = budgets(p.utilization, &shares, &periods)?;
    let mut dags = Vec::with_capacity(p.dags);
    for (g, (&period, &budget)) in periods.iter().zip(&budgets).enumerate() {
        dags.push(draw_dag(rng, p, shape, g, period, budget)?);
    }
    let system = McSystem {
        name: Some(format!(
            "mcdag-n{}-u{}-seed{}",
            p.tasks, p.utilization, p.seed
        )),
        cores: p.cores,
        levels: level_names(p.levels),
        dags,
    };
    system.hyperperiod()?;
    let target = p.utilization;
    (0..p.levels)
        .all(|l| (system.utilization_at(l) - target).abs() <= UTILIZATION_TOLERANCE * target)
        .then_some(system)
}

/// A period in slots, uniform among the allowed integers of `[n / u, 10 n / u]`.
fn draw_period(rng: &mut ChaCha8Rng, n: usize, u: f64, divisors: Option<&[u64]>) -> Option<u64> {
    let lo = (n as f64 / u).ceil().max(1.0);
    let hi = (10.0 * n as f64 / u).floor();
    if !(hi.is_finite() && hi >= lo && hi < u64::MAX as f64) {
        return None;
    }
    let (lo, hi) = (lo as u64, hi as u64);
    match divisors {
        None => Some(uniform_inclusive(rng, lo, hi)),
        Some(all) => {
            let from = all.partition_point(|&d| d < lo);
            let to = all.partition_point(|&d| d <= hi);
            let allowed = all.get(from..to).filter(|a| !a.is_empty())?;
            Some(allowed[below(rng, allowed.len() as u64) as usize])
        }
    }
}

/// Per-DAG budgets in slots: `round(U_g T_g)`, the last one correcting the sum towards `U`.
fn budgets(target: f64, shares: &[f64], periods: &[u64]) -> Option<Vec<u64>> {
    let (last, others) = periods.split_last()?;
    let mut budgets: Vec<u64> = shares
        .iter()
        .zip(others)
        .map(|(&u, &t)| (u * t as f64).round() as u64)
        .collect();
    let used: f64 = budgets
        .iter()
        .zip(others)
        .map(|(&b, &t)| b as f64 / t as f64)
        .sum();
    let rest = ((target - used) * *last as f64).round();
    if rest < 1.0 {
        return None;
    }
    budgets.push(rest as u64);
    Some(budgets)
}

/// One DAG: levels, WCETs, then the graph.
fn draw_dag(
    rng: &mut ChaCha8Rng,
    p: &McDagParams,
    shape: &Shape,
    g: usize,
    period: u64,
    budget: u64,
) -> Option<Dag> {
    let mut criticality: Vec<usize> = shape
        .per_level
        .iter()
        .enumerate()
        .flat_map(|(level, &count)| std::iter::repeat_n(level, count))
        .collect();
    shuffle(rng, &mut criticality);
    let wcets = draw_wcets(rng, p, &criticality, period, budget)?;
    let edges = draw_edges(rng, p, &criticality, &wcets, period);
    let slot = |n: u64| p.slot.checked_mul(n);
    let tasks = wcets
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let wcet = w.iter().map(|&c| slot(c)).collect::<Option<Vec<_>>>()?;
            Some(McTask {
                name: format!("t{i}"),
                wcet,
            })
        })
        .collect::<Option<Vec<_>>>()?;
    Some(Dag {
        name: format!("g{g}"),
        period: slot(period)?,
        deadline: slot(period)?,
        tasks,
        edges,
    })
}

/// WCETs in slots per task, for levels `0..=criticality`, built from the top level down.
fn draw_wcets(
    rng: &mut ChaCha8Rng,
    p: &McDagParams,
    criticality: &[usize],
    period: u64,
    budget: u64,
) -> Option<Vec<Vec<u64>>> {
    let n = criticality.len();
    let mut wcets: Vec<Vec<u64>> = criticality.iter().map(|&c| vec![0; c + 1]).collect();
    for level in (0..p.levels).rev() {
        let mut used = 0u64;
        for i in (0..n).filter(|&i| criticality[i] > level) {
            let shrunk = (wcets[i][level + 1] as f64 / p.reduction).floor().max(1.0) as u64;
            wcets[i][level] = shrunk;
            used += shrunk;
        }
        let own: Vec<usize> = (0..n).filter(|&i| criticality[i] == level).collect();
        let left = budget.checked_sub(used)?;
        for (&i, c) in own.iter().zip(share_budget(rng, own.len(), left, period)?) {
            wcets[i][level] = c;
        }
    }
    Some(wcets)
}

/// `count` integer WCETs summing to `budget`, each in `1..=period`: UUniFast-discard shares
/// (each utilization at most 1), one slot each plus largest remainders of the rest.
fn share_budget(rng: &mut ChaCha8Rng, count: usize, budget: u64, period: u64) -> Option<Vec<u64>> {
    let spare = budget.checked_sub(count as u64)?;
    let discard = Discard {
        cap: 1.0,
        max_attempts: 100,
    };
    let shares = uunifast_discard(rng, count, budget as f64 / period as f64, discard).ok()?;
    let wcets: Vec<u64> = apportion(spare as usize, &shares)
        .into_iter()
        .map(|c| c + 1)
        .collect();
    wcets.iter().all(|&c| c <= period).then_some(wcets)
}

/// Edges rank by rank, never from a lower to a higher criticality, keeping the critical path of
/// every level within the deadline.
fn draw_edges(
    rng: &mut ChaCha8Rng,
    p: &McDagParams,
    criticality: &[usize],
    wcets: &[Vec<u64>],
    deadline: u64,
) -> Vec<(usize, usize)> {
    let n = criticality.len();
    let cost = |v: usize, l: usize| wcets[v].get(l).copied().unwrap_or(0);
    // head[v][l]: longest path ending with v at level l (absent tasks weigh 0).
    let mut head: Vec<Vec<u64>> = (0..n)
        .map(|v| (0..p.levels).map(|l| cost(v, l)).collect())
        .collect();
    let mut edges = Vec::new();
    let mut rank_start = 0;
    while rank_start < n {
        let size = uniform_inclusive(rng, 1, p.max_per_rank as u64) as usize;
        let rank_end = (rank_start + size).min(n);
        for v in rank_start..rank_end {
            for u in 0..rank_start {
                let wanted = unit_f64(rng) < p.edge_probability;
                let fits = (0..p.levels).all(|l| head[u][l] + cost(v, l) <= deadline);
                if wanted && criticality[u] >= criticality[v] && fits {
                    edges.push((u, v));
                    let through_u: Vec<u64> =
                        (0..p.levels).map(|l| head[u][l] + cost(v, l)).collect();
                    for (h, through) in head[v].iter_mut().zip(through_u) {
                        *h = (*h).max(through);
                    }
                }
            }
        }
        rank_start = rank_end;
    }
    edges
}

#[cfg(test)]
mod tests;
