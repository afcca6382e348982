//! The manager's decision each period (the OS-latency study, section IV-B): from the learned
//! interference model, the best-effort shares that keep the predicted T_RT within the target
//! while giving best-effort work as much time as that allows, and in constrained execution
//! the RT reservation S_RT that supplies the predicted demand before the target (equation 6).
//! Equation 6 bounds the *cumulative* supply: the reservation also covers the work a late job
//! carried into the next job's window, so a backlog is worked off instead of growing.
//!
//! Keeping the prediction within the target with the most best-effort time is a fractional
//! knapsack: every core costs its slope per unit of share and gives one unit of share, so the
//! cores with the smallest slopes are filled first (exact for a linear model with box bounds).
//! Allocations change at most once per `hold` and only by a visible step: the study notes that
//! changing a partition costs, so the manager does not chase noise.

use super::model::InterferenceModel;
use kairos_model::managed::{Execution, MIN_CFS};
use kairos_model::Duration;
use serde::Serialize;

/// What the controller needs to know about the system.
#[derive(Clone, Debug)]
pub struct ControlConfig {
    pub execution: Execution,
    /// The enforcing period P.
    pub period: Duration,
    /// Free: the bound on T_RT; constrained: the bound on the response time.
    pub target: Duration,
    /// T_expected, measured in isolation.
    pub expected: Duration,
    /// The most best-effort time per period on each best-effort core (the file's S_BE).
    pub caps: Vec<Duration>,
    /// Which of the best-effort cores is the RT core, if best-effort work runs there.
    pub rt_core: Option<usize>,
    /// Constrained: the largest reservation the kernel admits.
    pub rt_max: Duration,
    pub hold: Duration,
    /// After this long without a change, raise one share below its cap to measure what it
    /// costs (zero: never). Without it a share held at its floor never shows whether the
    /// interference still follows it.
    pub probe: Duration,
}

/// One period's partition: S_BE per best-effort core and S_RT.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Shares {
    pub be: Vec<Duration>,
    pub rt: Duration,
}

/// A change the manager made, and why.
#[derive(Clone, Debug, Serialize)]
pub struct Change {
    /// The job after which it was made.
    pub job: u64,
    pub at: Duration,
    pub from: Shares,
    pub to: Shares,
    /// The predicted T_RT (free) or demand (constrained) with the old and the new shares.
    pub predicted_before: Duration,
    pub predicted_after: Duration,
    pub reason: String,
}

pub struct Controller {
    config: ControlConfig,
    current: Shares,
    last_change: Option<Duration>,
    /// Constrained: the reservation time the last job took from the next one's window.
    carried: Duration,
}

impl Controller {
    pub fn new(config: ControlConfig, initial: Shares) -> Controller {
        Controller {
            config,
            current: initial,
            last_change: None,
            carried: Duration::ZERO,
        }
    }

    /// Constrained execution: the RT work the last job carried into the next job's window
    /// (zero when it ended before the next release); the next reservation supplies it too.
    pub fn carry(&mut self, work: Duration) {
        self.carried = work;
    }

    pub fn current(&self) -> &Shares {
        &self.current
    }

    /// The shares as fractions of P, the model's regressors.
    pub fn fractions(&self, shares: &Shares) -> Vec<f64> {
        let p = self.config.period.as_nanos() as f64;
        shares.be.iter().map(|s| s.as_nanos() as f64 / p).collect()
    }

    /// T_expected plus the predicted interference with `shares`.
    pub fn predicted(&self, model: &InterferenceModel, shares: &Shares) -> Duration {
        let i = model.predict(&self.fractions(shares)).max(0.0);
        self.config.expected + Duration::from_nanos(i as u64)
    }

    /// After job `job` at time `at`: the change to make now, if any (rate-limited).
    pub fn step(&mut self, model: &InterferenceModel, job: u64, at: Duration) -> Option<Change> {
        if self.last_change.is_some_and(|t| at < t + self.config.hold) {
            return None;
        }
        let desired = self.desired(model);
        let (desired, probe) = match self.visible(&desired) {
            true => (desired, None),
            false => self.probe(at)?,
        };
        let (before, after) = (
            self.predicted(model, &self.current),
            self.predicted(model, &desired),
        );
        let reason = match probe {
            Some(text) => text,
            None => self.reason(model, &desired, before, after),
        };
        let change = Change {
            job,
            at,
            from: self.current.clone(),
            to: desired.clone(),
            predicted_before: before,
            predicted_after: after,
            reason,
        };
        self.current = desired;
        self.last_change = Some(at);
        Some(change)
    }

