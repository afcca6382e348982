//! What a table run asked of its jobs, and the jobs that overran a budget their work fits.

use kairos_model::{McSystem, TableSet};
use kairos_policy::table::{job_demands, DemandSpec, TablePlan};
use kairos_rt::table::{TableRun, TableRunConfig};

/// The evidence that a job fell short of time on a slowed core, if it did: before its lack of
/// time was seen, the operating system's wake-up of its worker (from the
/// dispatcher's first request to its first instruction) and the time it held its cores add up
/// to at least its busy work at the calibrated speed, and it still had work left. Both are the
/// machine's: the dispatcher had asked, and calibrated loop iterations left unfinished on a
/// core the job held mean a core slower than at calibration (time the hypervisor took in holes
/// shorter than the stall watcher sees, a busy hyper-thread sibling, a lower clock, interrupts
/// or kernel threads). Time the job had neither (a late request, a lost wake-up, a later
/// activation the dispatcher delayed, another job on its core) counts for nothing, so a fault
/// of the run's own still fails the test.
pub fn slowed_core(run: &TableRun, asked: &Asked, job: (usize, u64, u64)) -> Option<String> {
    let held = Held::of(run, asked, job)?;
    (held.held + held.waited >= held.work).then(|| held.text(run))
}

/// What the run gave a job before its lack of time was seen, in text, whether or not it tells
/// of a slowed core: printed when nothing of the host explains an anomaly, so that its
/// figures say where the job's time went.
pub fn job_figures(run: &TableRun, asked: &Asked, job: (usize, u64, u64)) -> String {
    match Held::of(run, asked, job) {
        Some(held) => format!("{}; its segments: {}", held.text(run), held.segments()),
        None => "the run recorded no start of it".into(),
    }
}

/// One job's time before `seen` (ns since the run's start): its work at the calibrated speed,
/// the operating system's wake-up of its worker and its segments on the cores.
struct Held {
    task: usize,
    job: u64,
    seen: u64,
    requested: u64,
    work: u64,
    waited: u64,
    held: u64,
    segments: Vec<(usize, u64, u64)>,
}

impl Held {
    fn of(run: &TableRun, asked: &Asked, (task, job, seen): (usize, u64, u64)) -> Option<Held> {
        let r = &run.result;
        let record = (r.jobs.iter()).find(|j| (j.task, j.job) == (task, job))?;
        let (requested, start) = (record.requested?, record.start?);
        let segments: Vec<(usize, u64, u64)> = (r.trace.segments())
            .filter(|&(_, t, j, from, _)| (t, j) == (task, job) && from.as_nanos() < seen)
            .map(|(core, _, _, from, to)| (core, from.as_nanos(), to.as_nanos().min(seen)))
            .collect();
        Some(Held {
            task,
            job,
            seen,
            requested,
            work: (asked.work(task, job) as f64 * asked.work_fraction) as u64,
            waited: start.saturating_sub(requested),
            held: segments.iter().map(|&(_, from, to)| to - from).sum(),
            segments,
        })
    }

    fn text(&self, run: &TableRun) -> String {
        format!(
            "{}@{} was asked for at {:.3} ms, its lack of time seen at {:.3} ms, its busy work \
             takes {:.3} ms at the calibrated speed: the operating system took {:.3} ms to \
             start it and it held its core {:.3} ms without finishing",
            run.result.trace.task_names[self.task],
            self.job,
            ms(self.requested),
            ms(self.seen),
            ms(self.work),
            ms(self.waited),
            ms(self.held),
        )
    }

    /// The first segments, where and when (a job of a cyclic table has hundreds).
    fn segments(&self) -> String {
        const SHOWN: usize = 12;
        let mut text: Vec<String> = (self.segments.iter().take(SHOWN))
            .map(|&(core, from, to)| format!("core {core} {:.3}-{:.3} ms", ms(from), ms(to)))
            .collect();
        if self.segments.len() > SHOWN {
            text.push(format!("{} more", self.segments.len() - SHOWN));
        }
        text.join(", ")
    }
}

