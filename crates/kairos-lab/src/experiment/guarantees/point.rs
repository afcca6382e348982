//! The guarantees study's result at one utilization: per family, sums over its sets, as the
//! resume file records them, `--json` prints them and the table and `results.csv` show them.

use super::set::Judged;
use super::studied::Studied;
use crate::experiment::resume::Point;
use serde::{Deserialize, Serialize};

/// One utilization, every family.
#[derive(Clone, Debug, Serialize, Deserialize, PartialEq)]
pub struct StudyPoint {
    pub utilization: f64,
    pub families: Vec<FamilySums>,
}

impl Point for StudyPoint {
    fn utilization(&self) -> f64 {
        self.utilization
    }
}

/// One family's sets at one utilization. A set with misses of both causes counts under both.
#[derive(Clone, Debug, Default, Serialize, Deserialize, PartialEq)]
pub struct FamilySums {
    pub family: String,
    pub sets: u64,
    /// Accepted by the ideal analysis.
    pub ideal: u64,
    /// Accepted by the overhead-aware analysis.
    pub aware: u64,
    /// Run (accepted by either).
    pub run: u64,
    /// Runs with at least one deadline miss or that the watchdog ended (a run cut short kept
    /// no guarantee, whatever it had missed by then), then with a miss the schedule caused and
    /// with one the host caused.
    pub missed: u64,
    pub missed_schedule: u64,
    pub missed_host: u64,
    /// The same of the sets the overhead-aware analysis accepted: broken guarantees.
    pub aware_missed: u64,
    pub aware_missed_schedule: u64,
    pub aware_missed_host: u64,
    /// Jobs released in the runs, and deadlines missed (in all, by the schedule, by the host).
    pub jobs: u64,
    pub misses: u64,
    pub misses_schedule: u64,
    pub misses_host: u64,
    /// Of the host's misses, those the stalled twin decided (none in a file written before
    /// it existed).
    #[serde(default)]
    pub misses_host_stalled_twin: u64,
    /// Runs the watchdog ended early (their jobs and misses are what they ran; each counts in
    /// `missed`, and in `aware_missed` when the overhead-aware analysis accepted its set).
    pub stopped: u64,
}

impl FamilySums {
    pub fn new(family: Studied) -> FamilySums {
        FamilySums {
            family: family.name().to_string(),
            ..FamilySums::default()
        }
    }

    pub fn add(&mut self, judged: Judged) {
        self.sets += 1;
        self.ideal += u64::from(judged.ideal);
        self.aware += u64::from(judged.aware);
        let Some(ran) = judged.ran else { return };
        self.run += 1;
        let broken = ran.misses > 0 || ran.stopped;
        let missed = [broken, ran.schedule > 0, ran.host > 0].map(u64::from);
        let aware = u64::from(judged.aware);
        (self.missed, self.missed_schedule, self.missed_host) = (
            self.missed + missed[0],
            self.missed_schedule + missed[1],
            self.missed_host + missed[2],
        );
        (
            self.aware_missed,
            self.aware_missed_schedule,
            self.aware_missed_host,
        ) = (
            self.aware_missed + aware * missed[0],
            self.aware_missed_schedule + aware * missed[1],
            self.aware_missed_host + aware * missed[2],
        );
        self.jobs += ran.jobs;
        self.misses += ran.misses;
        self.misses_schedule += ran.schedule;
        self.misses_host += ran.host;
        self.misses_host_stalled_twin += ran.host_stalled_twin;
        self.stopped += u64::from(ran.stopped);
    }
}

/// A column of `results.csv` after the family and the utilization: its header there, its
/// header in the text table (`None`: CSV only), and its value.
pub type Column = (&'static str, Option<&'static str>, fn(&FamilySums) -> u64);

pub const COLUMNS: [Column; 16] = [
    ("sets", Some("sets"), |s| s.sets),
    ("ideal", Some("ideal"), |s| s.ideal),
    ("aware", Some("aware"), |s| s.aware),
    ("run", Some("run"), |s| s.run),
    ("missed", None, |s| s.missed),
    ("missed_schedule", Some("schedule"), |s| s.missed_schedule),
    ("missed_host", Some("host"), |s| s.missed_host),
    ("aware_missed", None, |s| s.aware_missed),
    ("aware_missed_schedule", Some("aware-schedule"), |s| {
        s.aware_missed_schedule
    }),
    ("aware_missed_host", Some("aware-host"), |s| {
        s.aware_missed_host
    }),
    ("jobs", Some("jobs"), |s| s.jobs),
    ("misses", Some("misses"), |s| s.misses),
    ("misses_schedule", None, |s| s.misses_schedule),
    ("misses_host", None, |s| s.misses_host),
    ("misses_host_stalled_twin", None, |s| {
        s.misses_host_stalled_twin
    }),
    ("stopped", Some("stopped"), |s| s.stopped),
];

#[cfg(test)]
mod tests {
    use super::*;
    use crate::experiment::guarantees::set::{Counts, Kept};

    fn run(misses: u64, stopped: bool) -> Judged {
        Judged {
            ideal: true,
            aware: true,
            ran: Some(Counts {
                jobs: 10,
                misses,
                schedule: misses,
                host: 0,
                host_stalled_twin: 0,
                stopped,
            }),
            kept: None,
        }
    }

    #[test]
    fn a_set_is_kept_only_when_the_aware_analysis_accepted_it_and_the_schedule_missed_for_real() {
        let counts = |schedule, host| Counts {
            jobs: 10,
            misses: schedule + host,
            schedule,
            host,
            host_stalled_twin: 0,
            stopped: false,
        };
        let kept = || Kept {
            files: vec![(".toml", "cores = 1\n".into())],
            run_args: "--policy pfp".into(),
        };
        let judged = |aware| Judged {
            ideal: true,
            aware,
            ..Judged::default()
        };
        assert!(judged(true)
            .with_run(counts(1, 0), true, kept)
            .kept
            .is_some());
        assert!(judged(true)
            .with_run(counts(0, 3), true, kept)
            .kept
            .is_none());
        assert!(judged(false)
            .with_run(counts(2, 0), true, kept)
            .kept
            .is_none());
        assert!(judged(true)
            .with_run(counts(1, 0), false, kept)
            .kept
            .is_none());
    }

    #[test]
    fn a_run_the_watchdog_ended_is_a_broken_guarantee_even_without_a_miss() {
        let mut sums = FamilySums::default();
        sums.add(run(0, false));
        assert_eq!((sums.missed, sums.aware_missed, sums.stopped), (0, 0, 0));
        sums.add(run(0, true));
        assert_eq!((sums.missed, sums.aware_missed, sums.stopped), (1, 1, 1));
        // Its cause is unknown: neither cause column counts it.
        assert_eq!((sums.aware_missed_schedule, sums.aware_missed_host), (0, 0));
        sums.add(run(2, true));
        assert_eq!(
            (sums.missed, sums.aware_missed_schedule, sums.misses),
            (2, 1, 2)
        );
    }
}