    /// The probe due at `at`, if any: the share furthest below its cap raised by up to a
    /// quarter of P, with its reason.
    fn probe(&self, at: Duration) -> Option<(Shares, Option<String>)> {
        let c = &self.config;
        let quiet_since = self.last_change.unwrap_or(Duration::ZERO);
        if c.probe.is_zero() || at < quiet_since + c.probe {
            return None;
        }
        let gaps = c
            .caps
            .iter()
            .zip(&self.current.be)
            .map(|(cap, now)| cap.saturating_sub(*now));
        let (i, gap) = gaps.enumerate().max_by_key(|(_, g)| *g)?;
        if gap.as_nanos() < c.period.as_nanos() / 50 {
            return None;
        }
        let mut probed = self.current.clone();
        probed.be[i] += gap.min(Duration::from_nanos(c.period.as_nanos() / 4));
        let why = format!(
            "probe: no change for {}; S_BE of best-effort core {i} raised {} -> {} to measure the interference it brings",
            at.saturating_sub(quiet_since), self.current.be[i], probed.be[i]
        );
        Some((probed, Some(why)))
    }

    /// The shares the model recommends.
    pub fn desired(&self, model: &InterferenceModel) -> Shares {
        let c = &self.config;
        let p = c.period.as_nanos() as f64;
        let slopes = model.slopes();
        let floor = MIN_CFS.as_nanos() as f64 / p;
        let caps: Vec<f64> = c.caps.iter().map(|s| s.as_nanos() as f64 / p).collect();
        let mut u: Vec<f64> = caps.iter().map(|cap| floor.min(*cap)).collect();
        let (budget, free_cores): (f64, Vec<usize>) = match c.execution {
            Execution::Free => (
                nanos(c.target) - nanos(c.expected) - model.intercept(),
                (0..u.len()).collect(),
            ),
            Execution::Constrained => {
                // The RT core's own best-effort share is charged at its cap: it only gets
                // what the reservation leaves, decided after the reservation.
                let rt_term = c.rt_core.map_or(0.0, |i| slopes[i].max(0.0) * caps[i]);
                let supply = nanos(c.rt_max) * self.periods_in_target() as f64;
                let others = (0..u.len()).filter(|i| Some(*i) != c.rt_core).collect();
                (
                    supply - nanos(c.expected) - model.intercept() - rt_term,
                    others,
                )
            }
        };
        let negligible = p / 50.0;
        knapsack(&mut u, &caps, slopes, budget, &free_cores, negligible);
        let mut shares = Shares {
            be: u.iter().map(|x| micros(x * p)).collect(),
            rt: self.current.rt,
        };
        if c.execution == Execution::Constrained {
            self.reserve(model, &mut shares);
        }
        shares
    }

    /// Constrained execution: S_RT supplies the predicted demand within the target's whole
    /// periods; the RT core's best-effort work gets what remains, up to its cap.
    fn reserve(&self, model: &InterferenceModel, shares: &mut Shares) {
        let c = &self.config;
        let mut charged = shares.clone();
        if let Some(i) = c.rt_core {
            charged.be[i] = c.caps[i];
        }
        let demand = (self.predicted(model, &charged) + self.carried).as_nanos();
        let n = self.periods_in_target();
        let rt = Duration::from_nanos(demand.div_ceil(n));
        shares.rt = micros_up(rt.as_nanos() as f64).clamp(MIN_CFS, c.rt_max);
        if let Some(i) = c.rt_core {
            let left = c.period.saturating_sub(shares.rt);
            shares.be[i] = c.caps[i].min(left).max(MIN_CFS);
        }
    }

    fn periods_in_target(&self) -> u64 {
        (self.config.target.as_nanos() / self.config.period.as_nanos()).max(1)
    }

