//! GMH-MC-DAG table synthesis (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 4.2; notes
//! `mixed-criticality.md`, "Offline"): one table per criticality level, from the highest level
//! down. Levels `l >= 1` are built backwards in time ("as late as possible") with table `l+1`
//! fixed, level 0 forwards with table 1 fixed; each pair of consecutive tables satisfies the
//! safe-transition constraint exactly ([`crate::bounds`]), unlike the reference tool, which only
//! checks part of it above level 1.
//!
//! This module turns the system into engine problems (mirroring time for the backwards levels),
//! runs [`crate::engine`] and maps its pieces and failures back to real time and job names.

use crate::bounds::UnitBounds;
use crate::deadlines::{earliest_start_times, latest_finish_times, level_predecessors};
use crate::engine::{self, Csr, EngineJob, Piece, Problem, Schedule, Stuck};
use crate::error::SynthFailure;
use crate::grid::Grid;
use crate::layout::LevelJobs;
use crate::Policy;
use kairos_model::{McSystem, TaskRef};

/// One level's table in real slots, pieces grouped by job.
pub(crate) struct BuiltLevel {
    pub jobs: LevelJobs,
    /// Sorted by `(job, start)`.
    pub pieces: Vec<Piece>,
    /// The pieces of job `j` are `pieces[index[j]..index[j + 1]]`.
    index: Vec<u32>,
    /// Indices into `pieces` in table order, by `(start, core)`.
    pub table: Vec<u32>,
}

impl BuiltLevel {
    /// From the pieces in table order: a stable counting sort by job then keeps each job's
    /// pieces ascending in time, in linear time.
    fn new(jobs: LevelJobs, in_table_order: Vec<Piece>) -> BuiltLevel {
        let mut index = vec![0u32; jobs.count() + 1];
        for piece in &in_table_order {
            index[piece.job as usize + 1] += 1;
        }
        for j in 0..jobs.count() {
            index[j + 1] += index[j];
        }
        let mut fill = index.clone();
        // Every element is overwritten below: the clone only gives a buffer of the right size.
        let mut pieces = in_table_order.clone();
        let mut table = Vec::with_capacity(in_table_order.len());
        for piece in in_table_order {
            let at = &mut fill[piece.job as usize];
            pieces[*at as usize] = piece;
            table.push(*at);
            *at += 1;
        }
        BuiltLevel {
            jobs,
            pieces,
            index,
            table,
        }
    }

    /// The pieces of one job, ascending in time.
    pub fn of_job(&self, job: u32) -> &[Piece] {
        &self.pieces[self.index[job as usize] as usize..self.index[job as usize + 1] as usize]
    }
}

/// What every level of one synthesis shares.
pub(crate) struct Context<'a> {
    pub system: &'a McSystem,
    pub grid: Grid,
    pub cores: usize,
    pub policy: Policy,
}

/// Builds every level, highest first; returns them lowest first.
pub(crate) fn build_levels(ctx: &Context) -> Result<Vec<BuiltLevel>, SynthFailure> {
    let mut built: Vec<BuiltLevel> = Vec::with_capacity(ctx.system.level_count());
    for level in (0..ctx.system.level_count()).rev() {
        let table = build_level(ctx, level, built.last())?;
        built.push(table);
    }
    built.reverse();
    Ok(built)
}

/// Builds table `level` against the table of `level + 1` (`above`), if any.
fn build_level(
    ctx: &Context,
    level: usize,
    above: Option<&BuiltLevel>,
) -> Result<BuiltLevel, SynthFailure> {
    let horizon = ctx.grid.hyperperiod;
    let jobs = LevelJobs::new(ctx.system, level, ctx.grid.hyperperiod * ctx.grid.slot_ns)?;
    let (engine_jobs, successors) = engine_problem(ctx, level, &jobs, above);
    let problem = Problem {
        jobs: &engine_jobs,
        successors: &successors,
        cores: ctx.cores,
        horizon,
        policy: ctx.policy,
    };
    let view = View {
        ctx,
        level,
        jobs: &jobs,
        engine_jobs: &engine_jobs,
    };
    let schedule = engine::schedule(&problem).map_err(|stuck| view.explain(stuck))?;
    let pieces = if level > 0 {
        mirrored_table_order(schedule, horizon)
    } else {
        // Forwards, the opening order `(start, core)` is already the table's.
        schedule.pieces
    };
    Ok(BuiltLevel::new(jobs, pieces))
}

