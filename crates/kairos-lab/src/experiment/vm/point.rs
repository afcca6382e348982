//! The RT-Xen study's result at one utilization: sums over its sets, per configuration, as the
//! resume file records them and `--json` prints them.

use super::set::{self, Counts, Runs, SetResult};
use crate::experiment::resume::Point;
use serde::{Deserialize, Serialize};

/// Sums over the sets of one point, per configuration.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct StudyPoint {
    pub utilization: f64,
    pub samples: u64,
    /// Per combo (`set::combos`).
    pub theory_accepted: Vec<u64>,
    /// Per guest (pEDF, gEDF).
    pub bandwidth_sum: Vec<f64>,
    pub bandwidth_sets: Vec<u64>,
    /// The simulations (on real cores: each run's simulated twin).
    #[serde(flatten)]
    pub simulated: RunSums,
    /// The runs on real cores, when the study runs there.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub measured: Option<RunSums>,
}

/// Sums of one kind of runs (simulated or measured) over the sets of a point.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct RunSums {
    /// Per combo: sets run without a miss.
    pub practice_accepted: Vec<u64>,
    /// Per combo: sets the analysis accepted that missed a deadline when run: a soundness
    /// check for simulations (0 unless the analysis or the simulator is wrong); on real cores,
    /// what the overheads the analysis ignores cost.
    pub accepted_but_missed: Vec<u64>,
    /// Per combo: sets run (every domain had an interface).
    pub practice_sets: Vec<u64>,
    pub practice: Vec<Sum>,
    pub credit: Sum,
    /// Per RT VMM (`set::RT_VMMS`), deferrable servers.
    pub deferrable: Vec<Sum>,
}

/// Counts of runs, summed.
#[derive(Clone, Copy, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct Sum {
    pub sets: u64,
    pub released: u64,
    pub misses: u64,
    pub back_to_back: u64,
    pub replenishments: u64,
}

impl Sum {
    fn add(&mut self, c: Counts) {
        self.sets += 1;
        self.released += c.released;
        self.misses += c.misses;
        self.back_to_back += c.back_to_back;
        self.replenishments += c.replenishments;
    }

    pub fn miss_ratio(&self) -> Option<f64> {
        (self.released > 0).then(|| self.misses as f64 / self.released as f64)
    }

    pub fn back_to_back_ratio(&self) -> Option<f64> {
        (self.replenishments > 0).then(|| self.back_to_back as f64 / self.replenishments as f64)
    }
}

impl Point for StudyPoint {
    fn utilization(&self) -> f64 {
        self.utilization
    }
}

impl RunSums {
    fn new() -> RunSums {
        let n = set::combos().len();
        RunSums {
            practice_accepted: vec![0; n],
            accepted_but_missed: vec![0; n],
            practice_sets: vec![0; n],
            practice: vec![Sum::default(); n],
            credit: Sum::default(),
            deferrable: vec![Sum::default(); set::RT_VMMS.len()],
        }
    }

    fn add(&mut self, runs: &Runs, theory: &[bool]) {
        for (c, counts) in runs.practice.iter().enumerate() {
            let Some(counts) = counts else { continue };
            self.practice_sets[c] += 1;
            self.practice_accepted[c] += u64::from(counts.misses == 0);
            self.accepted_but_missed[c] += u64::from(theory[c] && counts.misses > 0);
            self.practice[c].add(*counts);
        }
        if let Some(c) = runs.credit {
            self.credit.add(c);
        }
        for (k, c) in runs.deferrable.iter().enumerate() {
            if let Some(c) = c {
                self.deferrable[k].add(*c);
            }
        }
    }
}

impl StudyPoint {
    pub fn new(utilization: f64, samples: u64, real: bool) -> StudyPoint {
        StudyPoint {
            utilization,
            samples,
            theory_accepted: vec![0; set::combos().len()],
            bandwidth_sum: vec![0.0; 2],
            bandwidth_sets: vec![0; 2],
            simulated: RunSums::new(),
            measured: real.then(RunSums::new),
        }
    }

    pub fn add(&mut self, r: SetResult) {
        for (c, accepted) in r.theory.iter().enumerate() {
            self.theory_accepted[c] += u64::from(*accepted);
        }
        for (g, b) in r.bandwidth.iter().enumerate() {
            if let Some(b) = b {
                self.bandwidth_sum[g] += b;
                self.bandwidth_sets[g] += 1;
            }
        }
        self.simulated.add(&r.simulated, &r.theory);
        if let (Some(sums), Some(runs)) = (&mut self.measured, &r.measured) {
            sums.add(runs, &r.theory);
        }
    }
}
