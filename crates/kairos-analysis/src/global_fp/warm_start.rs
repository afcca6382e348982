//! Where a fixed-priority response-time search may start instead of `C_k`.
//!
//! In both fixed-priority recurrences (Bertogna & Cirinei RTSS 2007, Sec. 4; Guan et al. RTSS
//! 2009, Eq. (12)) write `R_k = C_k + y` and read the interference as a function of the wait
//! `y`: `y = floor(Omega_k(y) / m)`, with every workload evaluated at `y + C_k` and every cap
//! `y + 1`. `Omega_k` is non-decreasing in `C_k` (workloads are non-decreasing in their window)
//! and in the set of higher-priority tasks (each adds a non-negative term; for Guan et al. the
//! carry-in choice is a maximum over more sets). So if a task `j` of higher priority has
//! `C_j <= C_k`, then `Omega_k >= Omega_j` everywhere and the least fixed point `y_k` is at
//! least `y_j = R_j - C_j`. [`WarmStart`] answers the largest such `y_j`, and the search starts
//! from `C_k + y_j`, below or at the least fixed point: the same answer, in far fewer steps
//! when thousands of tasks each add little.

use crate::SporadicTask;

/// The largest wait `R_j - C_j` recorded for a task with `C_j <= C`, as a prefix maximum
/// (Fenwick tree) over the distinct WCETs.
pub(crate) struct WarmStart {
    wcets: Vec<u64>,
    tree: Vec<u64>,
}

impl WarmStart {
    pub(crate) fn new(tasks: &[SporadicTask]) -> WarmStart {
        let mut wcets: Vec<u64> = tasks.iter().map(|t| t.wcet_ns()).collect();
        wcets.sort_unstable();
        wcets.dedup();
        let tree = vec![0; wcets.len()];
        WarmStart { wcets, tree }
    }

    /// Position (1-based) of `wcet` among the distinct WCETs, or of the largest below it.
    fn position(&self, wcet: u64) -> usize {
        self.wcets.partition_point(|&w| w <= wcet)
    }

    /// Records that a task with WCET `wcet` waits `wait = R - C`.
    pub(crate) fn record(&mut self, wcet: u64, wait: u64) {
        let mut i = self.position(wcet);
        while i > 0 && i <= self.tree.len() {
            self.tree[i - 1] = self.tree[i - 1].max(wait);
            i += i & i.wrapping_neg();
        }
    }

    /// The largest wait recorded for a WCET at most `wcet` (0 if none).
    pub(crate) fn wait_below(&self, wcet: u64) -> u64 {
        let mut i = self.position(wcet);
        let mut best = 0;
        while i > 0 {
            best = best.max(self.tree[i - 1]);
            i -= i & i.wrapping_neg();
        }
        best
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::task_ns;

    /// The obvious twin: a scan of every record.
    #[test]
    fn prefix_maximum_matches_a_scan() {
        let mut next = crate::test_rng(0x9e3779b97f4a7c15);
        for _ in 0..200 {
            let tasks: Vec<SporadicTask> = (0..1 + next(20))
                .map(|_| {
                    let c = 1 + next(30);
                    task_ns(c, 100, 100)
                })
                .collect();
            let mut warm = WarmStart::new(&tasks);
            let mut records = Vec::new();
            for _ in 0..next(30) {
                let (wcet, wait) = (tasks[next(tasks.len() as u64) as usize].wcet_ns(), next(50));
                warm.record(wcet, wait);
                records.push((wcet, wait));
                let query = next(35);
                let scan = records
                    .iter()
                    .filter(|&&(c, _)| c <= query)
                    .map(|&(_, w)| w)
                    .max()
                    .unwrap_or(0);
                assert_eq!(warm.wait_below(query), scan, "{records:?} query {query}");
            }
        }
    }
}