/// The pieces of a backwards level in real time and table order `(start, core)`: a real start
/// is an engine end, so this is the engine's closing order `(end, core)` reversed, with the
/// pieces of equal end put back in core order.
fn mirrored_table_order(schedule: Schedule, horizon: u64) -> Vec<Piece> {
    let mut pieces: Vec<Piece> = (schedule.closed.iter().rev())
        .map(|&i| {
            let piece = schedule.pieces[i as usize];
            Piece {
                start: horizon - piece.end,
                end: horizon - piece.start,
                ..piece
            }
        })
        .collect();
    for same_start in pieces.chunk_by_mut(|a, b| a.start == b.start) {
        same_start.reverse();
    }
    pieces
}

/// The engine jobs of `level` (in id order) and their precedence, in engine time.
fn engine_problem(
    ctx: &Context,
    level: usize,
    jobs: &LevelJobs,
    above: Option<&BuiltLevel>,
) -> (Vec<EngineJob>, Csr) {
    let backward = level > 0;
    let h = ctx.grid.hyperperiod;
    let mut engine_jobs = Vec::with_capacity(jobs.count());
    let mut pairs = Vec::new();
    for (g, dag) in ctx.system.dags.iter().enumerate() {
        let order = dag.topological_order().unwrap_or_default();
        let present: Vec<bool> = dag.tasks.iter().map(|t| t.runs_at(level)).collect();
        let wcet: Vec<u64> = dag
            .tasks
            .iter()
            .map(|t| t.wcet_at(level).map_or(0, |w| ctx.grid.slots(w)))
            .collect();
        let period = ctx.grid.slots(dag.period);
        let deadline = ctx.grid.slots(dag.deadline);
        let est = earliest_start_times(dag, &order, &wcet);
        let lft = latest_finish_times(dag, &order, &wcet, deadline);
        let preds = level_predecessors(dag, &present);
        let edges: usize = preds.iter().map(Vec::len).sum();
        pairs.reserve(edges * jobs.dag_jobs(g) as usize);
        for k in 0..jobs.dag_jobs(g) {
            let release = k * period;
            for &task in jobs.present(g) {
                let tref = TaskRef { dag: g, task };
                let adjacent = above.and_then(|a| a.jobs.id(tref, k).map(|id| a.of_job(id)));
                let job = if backward {
                    EngineJob {
                        release: h - (release + deadline),
                        deadline: h.saturating_sub(release + est[task]),
                        wcet: wcet[task],
                        bounds: adjacent.map_or(UnitBounds::Free, |pieces| {
                            let delta = adjacent_units(pieces).saturating_sub(wcet[task]);
                            let mirrored = pieces.iter().rev().map(|p| (h - p.end, h - p.start));
                            UnitBounds::release(mirrored, delta, wcet[task])
                        }),
                    }
                } else {
                    EngineJob {
                        release,
                        deadline: (release as i64 + lft[task]).max(0) as u64,
                        wcet: wcet[task],
                        bounds: adjacent.map_or(UnitBounds::Free, |pieces| {
                            let real = pieces.iter().map(|p| (p.start, p.end));
                            UnitBounds::deadline(real, wcet[task])
                        }),
                    }
                };
                engine_jobs.push(job);
                let me = jobs.id(tref, k).expect("present task has an id");
                for &p in &preds[task] {
                    let pred = jobs
                        .id(TaskRef { dag: g, task: p }, k)
                        .expect("present pred");
                    pairs.push(if backward { (me, pred) } else { (pred, me) });
                }
            }
        }
    }
    let successors = Csr::from_pairs(engine_jobs.len(), &pairs);
    (engine_jobs, successors)
}

