//! One profile from two runs of different loads: each cost, at each quantile, the larger of the
//! two. A dispatcher's costs depend on what its cores do between decisions: a core kept busy by
//! imprecise jobs' optional parts (best-effort threads, so never idle) takes its timers and
//! switches later than a core that idles between periodic jobs (on this machine kind, context
//! switch p99 about 1.5 times and timer lateness about 1.25 times), so a profile that an
//! analysis charges to both kinds of set holds each cost at its worse.

use super::Measured;

/// Quantile-wise maximum (non-decreasing, as both are).
fn worse([a, b]: [&[u64; 6]; 2]) -> [u64; 6] {
    std::array::from_fn(|i| a[i].max(b[i]))
}

/// The worse of two optional distributions, or the one measured.
fn worse_measured(a: Option<[u64; 6]>, b: Option<[u64; 6]>) -> Option<[u64; 6]> {
    match (a, b) {
        (Some(a), Some(b)) => Some(worse([&a, &b])),
        (a, b) => a.or(b),
    }
}

impl Measured {
    /// This profile and `other`'s, each cost at each quantile the larger of the two, the
    /// execution loss the larger share. What the file's comment says of the run that measured
    /// it stays this run's: its policy, CPUs, counts of decisions, switch-ins and migrations,
    /// the floor under `context_switch` (measured after it) and the real-time throttling.
    pub fn worse_of(self, other: &Measured) -> Measured {
        Measured {
            scheduling: worse([&self.scheduling, &other.scheduling]),
            context_switch: worse([&self.context_switch, &other.context_switch]),
            migration: worse([&self.migration, &other.migration]),
            release: worse([&self.release, &other.release]),
            release_latency: worse_measured(self.release_latency, other.release_latency),
            ipi: worse_measured(self.ipi, other.ipi),
            part_callback: worse_measured(self.part_callback, other.part_callback),
            execution_loss_ppm: self.execution_loss_ppm.max(other.execution_loss_ppm),
            ..self
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn profile(scale: u64, part_callback: Option<[u64; 6]>) -> Measured {
        let q = |base: u64| [1, 2, 3, 4, 5, 6].map(|k| k * base * scale);
        Measured {
            dispatch: "user",
            policy: "gedf",
            cpus: 2,
            scheduling: q(10),
            context_switch: q(20),
            migration: q(30),
            release: q(10),
            release_latency: Some(q(40)),
            ipi: None,
            part_callback,
            same_core_floor: Some(q(5)),
            rt_throttle_us: Some((950_000, 1_000_000)),
            execution_loss_ppm: 30_000 * scale as u32,
            decisions: 100,
            switch_ins: 50,
            migrations: 7,
        }
    }

    #[test]
    fn each_quantile_is_the_larger_and_a_cost_one_run_lacks_is_the_others() {
        let mut heavy = profile(2, Some([7, 8, 9, 10, 11, 12]));
        // Heavier at the tail only: the light run's median stands.
        heavy.context_switch = [1, 5, 100, 200, 300, 400];
        heavy.ipi = Some([3, 3, 3, 3, 3, 3]);
        heavy.policy = "grmwp";
        heavy.cpus = 4;
        let light = profile(1, None);
        let both = light.worse_of(&heavy);
        assert_eq!(both.context_switch, [20, 40, 100, 200, 300, 400]);
        assert_eq!(both.scheduling, [20, 40, 60, 80, 100, 120]);
        assert_eq!(both.release_latency, Some([80, 160, 240, 320, 400, 480]));
        assert_eq!(both.ipi, Some([3; 6]));
        assert_eq!(both.part_callback, Some([7, 8, 9, 10, 11, 12]));
        assert_eq!(both.execution_loss_ppm, 60_000);
        // What describes the run the file names stays the first run's.
        assert_eq!((both.policy, both.cpus), ("gedf", 2));
        assert_eq!(both.same_core_floor, Some([5, 10, 15, 20, 25, 30]));
        assert_eq!(
            (both.decisions, both.switch_ins, both.migrations),
            (100, 50, 7)
        );
    }
}
