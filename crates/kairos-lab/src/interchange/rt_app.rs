//! A workload as an rt-app workload (rt-app, the scheduler-test generator of the Linux
//! scheduler community: JSON with `global` and `tasks`), so a set analysed and simulated in
//! kairos runs under rt-app as well. The threads get the policy, priority or reservation, and
//! CPUs that a kairos run itself would give them (the runtime's plan,
//! [`kairos_rt::periodic::plan`]); each job is a `run` of the WCET on an absolute `timer` of
//! the period.

use crate::Failure;
use kairos_model::{Duration, Workload};
use kairos_os::sched::Policy;
use kairos_rt::periodic::{plan, PeriodicConfig, PeriodicPolicy};
use serde_json::{json, Map, Value};

/// An exported workload: the rt-app document, the whole seconds rt-app runs, and what the
/// plan noted.
pub struct Exported {
    pub document: Value,
    pub seconds: u64,
    pub notes: Vec<String>,
}

/// `workload` under `policy` for `duration` (whole seconds, at least 1), its cores mapped to
/// `cpus` in order (empty: 0, 1, ...).
pub fn export(
    workload: &Workload,
    policy: PeriodicPolicy,
    duration: Duration,
    cpus: &[usize],
) -> Result<Exported, Failure> {
    let seconds = duration.as_nanos().div_ceil(1_000_000_000);
    if seconds == 0 {
        return Err(Failure::bad_input(
            "--duration must be at least 1s (rt-app counts whole seconds)",
        ));
    }
    let cpus: Vec<usize> = match cpus.is_empty() {
        true => (0..workload.cores).collect(),
        false => cpus.to_vec(),
    };
    let config = PeriodicConfig::new(policy, duration.as_nanos());
    let plan = plan(workload, &config, &cpus).map_err(|e| Failure::bad_input(e.to_string()))?;
    Ok(Exported {
        document: document(workload, &plan.threads, seconds),
        seconds,
        notes: plan.notes,
    })
}

/// Whole microseconds, rt-app's unit, at least 1.
fn us(d: Duration) -> u64 {
    d.as_nanos().div_ceil(1000).max(1)
}

fn document(
    workload: &Workload,
    threads: &[kairos_rt::periodic::ThreadPlan],
    seconds: u64,
) -> Value {
    let mut tasks = Map::new();
    for thread in threads {
        let task = &workload.tasks[thread.task];
        let mut entry = json!({
            "cpus": thread.cpus,
            "loop": -1,
            "run": us(task.wcet),
            "timer": { "ref": task.name, "period": us(task.period) },
        });
        let fields = entry.as_object_mut().expect("an object");
        match thread.policy {
            Policy::Fifo { priority } => {
                fields.insert("policy".into(), json!("SCHED_FIFO"));
                fields.insert("priority".into(), json!(priority));
            }
            Policy::Deadline(p) => {
                fields.insert("policy".into(), json!("SCHED_DEADLINE"));
                fields.insert("dl-runtime".into(), json!(p.runtime.div_ceil(1000)));
                fields.insert("dl-period".into(), json!(p.period.div_ceil(1000)));
                fields.insert("dl-deadline".into(), json!(p.deadline.div_ceil(1000)));
            }
            Policy::Other => {
                fields.insert("policy".into(), json!("SCHED_OTHER"));
            }
        }
        if !task.offset.is_zero() {
            fields.insert("delay".into(), json!(us(task.offset)));
        }
        tasks.insert(task.name.clone(), entry);
    }
    // `log_size` is left out: the Debian rt-app 1.0 build reads it inverted.
    json!({
        "global": {
            "duration": seconds,
            "calibration": "CPU0",
            "default_policy": "SCHED_OTHER",
            "lock_pages": true,
            "logdir": "./",
            "log_basename": "rt-app",
            "ftrace": false,
            "gnuplot": false,
        },
        "tasks": tasks,
    })
}
