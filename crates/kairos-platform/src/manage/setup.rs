//! One managed run, start to end: partition, bandwidth groups, calibration and isolation
//! (T_expected and the measured W), best-effort programs, the RT task and the manager for the
//! run's duration, then everything stopped and undone.

use super::bandwidth::Bandwidth;
use super::be::{self, Outcome, Program};
use super::control::{Change, ControlConfig, Controller, Shares};
use super::job::{self, JobRecord, JobSpec, Work};
use super::manager::{Manager, PeriodRecord};
use super::model::{InterferenceModel, Prior};
use crate::oslat::scratch_dir;
use crate::partition::state::{Change as StateChange, Mechanism, State};
use crate::partition::{self, PartitionError, Plan};
use kairos_model::managed::{Execution, JobSize, ManagedSystem};
use kairos_model::Duration;
use kairos_os::sched::DeadlineParams;
use kairos_os::thread::{self, ThreadSpec};
use kairos_os::{clock, dma, memory, priority, PlatformError};
use kairos_rt::watchdog::{Guarded, Heartbeat, RunControl, Watchdog, WatchdogConfig};
use std::sync::atomic::AtomicI32;
use std::sync::{mpsc, Arc};

/// A run of `kairos manage`.
pub struct ManageConfig {
    pub system: ManagedSystem,
    pub duration: Duration,
    /// How long the RT task runs alone first, to measure T_expected.
    pub isolation: Duration,
    /// Adapt the allocations (false: hold the file's, learn and predict only).
    pub managed: bool,
    /// The measured slope of one call of the job's service, ns per core fully loaded
    /// (`kairos platform interference`), if known: the prior, times the calls per job.
    pub prior_per_call_ns: Option<f64>,
    /// Also move interrupts and kernel threads off the RT core.
    pub irqs: bool,
    /// Called when the run moves to a new phase.
    pub progress: Box<dyn Fn(&str) + Send + Sync>,
}

