//! The list scheduler that fills one table (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 4.2: "builds
//! these tables by statically applying the G-EDZL online global scheduling algorithm"; notes
//! `mixed-criticality.md`, "Offline", steps 2-4).
//!
//! It works in *engine time*: level 0 is built forwards, so engine time is real time; levels
//! `l >= 1` are built backwards, and the caller hands the engine the time mirror (slot `s` becomes
//! `H - 1 - s`, successors become predecessors, the lower end of a window becomes a deadline).
//! At each slot it gives one slot to each of the `m` best ready jobs by the slot priority policy.
//! A job may also carry per-unit bounds taken from the adjacent, already built table (the safe
//! transition constraint, see [`crate::bounds`]).
//!
//! Slots are not visited one by one: while the chosen set and its order cannot change (no
//! release, completion, unblocking, or laxity reaching the value that changes the order), the
//! engine advances by the whole stretch at once, so time and memory follow the number of
//! scheduling events and intervals, not hyper-period x cores.

use crate::Policy;

mod problem;

pub(crate) use problem::{Csr, EngineJob, Piece, Problem, Schedule, Stuck};

/// Progress of one job.
#[derive(Clone, Copy, Debug)]
struct JobState {
    done: u64,
    preds_left: u32,
    released: bool,
    last_core: Option<u32>,
    /// End of the job's latest piece (engine time); meaningful when `last_core` is set.
    last_end: u64,
}

/// A ready job at the current slot with its priority inputs.
#[derive(Clone, Copy, Debug)]
struct Candidate {
    job: u32,
    laxity: u64,
    /// [`priority_key`], computed once rather than at every comparison of the sort.
    key: (u64, u64, u32),
}

/// Fills the table: returns its pieces, or why it could not.
pub(crate) fn schedule(problem: &Problem) -> Result<Schedule, Stuck> {
    for (index, job) in problem.jobs.iter().enumerate() {
        if let Some((unit, earliest)) = job.bounds.infeasible_release(job.wcet, job.deadline) {
            return Err(Stuck::UnsafeBounds {
                job: index as u32,
                unit,
                earliest,
            });
        }
    }
    run_engine(problem, true)
}

/// [`schedule`]; `batch: false` visits every slot (the slow twin the tests compare against).
fn run_engine(problem: &Problem, batch: bool) -> Result<Schedule, Stuck> {
    let mut run = Run::new(problem, batch);
    run.fill()?;
    run.finish()
}

/// The state of one engine run.
struct Run<'a> {
    problem: &'a Problem<'a>,
    state: Vec<JobState>,
    /// Jobs by release time; `next` is the first not yet released.
    order: Vec<u32>,
    next: usize,
    active: Vec<u32>,
    /// The piece (index into `pieces`) each core is extending, if any.
    open: Vec<Option<u32>>,
    pieces: Vec<Piece>,
    closed: Vec<u32>,
    /// Advance by whole stretches (false: one slot at a time).
    batch: bool,
    /// Scratch: the job each core runs in the current stretch.
    assigned: Vec<Option<u32>>,
}

