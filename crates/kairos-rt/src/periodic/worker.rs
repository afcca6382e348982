//! One task's thread: it waits for the common origin, sleeps to each release (not at all for
//! a release already past), runs the job's body (busy work or a command) and records what
//! happened, split into segments where the CPU changed or wall time ran ahead of CPU time.

use super::*;

pub(super) fn make_worker(
    workload: &Workload,
    config: &PeriodicConfig,
    calibration: &Calibration,
    t: &ThreadPlan,
    gate: &Arc<StartGate>,
    control: &Arc<RunControl>,
) -> Worker {
    let task = &workload.tasks[t.task];
    let pinned = (t.cpus.len() == 1).then(|| t.cpus[0]);
    let draws = kairos_policy::JobDraws::new(config.seed, config.execution_times);
    let jobs = config.duration_ns.saturating_sub(task.offset.as_nanos())
        / task.period.as_nanos().max(1)
        + 1;
    Worker {
        task: t.task,
        demand_ns: (0..jobs)
            .map(|job| draws.execution_time(t.task, task, job).as_nanos())
            .collect(),
        period_ns: task.period.as_nanos().max(1),
        deadline_ns: task.deadline.as_nanos(),
        offset_ns: task.offset.as_nanos(),
        duration_ns: config.duration_ns,
        body: config.bodies.get(t.task).cloned().unwrap_or(JobBody::Busy),
        work: calibration.busy_work(pinned),
        gate: Arc::clone(gate),
        control: Arc::clone(control),
        heartbeat: Arc::new(Heartbeat::default()),
        child: Arc::new(AtomicI32::new(0)),
    }
}

/// Longest single sleep, so a stop request is seen within this time even between releases.
const SLEEP_STEP_NS: u64 = 50_000_000;

/// Sleeps until `target` unless the run is stopped first; false if it was.
fn sleep_until_or_stop(target: u64, control: &RunControl) -> bool {
    loop {
        if control.should_stop() {
            return false;
        }
        let now = clock::now_ns();
        if now >= target {
            return true;
        }
        clock::sleep_until(target.min(now + SLEEP_STEP_NS));
    }
}

pub(super) fn run_worker(w: Worker) -> ThreadLog {
    memory::prefault_stack();
    let jobs = (w.duration_ns.saturating_sub(w.offset_ns) / w.period_ns + 1) as usize;
    let mut log = ThreadLog::with_capacity(jobs);
    let Some(origin) = w.gate.wait() else {
        return log;
    };
    // Every job released before the end runs, late ones too: a thread delayed past its next
    // release (a long job, a host stall) works off the backlog at once, as a periodic task
    // with queued releases does, instead of losing releases near the end of the run. The
    // watchdog's hard stop bounds the time this may take after the end.
    for job in 0u64.. {
        let release = w.offset_ns + job * w.period_ns;
        if release >= w.duration_ns || !sleep_until_or_stop(origin + release, &w.control) {
            break;
        }
        w.heartbeat.beat();
        let start = clock::now_ns();
        let mut record = JobRecord {
            task: w.task,
            job,
            release,
            deadline: release + w.deadline_ns,
            requested: None,
            start: Some(start - origin),
            completion: None,
            discarded: None,
            cpu: Some(clock::current_cpu()),
            release_core: None,
        };
        let finished = match &w.body {
            JobBody::Busy => busy_job(&w, origin, job, &mut log),
            JobBody::Command(command) => command_job(&w, command, origin, job, &mut log),
        };
        if finished {
            record.completion = Some(clock::now_ns() - origin);
        }
        log.jobs.push(record);
    }
    log
}

/// Runs one job of busy work, recording its segments; false if the run stopped it.
fn busy_job(w: &Worker, origin: u64, job: u64, log: &mut ThreadLog) -> bool {
    let mut tracker = SegmentTracker::start(w.task, job, origin);
    let mut stopped = false;
    let demand = w.demand_ns.get(job as usize).copied().unwrap_or(0);
    w.work.run(demand, || {
        w.heartbeat.beat();
        tracker.sample(log);
        if w.control.should_stop() {
            stopped = true;
            Chunk::Stop
        } else {
            Chunk::Continue
        }
    });
    tracker.close(log);
    !stopped
}

fn command_job(w: &Worker, command: &str, origin: u64, job: u64, log: &mut ThreadLog) -> bool {
    let cpu = clock::current_cpu();
    let start = clock::now_ns() - origin;
    let status = run_command(command, &w.child);
    let end = clock::now_ns() - origin;
    log.segments.push(SegmentRecord {
        cpu,
        task: w.task,
        job,
        start,
        end,
        worker_time: None,
    });
    if let Ok(s) = &status {
        if !s.success() {
            log.measurements.record("command_failures", 1);
        }
    }
    status.is_ok()
}

/// Wall time ahead of CPU time within one chunk beyond which the job counts as preempted.
const PREEMPTION_GAP_NS: u64 = 10_000;

/// Follows a busy job between chunks: a new segment when the CPU changes (a migration) or
/// when wall time outran CPU time (the thread was preempted in between).
struct SegmentTracker {
    task: usize,
    job: u64,
    origin: u64,
    cpu: usize,
    start: u64,
    last_wall: u64,
    last_cpu_time: u64,
}

impl SegmentTracker {
    fn start(task: usize, job: u64, origin: u64) -> Self {
        let now = clock::now_ns();
        SegmentTracker {
            task,
            job,
            origin,
            cpu: clock::current_cpu(),
            start: now,
            last_wall: now,
            last_cpu_time: clock::thread_cpu_ns(),
        }
    }

    fn sample(&mut self, log: &mut ThreadLog) {
        let (now, cpu_time, cpu) = (
            clock::now_ns(),
            clock::thread_cpu_ns(),
            clock::current_cpu(),
        );
        let ran = cpu_time.saturating_sub(self.last_cpu_time);
        let gap = (now - self.last_wall).saturating_sub(ran);
        if cpu != self.cpu || gap > PREEMPTION_GAP_NS {
            self.push(log, self.last_wall);
            if cpu != self.cpu {
                log.migrations += 1;
            }
            self.cpu = cpu;
            self.start = now.saturating_sub(ran);
        }
        self.last_wall = now;
        self.last_cpu_time = cpu_time;
    }

    fn close(&mut self, log: &mut ThreadLog) {
        self.push(log, clock::now_ns());
    }

    fn push(&self, log: &mut ThreadLog, end: u64) {
        if end > self.start {
            log.segments.push(SegmentRecord {
                cpu: self.cpu,
                task: self.task,
                job: self.job,
                start: self.start - self.origin,
                end: end - self.origin,
                worker_time: None,
            });
        }
    }
}
