//! A table run that charges the overheads itself, one job at a time: what each slot and each
//! mode change loses is drawn from the profile's distributions up to the charged quantile, in
//! the roles `kairos_analysis::overheads::tables` lists ("where a table run pays").

use kairos_model::{Cost, Overheads, TableSet};
use std::collections::HashMap;

/// A job's intervals in each level's table, by `(task, job)`, in time order.
pub type JobIntervals = HashMap<(String, u64), Vec<Vec<(u64, u64)>>>;

pub fn job_intervals(tables: &TableSet) -> JobIntervals {
    let levels = tables.tables.len();
    let mut jobs: JobIntervals = HashMap::new();
    for (level, table) in tables.tables.iter().enumerate() {
        for iv in &table.intervals {
            let entry = jobs.entry((iv.task.to_string(), iv.job));
            entry.or_insert_with(|| vec![Vec::new(); levels])[level].push((iv.start, iv.end));
        }
    }
    for per_level in jobs.values_mut() {
        per_level.iter_mut().for_each(|ivs| ivs.sort_unstable());
    }
    jobs
}

/// The costs a run pays, each drawn anew from its distribution below `top`, the probability
/// of the charged quantile (0.99 for `p99`, 1 for `max`): half the draws at `top` itself, the
/// worst the guard must cover, half uniform below it.
pub struct Losses {
    pub profile: Overheads,
    pub cores: usize,
    pub top: f64,
    /// SplitMix64 state.
    pub state: u64,
}

impl Losses {
    fn next(&mut self) -> u64 {
        self.state = self.state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    fn draw(&mut self, cost: Cost) -> u64 {
        let r = self.next();
        let u = match r & 1 {
            0 => self.top,
            _ => (r >> 11) as f64 / (1u64 << 53) as f64 * self.top,
        };
        cost.at(u).as_nanos()
    }

    /// One slot: the timer's lateness twice (the boundary and the next switch's preparation),
    /// a pass and a switch; on more cores a migration and every other core's doorbell pass.
    fn slot(&mut self) -> u64 {
        let p = self.profile;
        let mut lost = self.draw(p.release_latency) + self.draw(p.release_latency);
        lost += self.draw(p.scheduling) + self.draw(p.context_switch);
        if self.cores > 1 {
            lost += self.draw(p.migration);
        }
        for _ in 1..self.cores {
            lost += self.draw(p.ipi) + self.draw(p.scheduling);
        }
        lost
    }

    /// One mode change: a second pass and switch (and a migration on more cores).
    fn mode_change(&mut self) -> u64 {
        let p = self.profile;
        let migration = if self.cores > 1 {
            self.draw(p.migration)
        } else {
            0
        };
        self.draw(p.scheduling) + self.draw(p.context_switch) + migration
    }
}

/// One job's run: every slot of the original grid `slot` that the job holds gives the slot
/// less what [`Losses::slot`] draws, every mode change it lives through costs a
/// [`Losses::mode_change`]. The system's mode rises at the instants `changes` (sorted) and
/// whenever the job is unfinished at the end of its last interval in a mode below its task's
/// level. The job asks `demand` (its WCET at level `asks`); it must finish by the end of its
/// last interval in every mode `>= asks`, or be discarded when the mode exceeds `top`, its
/// task's level.
pub struct JobRun<'a> {
    pub intervals: &'a [Vec<(u64, u64)>],
    pub top: usize,
    pub asks: usize,
    pub demand: u64,
    pub slot: u64,
}

impl JobRun<'_> {
    pub fn check(&self, changes: &[u64], losses: &mut Losses) -> Result<(), String> {
        let s = self.slot;
        let (mut mode, mut now, mut work) = (0usize, 0u64, 0i128);
        loop {
            let rise = changes.get(mode).copied().unwrap_or(u64::MAX).max(now);
            let ivs = &self.intervals[mode];
            let held = ivs
                .iter()
                .flat_map(|&(start, end)| (start..end).step_by(s as usize));
            for _ in held.filter(|&x| x >= now && x < rise) {
                work += i128::from(s) - i128::from(losses.slot());
                if work >= i128::from(self.demand) {
                    return Ok(());
                }
            }
            let last_end = ivs.last().map_or(0, |iv| iv.1);
            if last_end <= rise {
                if mode >= self.asks {
                    return Err(format!(
                        "unfinished ({work} of {} ns) at the end of its level-{mode} table",
                        self.demand
                    ));
                }
                now = now.max(last_end);
            } else {
                now = rise;
            }
            mode += 1;
            work -= i128::from(losses.mode_change());
            if mode > self.top {
                return Ok(());
            }
        }
    }
}