impl<'a> Run<'a> {
    fn new(problem: &'a Problem<'a>, batch: bool) -> Run<'a> {
        let jobs = problem.jobs;
        let mut state = vec![
            JobState {
                done: 0,
                preds_left: 0,
                released: false,
                last_core: None,
                last_end: 0,
            };
            jobs.len()
        ];
        for job in 0..jobs.len() as u32 {
            for &succ in problem.successors.of(job) {
                state[succ as usize].preds_left += 1;
            }
        }
        let mut order: Vec<u32> = (0..jobs.len() as u32).collect();
        // By (release, job): stable on ascending job indices. Stable also because jobs come in
        // monotone runs of release (one per DAG), which it merges cheaply.
        order.sort_by_key(|&j| jobs[j as usize].release);
        Run {
            problem,
            state,
            order,
            next: 0,
            active: Vec::new(),
            open: vec![None; problem.cores],
            // At least one piece per job, and a preemption adds one: a quarter more room
            // covers the 0.05-0.13 preemptions per job of generated systems, so that the
            // largest vectors of a synthesis are not copied to grow.
            pieces: Vec::with_capacity(jobs.len() + jobs.len() / 4),
            closed: Vec::with_capacity(jobs.len() + jobs.len() / 4),
            batch,
            assigned: Vec::new(),
        }
    }

    /// The main loop: release, pick, place, advance.
    fn fill(&mut self) -> Result<(), Stuck> {
        let mut t = 0u64;
        let mut candidates = Vec::new();
        while t < self.problem.horizon {
            self.release_until(t);
            if self.active.is_empty() {
                self.close_all();
                match self.order.get(self.next) {
                    Some(&j) => t = self.problem.jobs[j as usize].release,
                    None => break,
                }
                continue;
            }
            let unblock = self.candidates(t, &mut candidates)?;
            let chosen = candidates.len().min(self.problem.cores);
            let step = self.step(t, &candidates, chosen, unblock);
            self.place(t, step, &candidates[..chosen]);
            for c in &candidates[..chosen] {
                self.advance(c.job, step);
            }
            t += step;
        }
        self.close_all();
        Ok(())
    }

    /// Releases every job whose release is `<= t`; those without pending predecessors are ready.
    fn release_until(&mut self, t: u64) {
        while let Some(&job) = self.order.get(self.next) {
            if self.problem.jobs[job as usize].release > t {
                break;
            }
            let state = &mut self.state[job as usize];
            state.released = true;
            if state.preds_left == 0 {
                self.active.push(job);
            }
            self.next += 1;
        }
    }

    /// Fills `out` with the ready, unblocked jobs sorted by priority (best first); returns the
    /// earliest slot at which a blocked job becomes runnable.
    fn candidates(&self, t: u64, out: &mut Vec<Candidate>) -> Result<Option<u64>, Stuck> {
        out.clear();
        let mut unblock: Option<u64> = None;
        for &job in &self.active {
            let spec = &self.problem.jobs[job as usize];
            let done = self.state[job as usize].done;
            let earliest = spec.bounds.earliest_slot(done + 1);
            if earliest > t {
                unblock = Some(unblock.map_or(earliest, |u| u.min(earliest)));
                continue;
            }
            let remaining = spec.wcet - done;
            let (slack, unit_bound) = spec.bounds.laxity(done, remaining, t, spec.deadline);
            if slack < 0 {
                return Err(Stuck::Late {
                    at: t,
                    job,
                    needed: remaining,
                    unit_bound,
                });
            }
            let laxity = slack as u64;
            // Effective deadline: the latest completion consistent with the deadline and the
            // per-unit deadlines; constant while nothing happens to the job.
            let deadline = t + remaining + laxity;
            out.push(Candidate {
                job,
                laxity,
                key: priority_key(self.problem.policy, job, laxity, deadline),
            });
        }
        let urgent = out.iter().filter(|c| c.laxity == 0).count();
        if urgent > self.problem.cores {
            return Err(Stuck::TooManyUrgent {
                at: t,
                jobs: out
                    .iter()
                    .filter(|c| c.laxity == 0)
                    .map(|c| c.job)
                    .collect(),
            });
        }
        // Only the best `cores` need an order (it fixes the core assignment order); keys are
        // unique (job index last), so the split is deterministic.
        let cores = self.problem.cores;
        if out.len() > cores {
            out.select_nth_unstable_by_key(cores - 1, |c| c.key);
            out[..cores].sort_unstable_by_key(|c| c.key);
        } else {
            out.sort_unstable_by_key(|c| c.key);
        }
        Ok(unblock)
    }

    /// How many slots the chosen set can keep running unchanged.
    fn step(&self, t: u64, candidates: &[Candidate], chosen: usize, unblock: Option<u64>) -> u64 {
        if !self.batch {
            return 1;
        }
        let mut step = self.problem.horizon - t;
        if let Some(&job) = self.order.get(self.next) {
            step = step.min(self.problem.jobs[job as usize].release - t);
        }
        if let Some(u) = unblock {
            step = step.min(u - t);
        }
        for c in &candidates[..chosen] {
            let spec = &self.problem.jobs[c.job as usize];
            let done = self.state[c.job as usize].done;
            step = step.min(spec.wcet - done);
            step = step.min(spec.bounds.stable_units(done + 1));
        }
        let waiting = &candidates[chosen..];
        if waiting.is_empty() {
            return step.max(1);
        }
        // Jobs left out lose one unit of laxity per slot: stop where that can change the order
        // (zero laxity for G-EDZL, a tie with a chosen job for G-LLF).
        let floor = match self.problem.policy {
            Policy::Gllf => candidates[..chosen]
                .iter()
                .map(|c| c.laxity)
                .max()
                .unwrap_or(0),
            Policy::Gedzl | Policy::Gedf => 0,
        };
        for c in waiting {
            step = step.min(c.laxity.saturating_sub(floor));
        }
        step.max(1)
    }

    /// Assigns cores to the chosen jobs for `[t, t + step)` and extends or opens pieces.
    fn place(&mut self, t: u64, step: u64, chosen: &[Candidate]) {
        let mut assigned = std::mem::take(&mut self.assigned);
        assigned.clear();
        assigned.resize(self.problem.cores, None);
        // A job that ran in the previous slot keeps its core (no migration, no new piece); then
        // a job gets its last core if free; then the lowest free core.
        for c in chosen {
            let state = self.state[c.job as usize];
            if let Some(core) = state.last_core.filter(|_| state.last_end == t) {
                assigned[core as usize] = Some(c.job);
            }
        }
        for c in chosen {
            if let Some(core) = self.state[c.job as usize].last_core {
                if assigned[core as usize].is_none() {
                    assigned[core as usize] = Some(c.job);
                }
            }
        }
        let mut free = 0;
        for c in chosen {
            let last = self.state[c.job as usize].last_core;
            if last.is_some_and(|core| assigned[core as usize] == Some(c.job)) {
                continue;
            }
            while assigned[free].is_some() {
                free += 1;
            }
            assigned[free] = Some(c.job);
        }
        for (core, &job) in assigned.iter().enumerate() {
            self.extend(core, job, t, step);
        }
        self.assigned = assigned;
    }

    /// Core `core` runs `job` (or nothing) over `[t, t + step)`.
    fn extend(&mut self, core: usize, job: Option<u32>, t: u64, step: u64) {
        let Some(job) = job else {
            self.close(core);
            return;
        };
        match self.open[core] {
            Some(i) if self.pieces[i as usize].job == job && self.pieces[i as usize].end == t => {
                self.pieces[i as usize].end = t + step;
            }
            _ => {
                self.close(core);
                self.open[core] = Some(self.pieces.len() as u32);
                self.pieces.push(Piece {
                    job,
                    core: core as u32,
                    start: t,
                    end: t + step,
                });
            }
        }
        let state = &mut self.state[job as usize];
        state.last_core = Some(core as u32);
        state.last_end = t + step;
    }

    /// `job` received `step` more units; on completion its successors may become ready.
    fn advance(&mut self, job: u32, step: u64) {
        let state = &mut self.state[job as usize];
        state.done += step;
        if state.done < self.problem.jobs[job as usize].wcet {
            return;
        }
        self.active.retain(|&j| j != job);
        for &succ in self.problem.successors.of(job) {
            let s = &mut self.state[succ as usize];
            s.preds_left -= 1;
            if s.preds_left == 0 && s.released {
                self.active.push(succ);
            }
        }
    }

    /// Ends the piece `core` is extending, if any.
    fn close(&mut self, core: usize) {
        if let Some(i) = self.open[core].take() {
            self.closed.push(i);
        }
    }

    fn close_all(&mut self) {
        for core in 0..self.open.len() {
            self.close(core);
        }
    }

    /// The pieces, or the first job left unfinished.
    fn finish(self) -> Result<Schedule, Stuck> {
        for (job, state) in self.state.iter().enumerate() {
            let wcet = self.problem.jobs[job].wcet;
            if state.done < wcet {
                let waiting_for = (0..self.problem.jobs.len() as u32).find(|&p| {
                    self.state[p as usize].done < self.problem.jobs[p as usize].wcet
                        && self.problem.successors.of(p).contains(&(job as u32))
                });
                return Err(Stuck::Unfinished {
                    job: job as u32,
                    missing: wcet - state.done,
                    waiting_for,
                });
            }
        }
        Ok(Schedule {
            pieces: self.pieces,
            closed: self.closed,
        })
    }
}

/// Smaller is better. Ties go to the lower job index, so the result is deterministic.
fn priority_key(policy: Policy, job: u32, laxity: u64, deadline: u64) -> (u64, u64, u32) {
    match policy {
        Policy::Gedzl => (u64::from(laxity != 0), deadline, job),
        Policy::Gedf => (0, deadline, job),
        Policy::Gllf => (laxity, deadline, job),
    }
}

#[cfg(test)]
mod tests;
