//! What a managed run reports: the text summary, `--json` (`periods`, `deadline_misses`,
//! `be_share` per core, `model` per core, the changes with their reasons), and `--out-dir DIR`
//! (`manage.json`, `periods.csv`, `changes.csv`).

use crate::Failure;
use kairos_model::managed::{Execution, ManagedSystem};
use kairos_model::Duration;
use kairos_platform::manage::control::Change;
use kairos_platform::manage::manager::PeriodRecord;
use kairos_platform::manage::ManageOutcome;
use serde_json::{json, Value};
use std::path::Path;

pub struct Report<'a> {
    pub file: String,
    pub system: &'a ManagedSystem,
    pub managed: bool,
    pub outcome: &'a ManageOutcome,
    pub prior_per_call_ns: Option<f64>,
}

/// Per best-effort core: the mean, least and largest share of P, and the CPU time received.
pub struct Share {
    pub core: usize,
    pub mean: f64,
    pub min: f64,
    pub max: f64,
    pub received: f64,
}

impl<'a> Report<'a> {
    pub fn new(
        file: &Path,
        system: &'a ManagedSystem,
        managed: bool,
        outcome: &'a ManageOutcome,
        prior_per_call_ns: Option<f64>,
    ) -> Self {
        Report {
            file: file.display().to_string(),
            system,
            managed,
            outcome,
            prior_per_call_ns,
        }
    }

    pub fn within_target(&self) -> f64 {
        let p = &self.outcome.periods;
        p.iter().filter(|r| r.within_target).count() as f64 / p.len().max(1) as f64
    }

    pub fn misses(&self) -> usize {
        self.outcome.periods.iter().filter(|r| r.missed).count()
    }

    pub fn shares(&self) -> Vec<Share> {
        let p = self.system.manager.period.as_nanos() as f64;
        let periods = &self.outcome.periods;
        let n = periods.len().max(1) as f64;
        // Each record's received time covers the time since the previous job ended: the
        // first one's start is unknown, so the rate counts from the first job's end.
        let end = |r: &PeriodRecord| (r.job.release + r.job.response).as_nanos() as f64;
        let span = match (periods.first(), periods.last()) {
            (Some(a), Some(b)) if end(b) > end(a) => end(b) - end(a),
            _ => f64::INFINITY,
        };
        self.outcome
            .be_cores
            .iter()
            .enumerate()
            .map(|(i, &core)| {
                let fractions: Vec<f64> = periods
                    .iter()
                    .map(|r| r.be_share[i].as_nanos() as f64 / p)
                    .collect();
                Share {
                    core,
                    mean: fractions.iter().sum::<f64>() / n,
                    min: fractions.iter().copied().fold(f64::MAX, f64::min).min(1.0),
                    max: fractions.iter().copied().fold(0.0, f64::max),
                    received: periods
                        .iter()
                        .skip(1)
                        .map(|r| r.be_received[i].as_nanos() as f64)
                        .sum::<f64>()
                        / span,
                }
            })
            .collect()
    }

    /// T_RT quantiles over the managed periods: (median, p99, max).
    fn t_rt(&self) -> (Duration, Duration, Duration) {
        let mut t: Vec<Duration> = self
            .outcome
            .periods
            .iter()
            .map(|r| r.job.execution)
            .collect();
        t.sort_unstable();
        let at = |q: f64| {
            t.get(((t.len() as f64 - 1.0) * q).round() as usize)
                .copied()
                .unwrap_or_default()
        };
        (at(0.5), at(0.99), at(1.0))
    }

