//! The manager thread: after every RT job it measures the period (T_RT, I(z) = T_RT -
//! T_expected as equation 3 defines it, the best-effort time each core's group received),
//! updates the interference model, and applies the controller's change, if any, to the
//! cgroups' quotas and the RT reservation before the next job.

use super::bandwidth::Bandwidth;
use super::control::{Change, Controller};
use super::job::JobRecord;
use super::model::InterferenceModel;
use kairos_model::Duration;
use kairos_os::sched::{self, DeadlineParams};
use kairos_rt::watchdog::RunControl;
use serde::Serialize;
use std::sync::mpsc::{Receiver, RecvTimeoutError};

/// One period as the manager saw it.
#[derive(Clone, Debug, Serialize)]
pub struct PeriodRecord {
    #[serde(flatten)]
    pub job: JobRecord,
    /// I(z) in ns (negative when the job ran faster than T_expected).
    pub interference_ns: i64,
    /// The T_RT (free) or demand (constrained) predicted before the job.
    pub predicted: Duration,
    /// S_BE per best-effort core during the job.
    pub be_share: Vec<Duration>,
    pub rt_share: Duration,
    /// CPU time each best-effort core's group received since the previous job ended.
    pub be_received: Vec<Duration>,
    pub within_target: bool,
    pub missed: bool,
}

/// What the manager thread needs.
pub struct Manager {
    pub controller: Controller,
    pub model: InterferenceModel,
    pub bandwidth: Bandwidth,
    /// Apply changes (managed) or only learn and predict (unmanaged).
    pub managed: bool,
    pub period: Duration,
    /// The RT task's inter-arrival time A.
    pub arrival: Duration,
    pub deadline: Duration,
    pub target: Duration,
    /// T_expected, measured in isolation.
    pub expected: Duration,
    pub constrained: bool,
    pub rt_tid: i32,
    pub end_ns: u64,
}

/// What the manager returns.
pub struct Managed {
    pub periods: Vec<PeriodRecord>,
    pub changes: Vec<Change>,
    pub model: InterferenceModel,
    /// Changes the kernel refused: (job, why).
    pub refused: Vec<(u64, String)>,
}

impl Manager {
    /// Runs until the run's end, a stop request, or the job stream ends.
    pub fn run(mut self, jobs: Receiver<JobRecord>, control: &RunControl) -> Managed {
        let (mut periods, mut changes, mut refused) = (Vec::new(), Vec::new(), Vec::new());
        let mut used: Vec<Option<Duration>> = self.usage();
        let expected = self.expected;
        let mut predicted = self
            .controller
            .predicted(&self.model, self.controller.current());
        while kairos_os::clock::now_ns() < self.end_ns && !control.should_stop() {
            let job = match jobs.recv_timeout(std::time::Duration::from_millis(50)) {
                Ok(job) => job,
                Err(RecvTimeoutError::Timeout) => continue,
                Err(RecvTimeoutError::Disconnected) => break,
            };
            let now_used = self.usage();
            let received = now_used
                .iter()
                .zip(&used)
                .map(|(n, u)| match (n, u) {
                    (Some(n), Some(u)) => n.saturating_sub(*u),
                    _ => Duration::ZERO,
                })
                .collect();
            used = now_used;
            let shares = self.controller.current().clone();
            let interference = job.execution.as_nanos() as i64 - expected.as_nanos() as i64;
            self.model
                .observe(&self.controller.fractions(&shares), interference as f64);
            let checked = match self.constrained {
                true => job.response,
                false => job.execution,
            };
            periods.push(PeriodRecord {
                job,
                interference_ns: interference,
                predicted,
                be_share: shares.be.clone(),
                rt_share: shares.rt,
                be_received: received,
                within_target: checked <= self.target,
                missed: job.response > self.deadline,
            });
            if self.constrained {
                self.controller.carry(self.carried(&job, shares.rt));
            }
            if self.managed {
                let at = Duration::from_nanos(job.release.as_nanos()) + job.response;
                if let Some(change) = self.controller.step(&self.model, job.job, at) {
                    self.apply(&change, &mut refused);
                    changes.push(change);
                }
            }
            predicted = self
                .controller
                .predicted(&self.model, self.controller.current());
        }
        control.request_stop("the run's duration elapsed");
        // The periods are over: the best-effort programs get the whole core to stop in.
        if let Err(e) = self.bandwidth.lift() {
            let last = periods.last().map_or(0, |p: &PeriodRecord| p.job.job);
            refused.push((last, e.to_string()));
        }
        Managed {
            periods,
            changes,
            model: self.model,
            refused,
        }
    }

    /// The reservation time job `job` took from the next job's window: its periods past the
    /// next release, each supplying `rt`.
    fn carried(&self, job: &JobRecord, rt: Duration) -> Duration {
        let over = job.response.saturating_sub(self.arrival).as_nanos() as u128;
        let work = over * rt.as_nanos() as u128 / self.period.as_nanos().max(1) as u128;
        Duration::from_nanos(work as u64)
    }

    fn usage(&self) -> Vec<Option<Duration>> {
        (0..self.controller.current().be.len())
            .map(|i| self.bandwidth.usage(i))
            .collect()
    }

    fn apply(&self, change: &Change, refused: &mut Vec<(u64, String)>) {
        for (i, (new, old)) in change.to.be.iter().zip(&change.from.be).enumerate() {
            if new != old {
                if let Err(e) = self.bandwidth.set(i, *new, self.period) {
                    refused.push((change.job, e.to_string()));
                }
            }
        }
        if self.constrained && change.to.rt != change.from.rt {
            let params = DeadlineParams {
                runtime: change.to.rt.as_nanos(),
                deadline: self.period.as_nanos(),
                period: self.period.as_nanos(),
            };
            if let Err(e) = sched::set_deadline(self.rt_tid, params, params.bandwidth()) {
                refused.push((change.job, e.to_string()));
            }
        }
    }
}
