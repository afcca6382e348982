//! The event loop of the `table` policy; the semantics are in the parent module's documentation.
//!
//! State is kept per job of the current hyper-period (one key per task and job of the
//! hyper-period) and reset at each boundary: with deadlines at most the periods, every job of a
//! hyper-period lies inside it, so nothing crosses a boundary. Cost per event is O(m log n)
//! lookups in the tables plus O(d) for the d DAGs; a mode rise costs O(jobs of a hyper-period).

use kairos_model::Instant;
use kairos_trace::{Trace, TraceEvent};

use super::metrics::{LevelCounts, MissRecord, ModeChangeRecord, TableMetrics};
use super::TableSimOutcome;
use kairos_policy::table::{Demands, TablePlan as Plan};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Status {
    /// Not released yet in this hyper-period.
    Waiting,
    /// Released, unfinished, may run in its intervals.
    Ready,
    Completed,
    /// Budget enforced: unfinished at the end of its last interval at a mode not below its
    /// task's criticality; it never runs again.
    Stopped,
    Discarded,
}

#[derive(Clone, Debug)]
struct Job {
    status: Status,
    /// Work left, in ns.
    remaining: u64,
    /// Whether its work is at most its WCET at its own level (so the tables guarantee it).
    within_wcet: bool,
    /// The core it last ran on and when it stopped there, if it ran.
    last_core: Option<usize>,
    last_stop: u64,
    missed: bool,
    violated_precedence: bool,
}

const WAITING: Job = Job {
    status: Status::Waiting,
    remaining: 0,
    within_wcet: true,
    last_core: None,
    last_stop: 0,
    missed: false,
    violated_precedence: false,
};

/// The job on a core and since when its current segment runs.
#[derive(Clone, Copy, Debug)]
struct Running {
    key: usize,
    since: u64,
}

pub(crate) struct Run<'p> {
    plan: &'p Plan,
    demands: Demands,
    end: u64,
    now: u64,
    /// Start of the current hyper-period and its number.
    base: u64,
    generation: u64,
    mode: usize,
    mode_since: u64,
    max_mode: usize,
    jobs: Vec<Job>,
    cores: Vec<Option<Running>>,
    metrics: TableMetrics,
    trace: Option<Trace>,
}

