//! Scheduling overheads: a fixed duration per event, or a distribution measured on a machine
//! (`kairos bench overheads` writes one). The simulator charges the first three per switch-in,
//! drawing each charge from its distribution; the overhead-aware analysis
//! (`kairos_analysis::overheads`) charges every one at a chosen quantile.

use crate::time::Duration;
use serde::Serialize;

/// Scheduling costs for the simulator, all zero by default (see `docs/simulate.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Overheads {
    /// Charged each time a job starts or resumes on a core (the decision that put it there).
    pub scheduling: Cost,
    /// Charged each time a job starts or resumes on a core.
    pub context_switch: Cost,
    /// Charged in addition when the job resumes on a different core than it last ran on.
    pub migration: Cost,
    /// The dispatcher's pass that handles a job's release, which interrupts whatever runs on
    /// its core (analysis only).
    #[serde(skip_serializing_if = "Cost::is_zero")]
    pub release: Cost,
    /// How late a release is handled after its instant: the timer's lateness (analysis only).
    #[serde(skip_serializing_if = "Cost::is_zero")]
    pub release_latency: Cost,
    /// From one core asking another to reschedule (a doorbell, an IPI) to that core's handler
    /// (analysis only).
    #[serde(skip_serializing_if = "Cost::is_zero")]
    pub ipi: Cost,
    /// The policy's callback at the end of an imprecise job's part (analysis only).
    #[serde(skip_serializing_if = "Cost::is_zero")]
    pub part_callback: Cost,
    /// How much of each CPU the measured machine's kernel leaves to real-time threads, when it
    /// throttles them (analysis only): `None` when it does not.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rt_throttle: Option<RtThrottle>,
    /// The share of a running job's wall time the measured machine kept from its work
    /// (analysis only): zero unless measured.
    #[serde(skip_serializing_if = "ExecutionLoss::is_zero")]
    pub execution_loss: ExecutionLoss,
}

/// Linux's real-time throttling: on each CPU, real-time threads may run `runtime` of every
/// `period` (`/proc/sys/kernel/sched_rt_runtime_us` of `sched_rt_period_us`, 950 ms of 1 s by
/// default); past it the kernel stops all of them there until the period ends, which a
/// schedule that needs more of the CPU meets as a blackout of up to `period - runtime`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct RtThrottle {
    pub runtime: Duration,
    pub period: Duration,
}

impl RtThrottle {
    /// `runtime / period`, at most 1: the share of a CPU real-time work may use.
    pub fn share(&self) -> f64 {
        match self.period.as_nanos() {
            0 => 1.0,
            period => (self.runtime.as_nanos() as f64 / period as f64).min(1.0),
        }
    }
}

/// The share of a running job's wall time in which it did no work of its own on the measured
/// machine, in parts per million (`kairos bench overheads` measures it on the dispatcher's
/// workers: their segments' wall time less their calibrated work and their dispatcher's
/// passes). It is what interrupts (which this kernel charges to the thread they interrupt),
/// kairos's own stall watcher (a real-time thread waking every millisecond on each core) and a
/// core slower than at calibration take: a job of work `C` holds its core
/// `C / (1 - loss)`, and its real-time CPU time counts against the kernel's throttling.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Serialize)]
#[serde(transparent)]
pub struct ExecutionLoss {
    ppm: u32,
}

impl ExecutionLoss {
    /// The largest loss a profile may give: above it a job would need ten times its work.
    pub const MAX_PPM: u32 = 900_000;

    /// `None` above [`ExecutionLoss::MAX_PPM`].
    pub fn from_ppm(ppm: u32) -> Option<ExecutionLoss> {
        (ppm <= Self::MAX_PPM).then_some(ExecutionLoss { ppm })
    }

    pub fn ppm(self) -> u32 {
        self.ppm
    }

    pub fn is_zero(&self) -> bool {
        self.ppm == 0
    }

    /// `1 - loss`: the share of its wall time a running job works.
    pub fn kept(self) -> f64 {
        1.0 - f64::from(self.ppm) / 1e6
    }
}