    pub fn json(&self) -> Value {
        let o = self.outcome;
        let s = self.system;
        let calls = o.calls as f64;
        json!({
            "file": self.file,
            "managed": self.managed,
            "execution": s.manager.execution,
            "period_ns": s.manager.period.as_nanos(),
            "deadline_ns": s.rt.deadline.as_nanos(),
            "target_ns": s.target().as_nanos(),
            "work": s.rt.work,
            "calls_per_job": o.calls,
            "expected_ns": o.expected.as_nanos(),
            "measured_wcet_ns": o.measured_wcet.as_nanos(),
            "isolation_jobs": o.isolation.len(),
            "within_target": self.within_target(),
            "deadline_misses": self.misses(),
            "be_share": self.shares().iter().map(|sh| json!({
                "core": sh.core, "mean": sh.mean, "min": sh.min, "max": sh.max, "received": sh.received,
            })).collect::<Vec<_>>(),
            "model": o.be_cores.iter().zip(&o.slopes_ns).zip(&o.slope_ci95_ns).map(|((core, slope), ci)| json!({
                "core": core, "slope_ns": slope, "slope_ci95_ns": ci, "slope_per_call_ns": slope / calls.max(1.0),
            })).collect::<Vec<_>>(),
            // One regression over every core's share: its R² is the model's, not a core's.
            "model_r2": o.r2,
            "prior_per_call_ns": self.prior_per_call_ns,
            "changes": o.changes.iter().map(change_json).collect::<Vec<_>>(),
            "refused": o.refused,
            "best_effort": o.best_effort,
            "periods": o.periods.iter().map(period_json).collect::<Vec<_>>(),
            "stopped_by": o.stopped_by,
        })
    }

    pub fn text(&self) -> String {
        let (o, s) = (self.outcome, self.system);
        let mode = match s.manager.execution {
            Execution::Free => "free",
            Execution::Constrained => "constrained",
        };
        let mut out = format!(
            "{}: {mode} execution, P {}, RT task {} on core {} (A {}, D {}, target {}), {} {} call(s) per job, {}\n",
            self.file, s.manager.period, s.rt.name, s.rt.core.0, s.rt.period, s.rt.deadline, s.target(), o.calls, s.rt.work,
            if self.managed { "managed" } else { "unmanaged: the file's allocations held" },
        );
        out.push_str(&format!(
            "isolation: {} jobs, T_expected {} (median), W measured {} (max)\n",
            o.isolation.len(),
            o.expected,
            o.measured_wcet
        ));
        let (median, p99, max) = self.t_rt();
        let growth = 100.0 * (median.as_nanos() as f64 / o.expected.as_nanos().max(1) as f64 - 1.0);
        out.push_str(&format!(
            "{} periods: T_RT median {median} ({growth:+.1} % on isolation), p99 {p99}, max {max}; within the target {:.1} %; deadline misses {}\n",
            o.periods.len(), 100.0 * self.within_target(), self.misses()
        ));
        for ((sh, slope), ci) in self.shares().iter().zip(&o.slopes_ns).zip(&o.slope_ci95_ns) {
            out.push_str(&format!(
                "core {}: S_BE {:.0} % of P on average (least {:.0} %, most {:.0} %), received {:.0} % of a core; d_curr slope {}{} per full core ({}/call){}\n",
                sh.core, 100.0 * sh.mean, 100.0 * sh.min, 100.0 * sh.max, 100.0 * sh.received,
                signed(*slope), ci.map_or(String::new(), |h| format!(" ± {}", crate::text::human_ns(h.round() as u64))),
                signed(slope / o.calls.max(1) as f64),
                if ci.is_some() && !kairos_platform::fit::significant(*slope, *ci) { ", not distinguishable from zero" } else { "" },
            ));
            if sh.max - sh.min < 0.02 {
                out.push_str("  (the share never moved: the slope rests on the isolation phase and the prior)\n");
            }
        }
        if let Some(r2) = o.r2 {
            out.push_str(&format!("model R² {r2:.2} over the last periods"));
            if let Some(prior) = self.prior_per_call_ns {
                out.push_str(&format!(
                    "; measured by kairos platform interference: {}/call",
                    signed(prior)
                ));
            }
            out.push('\n');
        }
        for b in &o.best_effort {
            out.push_str(&format!(
                "best-effort {} (core {}): {} {}\n",
                b.name, b.core, b.units, b.unit
            ));
        }
        out.push_str(&format!("{} change(s)", o.changes.len()));
        match o.changes.first() {
            Some(c) => out.push_str(&format!("; the first, after job {}: {}\n", c.job, c.reason)),
            None => out.push('\n'),
        }
        for (job, why) in &o.refused {
            out.push_str(&format!("refused by the kernel after job {job}: {why}\n"));
        }
        if let Some(why) = &o.stopped_by {
            out.push_str(&format!("stopped early: {why}\n"));
        }
        out
    }