impl<'p> Run<'p> {
    pub fn new(
        plan: &'p Plan,
        demands: Demands,
        duration: kairos_model::Duration,
        record_trace: bool,
    ) -> Run<'p> {
        let levels = &plan.levels;
        let end = duration.as_nanos();
        let trace = record_trace.then(|| Trace {
            task_names: plan.tasks.iter().map(|t| t.name.clone()).collect(),
            levels: levels.clone(),
            cores: plan.cores,
            end: Instant::from_nanos(end),
            events: Vec::new(),
        });
        let metrics = TableMetrics {
            policy: "table".into(),
            cores: plan.cores,
            levels: levels.clone(),
            duration_ns: end,
            hyperperiod_ns: plan.hyperperiod,
            deadline_misses_by_level: LevelCounts::zeros(levels),
            deadline_misses_by_mode: LevelCounts::zeros(levels),
            jobs_discarded_by_level: LevelCounts::zeros(levels),
            time_in_mode_ns: LevelCounts::zeros(levels),
            ..TableMetrics::default()
        };
        Run {
            plan,
            demands,
            end,
            now: 0,
            base: 0,
            generation: 0,
            mode: 0,
            mode_since: 0,
            max_mode: 0,
            jobs: vec![WAITING; plan.key_count()],
            cores: vec![None; plan.cores],
            metrics,
            trace,
        }
    }

    pub fn execute(mut self) -> TableSimOutcome {
        loop {
            self.handle_instant();
            if self.now >= self.end {
                break;
            }
            let next = self.next_event();
            self.advance(next);
        }
        self.finish()
    }

    /// Everything that happens at `now`, in the documented order.
    fn handle_instant(&mut self) {
        self.complete_jobs();
        let rel = self.now - self.base;
        self.detect_overruns(rel);
        self.check_deadlines(rel);
        if rel == self.plan.hyperperiod {
            self.new_hyperperiod();
        }
        if self.now < self.end {
            let rel = self.now - self.base;
            self.release_jobs(rel);
            self.dispatch(rel);
        } else {
            self.stop_all();
        }
    }

    /// The earliest of the next table bound, release, deadline or hyper-period end, the next
    /// completion and the end of the run.
    fn next_event(&self) -> u64 {
        let rel = self.now - self.base;
        let instants = &self.plan.instants;
        let next_static = instants
            .get(instants.partition_point(|&i| i <= rel))
            .map_or(self.plan.hyperperiod, |&i| i);
        let completion = self
            .cores
            .iter()
            .flatten()
            .map(|r| self.now + self.jobs[r.key].remaining)
            .min()
            .unwrap_or(u64::MAX);
        (self.base + next_static).min(completion).min(self.end)
    }

    fn advance(&mut self, to: u64) {
        let elapsed = to - self.now;
        for running in self.cores.iter().flatten() {
            self.jobs[running.key].remaining -= elapsed;
        }
        self.now = to;
    }

    fn complete_jobs(&mut self) {
        for core in 0..self.cores.len() {
            let Some(running) = self.cores[core] else {
                continue;
            };
            if self.jobs[running.key].remaining == 0 {
                self.complete(running.key);
            }
        }
    }

    fn complete(&mut self, key: usize) {
        self.jobs[key].status = Status::Completed;
        self.metrics.jobs_completed += 1;
        let (task, job) = self.job_id(key);
        self.record(TraceEvent::Completion {
            task,
            job,
            at: Instant::from_nanos(self.now),
        });
    }

    /// Overruns at the end of last intervals of the current table; rises cascade only through
    /// jobs left without intervals in the new table (see the parent module).
    fn detect_overruns(&mut self, rel: u64) {
        let mut candidates: Vec<usize> = self.plan.tables[self.mode].ending_at(rel).collect();
        loop {
            let mut triggers = Vec::new();
            for key in candidates {
                if self.jobs[key].status != Status::Ready {
                    continue;
                }
                if self.criticality(key) > self.mode {
                    triggers.push(key);
                } else {
                    self.jobs[key].status = Status::Stopped;
                    self.metrics.budget_exhausted += 1;
                }
            }
            if triggers.is_empty() {
                return;
            }
            self.raise_mode(&triggers);
            let table = &self.plan.tables[self.mode];
            candidates = (0..self.jobs.len())
                .filter(|&key| self.jobs[key].status == Status::Ready)
                .filter(|&key| table.last_end[key].is_none_or(|end| end <= rel))
                .collect();
        }
    }

    fn raise_mode(&mut self, triggers: &[usize]) {
        let names = triggers
            .iter()
            .map(|&key| {
                let (task, job) = self.job_id(key);
                format!("{}#{job}", self.plan.tasks[task].name)
            })
            .collect();
        self.change_mode(self.mode + 1, names);
        for key in 0..self.jobs.len() {
            let live = matches!(self.jobs[key].status, Status::Ready | Status::Stopped);
            if live && self.criticality(key) < self.mode {
                self.discard(key);
            }
        }
    }

    fn change_mode(&mut self, to: usize, triggers: Vec<String>) {
        let from = self.mode;
        self.metrics
            .time_in_mode_ns
            .add(from, self.now - self.mode_since);
        self.mode = to;
        self.mode_since = self.now;
        self.max_mode = self.max_mode.max(to);
        self.metrics.mode_changes.push(ModeChangeRecord {
            at_ns: self.now,
            from: self.plan.levels[from].clone(),
            to: self.plan.levels[to].clone(),
            triggers,
        });
        self.record(TraceEvent::ModeChange {
            at: Instant::from_nanos(self.now),
            from,
            to,
        });
    }

    fn discard(&mut self, key: usize) {
        self.jobs[key].status = Status::Discarded;
        self.metrics.jobs_discarded += 1;
        let level = self.criticality(key);
        self.metrics.jobs_discarded_by_level.add(level, 1);
        let (task, job) = self.job_id(key);
        self.record(TraceEvent::Discard {
            task,
            job,
            at: Instant::from_nanos(self.now),
        });
    }

    fn check_deadlines(&mut self, rel: u64) {
        for dag in &self.plan.dags {
            let Some(since_first) = rel.checked_sub(dag.deadline) else {
                continue;
            };
            if !since_first.is_multiple_of(dag.period) {
                continue;
            }
            let k = since_first / dag.period;
            for &task in &dag.tasks {
                let key = self.plan.tasks[task].first_key + k as usize;
                if matches!(self.jobs[key].status, Status::Ready | Status::Stopped) {
                    self.miss(key);
                }
            }
        }
    }

    fn miss(&mut self, key: usize) {
        self.jobs[key].missed = true;
        let level = self.criticality(key);
        let guaranteed = level >= self.mode && self.jobs[key].within_wcet;
        let (task, job) = self.job_id(key);
        let metrics = &mut self.metrics;
        metrics.deadline_misses += 1;
        metrics.deadline_misses_by_level.add(level, 1);
        metrics.deadline_misses_by_mode.add(self.mode, 1);
        metrics.guaranteed_misses += u64::from(guaranteed);
        metrics.misses.push(MissRecord {
            task: self.plan.tasks[task].name.clone(),
            job,
            deadline_ns: self.now,
            mode: self.plan.levels[self.mode].clone(),
            guaranteed,
        });
        self.record(TraceEvent::DeadlineMiss {
            task,
            job,
            at: Instant::from_nanos(self.now),
        });
    }

    /// The boundary of a hyper-period: every job of the last one is past its deadline; the mode
    /// returns to the lowest level (section 6.3).
    fn new_hyperperiod(&mut self) {
        self.stop_all();
        self.base += self.plan.hyperperiod;
        self.generation += 1;
        if self.mode != 0 {
            self.change_mode(0, Vec::new());
        }
        self.jobs.fill(WAITING);
    }

    fn release_jobs(&mut self, rel: u64) {
        for d in 0..self.plan.dags.len() {
            let dag = &self.plan.dags[d];
            if !rel.is_multiple_of(dag.period) {
                continue;
            }
            let k = rel / dag.period;
            for &task in &dag.tasks {
                self.release(task, k);
            }
        }
    }

    fn release(&mut self, task: usize, k: u64) {
        let plan = self.plan;
        let key = plan.tasks[task].first_key + k as usize;
        let job = self.generation * plan.dags[plan.tasks[task].dag].jobs_per_hyperperiod + k;
        let work = self.demands.draw(plan, task, job);
        let wcet = &plan.tasks[task].wcet;
        self.jobs[key] = Job {
            status: Status::Ready,
            remaining: work,
            within_wcet: work <= wcet[wcet.len() - 1],
            ..WAITING
        };
        self.metrics.jobs_released += 1;
        let deadline = self.base + plan.deadline(plan.tasks[task].dag, k);
        self.record(TraceEvent::Release {
            task,
            job,
            at: Instant::from_nanos(self.now),
            deadline: Instant::from_nanos(deadline),
        });
        if plan.tasks[task].criticality() < self.mode {
            self.discard(key);
        } else if work == 0 {
            self.complete(key);
        }
    }

    /// Puts on each core the ready job of its interval in the current table at `rel`; jobs that
    /// keep their core keep their segment, all moves of one instant happen together.
    fn dispatch(&mut self, rel: u64) {
        let table = &self.plan.tables[self.mode];
        let wanted: Vec<Option<usize>> = (0..self.cores.len())
            .map(|core| table.slot_at(core, rel).map(|slot| slot.key))
            .map(|key| key.filter(|&key| self.jobs[key].status == Status::Ready))
            .collect();
        for (core, &key) in wanted.iter().enumerate() {
            if self.cores[core].is_some_and(|running| Some(running.key) != key) {
                self.close_segment(core);
            }
        }
        for (core, &key) in wanted.iter().enumerate() {
            if let (Some(key), None) = (key, self.cores[core]) {
                self.start(core, key);
            }
        }
    }

    fn start(&mut self, core: usize, key: usize) {
        // Counted like the tables' quality (kairos-mc): a gap is a preemption, a core change a
        // migration, so an instantaneous migration is a migration only.
        if let Some(last) = self.jobs[key].last_core {
            self.metrics.preemptions += u64::from(self.jobs[key].last_stop < self.now);
            self.metrics.migrations += u64::from(last != core);
        }
        self.jobs[key].last_core = Some(core);
        if !self.jobs[key].violated_precedence && self.ancestor_pending(key) {
            self.jobs[key].violated_precedence = true;
            self.metrics.precedence_violations += 1;
        }
        self.cores[core] = Some(Running {
            key,
            since: self.now,
        });
    }

    /// Whether a job of an ancestor in the same DAG activation may still run.
    fn ancestor_pending(&self, key: usize) -> bool {
        let (task, k) = self.plan.key_job[key];
        self.plan.tasks[task].ancestors.iter().any(|&a| {
            let ancestor = self.plan.tasks[a].first_key + k as usize;
            self.jobs[ancestor].status == Status::Ready
        })
    }

    fn close_segment(&mut self, core: usize) {
        let Some(running) = self.cores[core].take() else {
            return;
        };
        self.jobs[running.key].last_stop = self.now;
        if running.since < self.now {
            let (task, job) = self.job_id(running.key);
            self.record(TraceEvent::Segment {
                core,
                task,
                job,
                start: Instant::from_nanos(running.since),
                end: Instant::from_nanos(self.now),
            });
        }
    }

    fn stop_all(&mut self) {
        for core in 0..self.cores.len() {
            self.close_segment(core);
        }
    }

    fn finish(mut self) -> TableSimOutcome {
        self.metrics
            .time_in_mode_ns
            .add(self.mode, self.now - self.mode_since);
        self.metrics.unfinished_jobs = self
            .jobs
            .iter()
            .filter(|j| matches!(j.status, Status::Ready | Status::Stopped) && !j.missed)
            .count() as u64;
        self.metrics.max_mode = self.plan.levels[self.max_mode].clone();
        TableSimOutcome {
            metrics: self.metrics,
            trace: self.trace,
        }
    }

    /// Trace task index and job number since time 0.
    fn job_id(&self, key: usize) -> (usize, u64) {
        let (task, k) = self.plan.key_job[key];
        let per_hyperperiod = self.plan.dags[self.plan.tasks[task].dag].jobs_per_hyperperiod;
        (task, self.generation * per_hyperperiod + k)
    }

    fn criticality(&self, key: usize) -> usize {
        self.plan.tasks[self.plan.key_job[key].0].criticality()
    }

    fn record(&mut self, event: TraceEvent) {
        if let Some(trace) = &mut self.trace {
            trace.events.push(event);
        }
    }
}