impl Overheads {
    /// Every cost fixed at the given durations.
    pub fn fixed(scheduling: Duration, context_switch: Duration, migration: Duration) -> Self {
        Overheads {
            scheduling: Cost::Fixed(scheduling),
            context_switch: Cost::Fixed(context_switch),
            migration: Cost::Fixed(migration),
            ..Overheads::default()
        }
    }

    pub fn is_zero(&self) -> bool {
        self.costs().iter().all(|(_, c)| c.is_zero())
    }

    /// Every measured cost fixed at its largest charge (a profile cut at a quantile has that
    /// quantile as its largest): a simulation charging it draws nothing, so two runs of it
    /// that differ in their events charge each switch the same.
    pub fn fixed_at_largest(&self) -> Overheads {
        let fix = |c: Cost| Cost::Fixed(c.at(1.0));
        Overheads {
            scheduling: fix(self.scheduling),
            context_switch: fix(self.context_switch),
            migration: fix(self.migration),
            release: fix(self.release),
            release_latency: fix(self.release_latency),
            ipi: fix(self.ipi),
            part_callback: fix(self.part_callback),
            ..*self
        }
    }

    /// Every cost with its key in the `[overheads]` table, in the table's order.
    pub fn costs(&self) -> [(&'static str, Cost); 7] {
        [
            ("scheduling", self.scheduling),
            ("context_switch", self.context_switch),
            ("migration", self.migration),
            ("release", self.release),
            ("release_latency", self.release_latency),
            ("ipi", self.ipi),
            ("part_callback", self.part_callback),
        ]
    }
}

/// One overhead: the same duration every time, or drawn from a measured distribution.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Cost {
    Fixed(Duration),
    Measured(Quantiles),
}

impl Default for Cost {
    fn default() -> Self {
        Cost::Fixed(Duration::ZERO)
    }
}

impl From<Duration> for Cost {
    fn from(d: Duration) -> Self {
        Cost::Fixed(d)
    }
}

impl Cost {
    pub fn is_zero(&self) -> bool {
        match self {
            Cost::Fixed(d) => d.is_zero(),
            Cost::Measured(q) => q.max.is_zero(),
        }
    }

    /// The median charge (the fixed value itself for a fixed cost).
    pub fn median(&self) -> Duration {
        match self {
            Cost::Fixed(d) => *d,
            Cost::Measured(q) => q.p50,
        }
    }

    /// The charge at cumulative probability `u` in `[0, 1]`: the fixed value, or the quantile
    /// function of the distribution (see [`Quantiles::at`]). A simulator draws `u` uniformly.
    pub fn at(&self, u: f64) -> Duration {
        match self {
            Cost::Fixed(d) => *d,
            Cost::Measured(q) => q.at(u),
        }
    }
}

/// A measured distribution given by five quantiles, non-decreasing, and optionally a sixth
/// between `p99` and `max`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct Quantiles {
    pub min: Duration,
    pub p50: Duration,
    pub p90: Duration,
    pub p99: Duration,
    /// The 99.9th percentile, which `kairos bench overheads` writes since it is charged
    /// (`--overhead-quantile p999`); profiles written before have none. Draws of the simulator
    /// do not use it ([`Quantiles::at`]), so a profile simulates the same with or without it.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub p999: Option<Duration>,
    pub max: Duration,
}

/// Keys of a distribution in the workload file, in order; every one is required.
pub const QUANTILE_KEYS: [&str; 5] = ["min", "p50", "p90", "p99", "max"];

/// The optional key of a distribution, between `p99` and `max`.
pub const P999_KEY: &str = "p999";

impl Quantiles {
    /// The values in [`QUANTILE_KEYS`] order.
    pub fn values(&self) -> [Duration; 5] {
        [self.min, self.p50, self.p90, self.p99, self.max]
    }

    /// Builds a distribution from values in [`QUANTILE_KEYS`] order; `None` if they decrease.
    pub fn from_values(values: [Duration; 5]) -> Option<Quantiles> {
        values
            .windows(2)
            .all(|w| w[0] <= w[1])
            .then_some(Quantiles {
                min: values[0],
                p50: values[1],
                p90: values[2],
                p99: values[3],
                p999: None,
                max: values[4],
            })
    }