    pub fn write(&self, dir: &Path) -> Result<(), Failure> {
        std::fs::create_dir_all(dir)
            .map_err(|e| Failure::environment(format!("cannot create {}: {e}", dir.display())))?;
        let put = |name: &str, text: String| {
            std::fs::write(dir.join(name), text)
                .map_err(|e| Failure::environment(format!("cannot write {name}: {e}")))
        };
        put(
            "manage.json",
            serde_json::to_string_pretty(&self.json()).expect("serializes"),
        )?;
        put("periods.csv", self.periods_csv())?;
        put("changes.csv", self.changes_csv())
    }

    fn periods_csv(&self) -> String {
        let cores = &self.outcome.be_cores;
        let mut out = String::from("job,release_ns,start_ns,response_ns,t_rt_ns,interference_ns,predicted_ns,rt_share_ns,within_target,missed");
        for c in cores {
            out.push_str(&format!(",be_share_core{c}_ns,be_received_core{c}_ns"));
        }
        out.push('\n');
        for r in &self.outcome.periods {
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},{},{}",
                r.job.job,
                r.job.release.as_nanos(),
                r.job.start.as_nanos(),
                r.job.response.as_nanos(),
                r.job.execution.as_nanos(),
                r.interference_ns,
                r.predicted.as_nanos(),
                r.rt_share.as_nanos(),
                r.within_target,
                r.missed
            ));
            for (s, g) in r.be_share.iter().zip(&r.be_received) {
                out.push_str(&format!(",{},{}", s.as_nanos(), g.as_nanos()));
            }
            out.push('\n');
        }
        out
    }

    fn changes_csv(&self) -> String {
        let mut out = String::from("job,at_ns,from_be_ns,to_be_ns,from_rt_ns,to_rt_ns,predicted_before_ns,predicted_after_ns,reason\n");
        let list = |v: &[Duration]| {
            v.iter()
                .map(|d| d.as_nanos().to_string())
                .collect::<Vec<_>>()
                .join(" ")
        };
        for c in &self.outcome.changes {
            out.push_str(&format!(
                "{},{},{},{},{},{},{},{},\"{}\"\n",
                c.job,
                c.at.as_nanos(),
                list(&c.from.be),
                list(&c.to.be),
                c.from.rt.as_nanos(),
                c.to.rt.as_nanos(),
                c.predicted_before.as_nanos(),
                c.predicted_after.as_nanos(),
                c.reason.replace('"', "'")
            ));
        }
        out
    }
}

fn ns(list: &[Duration]) -> Vec<u64> {
    list.iter().map(|d| d.as_nanos()).collect()
}

fn period_json(r: &PeriodRecord) -> Value {
    json!({
        "job": r.job.job,
        "release_ns": r.job.release.as_nanos(),
        "start_ns": r.job.start.as_nanos(),
        "response_ns": r.job.response.as_nanos(),
        "t_rt_ns": r.job.execution.as_nanos(),
        "cpu_ns": r.job.cpu.as_nanos(),
        "interference_ns": r.interference_ns,
        "predicted_ns": r.predicted.as_nanos(),
        "be_share_ns": ns(&r.be_share),
        "rt_share_ns": r.rt_share.as_nanos(),
        "be_received_ns": ns(&r.be_received),
        "within_target": r.within_target,
        "missed": r.missed,
    })
}

fn change_json(c: &Change) -> Value {
    json!({
        "job": c.job,
        "at_ns": c.at.as_nanos(),
        "from": { "be_ns": ns(&c.from.be), "rt_ns": c.from.rt.as_nanos() },
        "to": { "be_ns": ns(&c.to.be), "rt_ns": c.to.rt.as_nanos() },
        "predicted_before_ns": c.predicted_before.as_nanos(),
        "predicted_after_ns": c.predicted_after.as_nanos(),
        "reason": c.reason,
    })
}

/// A slope in readable units, with its sign.
fn signed(ns: f64) -> String {
    crate::text::human_signed_ns(ns.round() as i64)
}