#[derive(Debug, thiserror::Error)]
pub enum ManageError {
    #[error(transparent)]
    Platform(#[from] PlatformError),
    #[error(transparent)]
    Partition(#[from] PartitionError),
    #[error("{0}")]
    Refused(String),
    #[error("best-effort program {name}: {source}")]
    Program {
        name: String,
        source: std::io::Error,
    },
}

/// Everything a run measured and did.
pub struct ManageOutcome {
    pub calls: u64,
    pub expected: Duration,
    pub measured_wcet: Duration,
    pub isolation: Vec<JobRecord>,
    pub be_cores: Vec<usize>,
    pub periods: Vec<PeriodRecord>,
    pub changes: Vec<Change>,
    pub refused: Vec<(u64, String)>,
    pub slopes_ns: Vec<f64>,
    /// Each slope's 95 % confidence half-width, once the model has enough periods.
    pub slope_ci95_ns: Vec<Option<f64>>,
    pub r2: Option<f64>,
    pub best_effort: Vec<Outcome>,
    pub stopped_by: Option<String>,
    pub notes: Vec<String>,
}

/// Undoes the partition (and every group recorded in it) when dropped, on every path out.
struct Undo;

impl Drop for Undo {
    fn drop(&mut self) {
        let _ = partition::reset();
    }
}

pub fn run(config: ManageConfig) -> Result<ManageOutcome, ManageError> {
    let s = &config.system;
    let work = Work::parse(&s.rt.work).map_err(ManageError::Refused)?;
    let rt_core = s.rt.core.0;
    let online = kairos_os::online_cpus();
    if let Some(c) = (0..s.cores).find(|c| !online.contains(c)) {
        return Err(ManageError::Refused(format!(
            "the system names core {c}, but this machine has CPUs {online:?}"
        )));
    }
    kairos_os::privilege::require_rt()?;
    memory::lock_all_memory()?;
    let _dma = dma::DmaLatencyGuard::acquire();
    let plan = Plan {
        rt: vec![rt_core],
        be: (0..s.cores).filter(|c| *c != rt_core).collect(),
        irqs: config.irqs,
        affinity_only: false,
    };
    (config.progress)("partitioning the cores");
    let (mut state, report) = partition::apply(&plan)?;
    let _undo = Undo;
    let constrained = s.manager.execution == Execution::Constrained;
    if constrained {
        own_domain(&mut state)?;
    }
    // kairos itself joins the RT cpuset: its RT task and manager threads run there.
    partition::join(&state, true)?;
    let be_cores: Vec<usize> = be_cores(s);
    let caps: Vec<Duration> = be_cores.iter().map(|c| s.allocations[*c].be).collect();
    let bandwidth = Bandwidth::create(&be_cores, &caps, s.manager.period, &mut state)?;
    let scratch = scratch_dir()?;
    // T_expected is measured with the run's threads alive (the watchdog, and the manager
    // thread waiting for its model): a job's cost can depend on the process's own state. fork
    // copies the page tables of every thread's locked stack, and fork jobs took 59 % longer
    // in the run than in an isolation without those two threads.
    let control = RunControl::new();
    let watchdog = Watchdog::start(
        control.clone(),
        WatchdogConfig::for_run(run_end_bound(&config), 10_000_000_000),
    )?;
    let (hand_over, handed) = mpsc::channel::<(Manager, mpsc::Receiver<JobRecord>)>();
    let control_for_manager = control.clone();
    let manager_thread = thread::spawn(
        ThreadSpec::fifo("kairos-manager", priority::MANAGER, vec![rt_core]),
        move || {
            let (manager, jobs) = handed.recv().ok()?;
            Some(manager.run(jobs, &control_for_manager))
        },
    )?;
    (config.progress)("measuring the RT task in isolation");
    let (calls, isolation) = isolate(&config, work, &scratch.path, &control)?;
    let mut times: Vec<Duration> = isolation.iter().map(|j| j.execution).collect();
    times.sort_unstable();
    let expected = times[times.len() / 2];
    let measured_wcet = *times.last().expect("isolation ran jobs");
    (config.progress)("starting the best-effort programs");
    let timeout_s = (config.duration.as_nanos() / 1_000_000_000) + 60;
    let programs = start_programs(s, &be_cores, &bandwidth, timeout_s, &scratch.path)?;
    let initial = Shares {
        be: caps.clone(),
        rt: s.allocations[rt_core].rt,
    };
    let controller = Controller::new(
        control_config(s, &be_cores, &caps, expected),
        initial.clone(),
    );
    let priors = vec![
        Prior {
            slope_ns: config.prior_per_call_ns.unwrap_or(0.0) * calls as f64,
            spread_ns: expected.as_nanos() as f64
        };
        be_cores.len()
    ];
    // The intercept's prior is weak: drift shows in the first periods.
    let intercept = Prior {
        slope_ns: 0.0,
        spread_ns: expected.as_nanos() as f64 / 10.0,
    };
    let mut model = InterferenceModel::new(intercept, &priors, FORGETTING);
    // The isolation jobs are observations with no best-effort time.
    let none = vec![0.0; be_cores.len()];
    for j in &isolation {
        model.observe(
            &none,
            j.execution.as_nanos() as f64 - expected.as_nanos() as f64,
        );
    }
    (config.progress)("managing");
    let spec = JobSpec {
        work,
        calls,
        period: s.rt.period,
        execution: s.manager.execution,
    };
    let end_ns = clock::now_ns() + config.duration.as_nanos();
    let (tx, rx) = mpsc::channel();
    let heartbeat = Arc::new(Heartbeat::default());
    let rt_thread = spawn_rt(
        s,
        &spec,
        initial.rt,
        &scratch.path,
        &control,
        tx,
        heartbeat.clone(),
    )?;
    watchdog.guard(Guarded {
        name: "kairos-rt-task".into(),
        tid: rt_thread.tid(),
        heartbeat,
        child: Arc::new(AtomicI32::new(0)),
    });
    let manager = Manager {
        controller,
        model,
        bandwidth,
        managed: config.managed,
        period: s.manager.period,
        arrival: s.rt.period,
        deadline: s.rt.deadline,
        target: s.target(),
        expected,
        constrained,
        rt_tid: rt_thread.tid(),
        end_ns,
    };
    let _ = hand_over.send((manager, rx));
    let managed = manager_thread.join()?.ok_or(PlatformError::Interrupted)?;
    control.request_stop("the run's duration elapsed");
    let job_result = rt_thread.join()?;
    let intervention = watchdog.stop();
    (config.progress)("stopping the best-effort programs");
    let best_effort = programs.into_iter().map(Program::stop).collect();
    job_result?;
    Ok(ManageOutcome {
        calls,
        expected,
        measured_wcet,
        isolation,
        be_cores,
        periods: managed.periods,
        changes: managed.changes,
        refused: managed.refused,
        slopes_ns: managed.model.slopes().to_vec(),
        slope_ci95_ns: managed.model.slope_ci95(),
        r2: managed.model.r2(),
        best_effort,
        stopped_by: intervention.or_else(signal_stop),
        notes: report.notes,
    })
}

/// The weight an observation keeps per newer one: about 50 periods of memory, so the model
/// follows best-effort programs that change behaviour within a second or two.
const FORGETTING: f64 = 0.98;

fn signal_stop() -> Option<String> {
    kairos_os::signals::received().map(kairos_os::signals::signal_name)
}

/// The cores with best-effort programs, in order.
fn be_cores(s: &ManagedSystem) -> Vec<usize> {
    let mut cores: Vec<usize> = s.best_effort.iter().map(|b| b.core.0).collect();
    cores.sort_unstable();
    cores.dedup();
    cores
}

fn control_config(
    s: &ManagedSystem,
    be_cores: &[usize],
    caps: &[Duration],
    expected: Duration,
) -> ControlConfig {
    let p = s.manager.period;
    ControlConfig {
        execution: s.manager.execution,
        period: p,
        target: s.target(),
        expected,
        caps: caps.to_vec(),
        rt_core: be_cores.iter().position(|c| *c == s.rt.core.0),
        // The kernel admits 95 % of a CPU to SCHED_DEADLINE by default.
        rt_max: Duration::from_nanos(p.as_nanos() / 100 * 95),
        hold: s.manager.hold,
        probe: s.manager.probe,
    }
}

/// SCHED_DEADLINE pins a reservation to one core only in a scheduling domain of its own: with
/// cgroup v1 the root cpuset stops balancing (recorded, restored by the reset); a v2
/// partition root is one already; affinity masks alone cannot give one.
fn own_domain(state: &mut State) -> Result<(), ManageError> {
    match state.mechanism {
        Mechanism::CgroupV2 => Ok(()),
        Mechanism::Affinity => Err(ManageError::Refused("constrained execution needs cpusets (SCHED_DEADLINE pins a reservation only to a scheduling domain of its own)".into())),
        Mechanism::CgroupV1 => {
            let root = partition::cpuset_root().ok_or_else(|| ManageError::Refused("the cpuset hierarchy vanished".into()))?;
            let path = root.join("cpuset.sched_load_balance");
            let previous = std::fs::read_to_string(&path).map_err(|e| ManageError::Refused(format!("{}: {e}", path.display())))?;
            state.changes.push(StateChange::Setting { path: path.clone(), previous: previous.trim().into() });
            state.save().map_err(|e| ManageError::Refused(format!("write the partition state: {e}")))?;
            std::fs::write(&path, "0").map_err(|e| ManageError::Refused(format!("{}: {e}", path.display())))
        }
    }
}

/// When the run ends at the latest: the isolation's jobs, [`job::ISOLATIONS`] times at most
/// (and a second for calibration), then the run's duration. The watchdog's hard stop comes a grace period after it.
fn run_end_bound(config: &ManageConfig) -> u64 {
    let rt = &config.system.rt;
    let jobs = job::ISOLATIONS * isolation_jobs(config);
    clock::now_ns() + jobs * rt.period.as_nanos() + 1_000_000_000 + config.duration.as_nanos()
}

fn isolation_jobs(config: &ManageConfig) -> u64 {
    (config.isolation.as_nanos() / config.system.rt.period.as_nanos()).max(10)
}

/// Calibrates the job size (if given as a length) and runs the isolation jobs.
fn isolate(
    config: &ManageConfig,
    work: Work,
    dir: &std::path::Path,
    control: &Arc<RunControl>,
) -> Result<(u64, Vec<JobRecord>), ManageError> {
    let s = &config.system;
    let jobs = isolation_jobs(config);
    let (size, dir) = (s.rt.size, dir.to_path_buf());
    let spec_base = (work, s.rt.period, s.manager.execution);
    let control = control.clone();
    let body = move || -> Result<(u64, Vec<JobRecord>), PlatformError> {
        let (calls, length) = match size {
            JobSize::Calls(n) => (n, None),
            JobSize::Length(l) => (job::calibrate(spec_base.0, l, &dir)?, Some(l)),
        };
        let spec = JobSpec {
            work: spec_base.0,
            calls,
            period: spec_base.1,
            execution: spec_base.2,
        };
        job::isolate(spec, &dir, jobs, &control, length)
    };
    let t = thread::spawn(
        ThreadSpec::fifo("kairos-isolate", priority::PROBE, vec![s.rt.core.0]),
        body,
    )?;
    let (calls, records) = t.join()??;
    if records.is_empty() {
        return Err(PlatformError::Interrupted.into());
    }
    Ok((calls, records))
}

fn start_programs(
    s: &ManagedSystem,
    be_cores: &[usize],
    bandwidth: &Bandwidth,
    timeout_s: u64,
    dir: &std::path::Path,
) -> Result<Vec<Program>, ManageError> {
    s.best_effort
        .iter()
        .map(|b| {
            let group = be_cores
                .iter()
                .position(|c| *c == b.core.0)
                .expect("every program's core has a group");
            let launch = be::Launch {
                name: b.name.clone(),
                core: b.core.0,
                work: b.work.clone(),
                joins: bandwidth.joins(group).to_vec(),
                timeout_s,
                scratch: dir.to_path_buf(),
            };
            Program::start(launch).map_err(|source| ManageError::Program {
                name: b.name.clone(),
                source,
            })
        })
        .collect()
}

fn spawn_rt(
    s: &ManagedSystem,
    spec: &JobSpec,
    reservation: Duration,
    dir: &std::path::Path,
    control: &Arc<RunControl>,
    tx: mpsc::Sender<JobRecord>,
    heartbeat: Arc<Heartbeat>,
) -> Result<thread::RtThread<Result<(), PlatformError>>, ManageError> {
    let cpus = vec![s.rt.core.0];
    let thread_spec = match spec.execution {
        Execution::Free => ThreadSpec::fifo("kairos-rt-task", priority::PROBE, cpus),
        Execution::Constrained => {
            let p = s.manager.period.as_nanos();
            let params = DeadlineParams {
                runtime: reservation.as_nanos(),
                deadline: p,
                period: p,
            };
            ThreadSpec::deadline("kairos-rt-task", params, cpus)
        }
    };
    let (spec, dir, control) = (spec.clone(), dir.to_path_buf(), control.clone());
    Ok(thread::spawn(thread_spec, move || {
        job::run_jobs(&spec, &dir, None, &control, |r| {
            heartbeat.beat();
            let _ = tx.send(r);
        })
    })?)
}