    /// The same with its 99.9th percentile; `None` unless `p99 <= p999 <= max`.
    pub fn with_p999(self, p999: Duration) -> Option<Quantiles> {
        (self.p99 <= p999 && p999 <= self.max).then_some(Quantiles {
            p999: Some(p999),
            ..self
        })
    }

    /// The same distribution cut at `at`: every point above it lowered to it, so that no draw
    /// exceeds it.
    pub fn capped(self, at: Duration) -> Quantiles {
        let cut = |d: Duration| d.min(at);
        Quantiles {
            min: cut(self.min),
            p50: cut(self.p50),
            p90: cut(self.p90),
            p99: cut(self.p99),
            p999: self.p999.map(cut),
            max: cut(self.max),
        }
    }

    /// The quantile function, linear between the five points (probabilities 0, 0.5, 0.9, 0.99
    /// and 1), at `u` clamped to `[0, 1]`: what a draw of a uniform `u` gives, so draws follow the
    /// measured shape, tail included, and never leave `[min, max]`.
    pub fn at(&self, u: f64) -> Duration {
        const PROBABILITIES: [f64; 5] = [0.0, 0.5, 0.9, 0.99, 1.0];
        let u = u.clamp(0.0, 1.0);
        let values = self.values();
        let upper = PROBABILITIES[1..].iter().position(|&p| u <= p).unwrap_or(3) + 1;
        let (p0, p1) = (PROBABILITIES[upper - 1], PROBABILITIES[upper]);
        let (v0, v1) = (values[upper - 1].as_nanos(), values[upper].as_nanos());
        // Interpolation in f64 only; the charge is whole nanoseconds inside [v0, v1].
        let offset = ((u - p0) / (p1 - p0) * (v1 - v0) as f64).round() as u64;
        Duration::from_nanos(v0 + offset.min(v1 - v0))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn us(v: u64) -> Duration {
        Duration::from_micros(v)
    }

    fn measured() -> Quantiles {
        Quantiles::from_values([us(2), us(4), us(10), us(30), us(100)]).unwrap()
    }

    #[test]
    fn the_quantile_function_passes_through_its_points_and_stays_inside() {
        let q = measured();
        assert_eq!(q.at(0.0), us(2));
        assert_eq!(q.at(0.5), us(4));
        assert_eq!(q.at(0.9), us(10));
        assert_eq!(q.at(0.99), us(30));
        assert_eq!(q.at(1.0), us(100));
        assert_eq!(q.at(0.25), us(3));
        assert_eq!(q.at(-1.0), us(2));
        assert_eq!(q.at(2.0), us(100));
        let mut last = Duration::ZERO;
        for i in 0..=1000 {
            let v = q.at(i as f64 / 1000.0);
            assert!(v >= last && v >= q.min && v <= q.max, "{v} at {i}");
            last = v;
        }
    }

    #[test]
    fn decreasing_values_are_not_a_distribution() {
        assert!(Quantiles::from_values([us(2), us(1), us(3), us(4), us(5)]).is_none());
        assert!(Quantiles::from_values([us(1); 5]).is_some());
        // p999 between p99 (30) and max (100), either end included.
        assert_eq!(measured().with_p999(us(60)).unwrap().p999, Some(us(60)));
        assert!(measured().with_p999(us(30)).is_some() && measured().with_p999(us(100)).is_some());
        assert!(measured().with_p999(us(29)).is_none() && measured().with_p999(us(101)).is_none());
    }

    #[test]
    fn a_loss_is_a_share_of_at_most_nine_tenths() {
        let loss = |ppm| ExecutionLoss::from_ppm(ppm).unwrap();
        assert_eq!(loss(0).kept(), 1.0);
        assert_eq!(loss(250_000).kept(), 0.75);
        assert!((loss(900_000).kept() - 0.1).abs() < 1e-12);
        assert!(ExecutionLoss::from_ppm(900_001).is_none());
    }

    #[test]
    fn a_fixed_cost_is_the_same_at_every_probability() {
        let c = Cost::from(us(7));
        assert_eq!((c.at(0.0), c.at(0.7), c.median()), (us(7), us(7), us(7)));
        assert!(Cost::default().is_zero());
        assert_eq!(Cost::Measured(measured()).median(), us(4));
    }
}