fn ms(ns: u64) -> f64 {
    ns as f64 / 1e6
}

/// What the run asked of its jobs: each one's drawn work, drawn again exactly as the run drew
/// it, each task's budget per level and the share of its work each job runs.
pub struct Asked {
    plan: TablePlan,
    drawn: Vec<Vec<u64>>,
    work_fraction: f64,
}

impl Asked {
    pub fn new(
        run: &TableRun,
        config: &TableRunConfig,
        system: &McSystem,
        tables: &TableSet,
    ) -> Asked {
        let plan = TablePlan::new(system, tables).expect("the run's tables resolve");
        let spec = DemandSpec {
            execution_times: config.execution_times,
            overruns: config.overruns.clone(),
            overrun_probability: config.overrun_probability,
            seed: config.seed,
        };
        let jobs = &run.result.jobs;
        let horizon = jobs.iter().map(|j| j.deadline).max().unwrap_or(0);
        let drawn = job_demands(&plan, &spec, horizon).expect("the run's demands draw again");
        Asked {
            plan,
            drawn,
            work_fraction: config.work_fraction,
        }
    }

    fn criticality(&self, task: usize) -> usize {
        self.plan.tasks[task].criticality()
    }

    /// The work drawn for job `job` of flat task `task`, in ns.
    fn work(&self, task: usize, job: u64) -> u64 {
        self.drawn[task][job as usize]
    }

    /// Whether that work fits the task's budget at `level`: the job cannot overrun it unless
    /// the machine slowed it (it runs only `work_fraction` of its work).
    fn fits(&self, task: usize, job: u64, level: usize) -> bool {
        let budget = self.plan.tasks[task].wcet.get(level).copied();
        budget.is_some_and(|b| self.work(task, job) <= b)
    }
}

/// A job that overran a budget its drawn work fits, and when the run saw it (ns since its
/// start): by raising the mode, or by missing its deadline (budget enforcement stopped it at
/// its own level, or it never had the time its work needs).
#[derive(Clone, Copy)]
pub struct Unplanned {
    pub task: usize,
    pub job: u64,
    pub seen: u64,
    pub missed: bool,
}

impl Unplanned {
    pub fn what(&self, name: &str) -> String {
        match self.missed {
            true => format!("{name} missed its deadline with work its budget fits"),
            false => format!("{name} overran unasked"),
        }
    }
}

/// Jobs that overran a budget their drawn work fits: an overrun not injected, past the level
/// its injection asked for (two raises in a hyper-period where one was asked), or a miss of a
/// job not discarded. A job runs `work_fraction` of its work, so
/// only a host that slowed its core by the rest, or a fault of the run, makes it overrun.
///
/// Not for tables where a task's WCETs at two levels are equal: right after a raise the
/// policy checks such a job at once, as if its last interval had ended, and a job whose work
/// fits may then raise the mode again (no scenario of these tests has such a task).
pub fn unplanned_overruns(run: &TableRun, asked: &Asked) -> Vec<Unplanned> {
    let raised = (run.mode_changes.iter())
        .filter(|change| change.to > change.from)
        .flat_map(|change| {
            (change.triggers.iter()).map(move |job| (job.task, job.number, change.from, change))
        })
        .filter(|&(task, job, from, _)| asked.fits(task, job, from))
        .map(|(task, job, _, change)| Unplanned {
            task,
            job,
            seen: change.detected_at,
            missed: false,
        });
    let r = &run.result;
    let end = r.ran_ns.min(r.duration_ns);
    // A job not discarded runs in its own level's table at the latest (the tables above it
    // hold none of its intervals), so its budget there is the one it overran.
    let missed = (r.jobs.iter())
        .filter(|j| j.missed(end))
        .filter(|j| asked.fits(j.task, j.job, asked.criticality(j.task)))
        .map(|j| Unplanned {
            task: j.task,
            job: j.job,
            seen: j.deadline,
            missed: true,
        });
    raised.chain(missed).collect()
}