/// Units a job has in the adjacent table.
fn adjacent_units(pieces: &[Piece]) -> u64 {
    pieces.iter().map(|p| p.end - p.start).sum()
}

/// Names and real times for the failures of one level.
struct View<'a> {
    ctx: &'a Context<'a>,
    level: usize,
    jobs: &'a LevelJobs,
    engine_jobs: &'a [EngineJob],
}

impl View<'_> {
    fn level_name(&self, level: usize) -> String {
        self.ctx.system.levels[level].clone()
    }

    fn job_name(&self, id: u32) -> String {
        let (task, k) = self.jobs.job(id);
        format!("{}#{k}", self.ctx.system.qualified_name(task))
    }

    /// The real instant of engine boundary `t` (a slot start forwards, a slot end backwards).
    fn instant(&self, t: u64) -> kairos_model::Duration {
        let h = self.ctx.grid.hyperperiod;
        self.ctx
            .grid
            .duration(if self.level > 0 { h - t } else { t })
    }

    fn explain(&self, stuck: Stuck) -> SynthFailure {
        let level = self.level_name(self.level);
        match stuck {
            Stuck::TooManyUrgent { at, jobs } => {
                let mut names: Vec<String> = jobs.iter().take(8).map(|&j| self.job_name(j)).collect();
                if jobs.len() > 8 {
                    names.push("...".into());
                }
                SynthFailure::TooManyUrgent {
                    level,
                    at: self.instant(at),
                    count: jobs.len(),
                    cores: self.ctx.cores,
                    jobs: names.join(", "),
                }
            }
            Stuck::Late { at, job, needed, unit_bound } => SynthFailure::Late {
                level,
                job: self.job_name(job),
                at: self.instant(at),
                needed: self.ctx.grid.duration(needed),
                reason: self.late_reason(job, at, unit_bound),
            },
            Stuck::Unfinished { job, missing, waiting_for } => SynthFailure::Unfinished {
                level,
                job: self.job_name(job),
                missing: self.ctx.grid.duration(missing),
                why: match waiting_for {
                    Some(p) if self.level > 0 => format!(
                        "the table is built backwards and its successor {} could not be placed late enough",
                        self.job_name(p)
                    ),
                    Some(p) => format!("its predecessor {} finished too late", self.job_name(p)),
                    None => "no slot was left for it".into(),
                },
            },
            Stuck::UnsafeBounds { job, unit, earliest } => {
                let spec = &self.engine_jobs[job as usize];
                SynthFailure::UnsafeTransition {
                    level,
                    above: self.level_name(self.level + 1),
                    job: self.job_name(job),
                    detail: format!(
                        "its slot number {unit} counted from the end must end by {} to leave enough of its \
                         level-{} budget after it, but then {} of execution does not fit after its earliest start {}",
                        self.instant(earliest),
                        self.level_name(self.level + 1),
                        self.ctx.grid.duration(spec.wcet - unit + 1),
                        self.instant(spec.deadline),
                    ),
                }
            }
        }
    }

    fn late_reason(&self, job: u32, at: u64, unit_bound: bool) -> String {
        let spec = &self.engine_jobs[job as usize];
        if self.level > 0 {
            let left = spec.deadline.saturating_sub(at);
            return format!(
                "the table is built backwards and only {} remain down to its earliest start {} \
                 (its predecessors' WCETs at this level come first)",
                self.ctx.grid.duration(left),
                self.instant(spec.deadline)
            );
        }
        if unit_bound {
            format!(
                "the safe transition to level {} needs it to stay ahead of its level-{} table until it completes",
                self.level_name(1),
                self.level_name(1)
            )
        } else {
            format!(
                "its deadline at this level is {} (latest finish leaving room for its successors)",
                self.instant(spec.deadline)
            )
        }
    }
}