    /// Whether `desired` differs from the current shares by more than noise: 2 % of P.
    fn visible(&self, desired: &Shares) -> bool {
        let step = self.config.period.as_nanos() / 50;
        let differs = |a: Duration, b: Duration| a.as_nanos().abs_diff(b.as_nanos()) >= step;
        desired
            .be
            .iter()
            .zip(&self.current.be)
            .any(|(a, b)| differs(*a, *b))
            || differs(desired.rt, self.current.rt)
    }

    fn reason(
        &self,
        model: &InterferenceModel,
        desired: &Shares,
        before: Duration,
        after: Duration,
    ) -> String {
        let total = |s: &Shares| s.be.iter().map(|d| d.as_nanos()).sum::<u64>();
        let slopes: Vec<String> = model
            .slopes()
            .iter()
            .map(|b| format!("{}", Duration::from_nanos(b.max(0.0) as u64)))
            .collect();
        let target = self.config.target;
        let what = match self.config.execution {
            Execution::Free => "T_RT",
            Execution::Constrained => "demand",
        };
        let mut text = match total(desired).cmp(&total(&self.current)) {
            std::cmp::Ordering::Less => format!("predicted {what} {before} with the current shares against the target {target}: less best-effort time, predicted {after}"),
            std::cmp::Ordering::Greater if after <= target => format!("predicted {what} {after} with more best-effort time is within the target {target} (now {before})"),
            std::cmp::Ordering::Greater => format!("the target {target} is out of reach at any share and cutting best-effort time does not move the prediction ({before} now, {after} with more): best-effort time given back"),
            std::cmp::Ordering::Equal => format!("predicted {what} {after} against the target {target}: the reservation follows the demand"),
        };
        let a = model.intercept();
        let sign = if a < 0.0 { "-" } else { "" };
        let a = Duration::from_nanos(a.abs() as u64);
        text.push_str(&format!(
            "; slopes per full core [{}], intercept {sign}{a}",
            slopes.join(", ")
        ));
        if desired.rt != self.current.rt {
            text.push_str(&format!(
                "; S_RT {} -> {} so that {} period(s) supply the demand",
                self.current.rt,
                desired.rt,
                self.periods_in_target()
            ));
            if !self.carried.is_zero() {
                text.push_str(&format!(" and {} carried over", self.carried));
            }
        }
        text
    }
}

/// Raises the shares of `cores` from their floors, smallest slope first, while the predicted
/// interference stays within `budget` (ns); a core with no positive slope goes to its cap.
/// When even the floors miss the budget, the target is out of reach: a core whose whole share
/// moves the prediction by less than `negligible` (ns) keeps its cap, since cutting it would
/// cost best-effort work and buy nothing visible; the others stay at their floors.
fn knapsack(
    u: &mut [f64],
    caps: &[f64],
    slopes: &[f64],
    budget: f64,
    cores: &[usize],
    negligible: f64,
) {
    let cost = |i: usize, share: f64| slopes[i].max(0.0) * share;
    let mut left = budget - cores.iter().map(|&i| cost(i, u[i])).sum::<f64>();
    if left < 0.0 {
        for &i in cores {
            if cost(i, (caps[i] - u[i]).max(0.0)) < negligible {
                u[i] = caps[i];
            }
        }
        return;
    }
    let mut order = cores.to_vec();
    order.sort_by(|a, b| slopes[*a].total_cmp(&slopes[*b]));
    for i in order {
        let room = caps[i] - u[i];
        if room <= 0.0 {
            continue;
        }
        let slope = slopes[i];
        let raise = match slope <= 0.0 {
            true => room,
            false => (left / slope).clamp(0.0, room),
        };
        u[i] += raise;
        left -= slope.max(0.0) * raise;
    }
}

fn nanos(d: Duration) -> f64 {
    d.as_nanos() as f64
}

/// Whole microseconds (the cgroup files' unit), rounded down.
fn micros(ns: f64) -> Duration {
    Duration::from_micros((ns / 1000.0).floor().max(0.0) as u64)
}

fn micros_up(ns: f64) -> Duration {
    Duration::from_micros((ns / 1000.0).ceil().max(0.0) as u64)
}

#[cfg(test)]
#[path = "control_tests.rs"]
mod tests;
