//! Small random runs in whole ticks: periodic tasks (each pinned to a core or free to
//! migrate) on one or two cores, run by a seeded scheduler that mostly picks the earliest
//! deadline but sometimes any pending job or none (a dispatcher that lets its core fall
//! behind; less often when every task is pinned; never, for [`simulate_edf`]), with disjoint
//! stalls per core. A stall holds the job that was on its core: the
//! job's segment goes on, it makes no progress.

/// One tick in nanoseconds.
pub const TICK: u64 = 1_000;

/// A task: period, relative deadline, execution each job needs (ticks), its core if pinned.
#[derive(Clone, Copy, Debug)]
pub struct TaskSpec {
    pub period: u64,
    pub deadline: u64,
    pub demand: u64,
    pub core: Option<usize>,
}

/// One job of a run, in ticks.
#[derive(Clone, Debug)]
pub struct SimJob {
    pub task: usize,
    pub job: u64,
    pub release: u64,
    pub deadline: u64,
    /// Every tick it held a core, `(core, tick)` in time order (stalled ticks included).
    pub ran: Vec<(usize, u64)>,
    pub completion: Option<u64>,
}

/// A run of `cores` cores from 0 to `end` (ticks).
#[derive(Clone, Debug)]
pub struct Timeline {
    pub cores: usize,
    pub end: u64,
    pub jobs: Vec<SimJob>,
    /// `(core, start, length)`, disjoint per core.
    pub stalls: Vec<(usize, u64, u64)>,
    /// Every task pinned to a core: a partitioned run, each core's jobs in earliest-deadline
    /// order but for the scheduler's inversions.
    pub partitioned: bool,
}

impl Timeline {
    pub fn stalled(&self, core: usize, tick: u64) -> bool {
        (self.stalls.iter()).any(|&(c, s, l)| c == core && s <= tick && tick < s + l)
    }
}

/// SplitMix64: the scheduler's choices, from the case's seed.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// Keeps the stalls `(core, start, length)` that do not overlap an earlier one of their core.
pub fn disjoint(mut stalls: Vec<(usize, u64, u64)>, cores: usize) -> Vec<(usize, u64, u64)> {
    stalls.iter_mut().for_each(|s| s.0 %= cores);
    stalls.sort_unstable();
    let mut kept: Vec<(usize, u64, u64)> = Vec::new();
    for s in stalls {
        match kept.last() {
            Some(&(c, start, length)) if c == s.0 && s.1 < start + length => {}
            _ => kept.push(s),
        }
    }
    kept
}

/// Runs `tasks` on `cores` cores up to `end` with `stalls`, the scheduler's choices drawn
/// from `seed`.
pub fn simulate(
    tasks: &[TaskSpec],
    shape: (usize, u64),
    stalls: Vec<(usize, u64, u64)>,
    seed: u64,
) -> Timeline {
    let partitioned = tasks.iter().all(|t| t.core.is_some());
    let mut rng = Rng(seed);
    run(tasks, shape, stalls, |eligible, jobs| {
        choose(&mut rng, eligible, jobs, partitioned)
    })
}

/// Runs `tasks` as [`simulate`] does under a scheduler that never strays: each free core runs
/// its pending job first by (deadline, release, task, number), the order of P-EDF's cores.
pub fn simulate_edf(
    tasks: &[TaskSpec],
    shape: (usize, u64),
    stalls: Vec<(usize, u64, u64)>,
) -> Timeline {
    run(tasks, shape, stalls, |eligible, jobs| {
        let key = |&i: &usize| (jobs[i].deadline, jobs[i].release, jobs[i].task, jobs[i].job);
        eligible.iter().copied().min_by_key(key)
    })
}

fn run(
    tasks: &[TaskSpec],
    (cores, end): (usize, u64),
    stalls: Vec<(usize, u64, u64)>,
    mut choose: impl FnMut(&[usize], &[SimJob]) -> Option<usize>,
) -> Timeline {
    let mut run = Timeline {
        cores,
        end,
        jobs: releases(tasks, end),
        stalls,
        partitioned: tasks.iter().all(|t| t.core.is_some()),
    };
    let mut progress = vec![0u64; run.jobs.len()];
    let mut last: Vec<Option<usize>> = vec![None; cores];
    for t in 0..end {
        let mut busy = vec![false; run.jobs.len()];
        for (c, on) in last.iter_mut().enumerate() {
            if !run.stalled(c, t) {
                continue;
            }
            *on = on.filter(|&i| run.jobs[i].completion.is_none() && !busy[i]);
            if let Some(i) = *on {
                busy[i] = true;
                run.jobs[i].ran.push((c, t));
            }
        }
        let free: Vec<usize> = (0..cores).filter(|&c| !run.stalled(c, t)).collect();
        for c in free {
            let eligible: Vec<usize> = (0..run.jobs.len())
                .filter(|&i| {
                    let j = &run.jobs[i];
                    let on = tasks[j.task].core.is_none_or(|k| k % cores == c);
                    j.release <= t && j.completion.is_none() && !busy[i] && on
                })
                .collect();
            last[c] = choose(&eligible, &run.jobs);
            if let Some(i) = last[c] {
                busy[i] = true;
                run.jobs[i].ran.push((c, t));
                progress[i] += 1;
                if progress[i] == tasks[run.jobs[i].task].demand {
                    run.jobs[i].completion = Some(t + 1);
                }
            }
        }
    }
    run
}

/// Every job each task releases before `end`.
fn releases(tasks: &[TaskSpec], end: u64) -> Vec<SimJob> {
    let mut jobs = Vec::new();
    for (task, spec) in tasks.iter().enumerate() {
        for (job, release) in (0..end).step_by(spec.period as usize).enumerate() {
            jobs.push(SimJob {
                task,
                job: job as u64,
                release,
                deadline: release + spec.deadline,
                ran: Vec::new(),
                completion: None,
            });
        }
    }
    jobs
}

/// Half the time the earliest deadline, a sixth nothing, else any eligible job; in a
/// partitioned run (`strict`), where a core behind by its own choices hides what the host
/// took from the work ahead of a job, fourteen times in sixteen the earliest deadline, once
/// nothing, once any eligible job.
fn choose(rng: &mut Rng, eligible: &[usize], jobs: &[SimJob], strict: bool) -> Option<usize> {
    let r = rng.next();
    let (idle, any) = match (strict, r % if strict { 16 } else { 6 }) {
        (_, 0) => (true, false),
        (true, 1) | (false, 1 | 2) => (false, true),
        _ => (false, false),
    };
    match () {
        _ if eligible.is_empty() || idle => None,
        _ if any => Some(eligible[(r >> 8) as usize % eligible.len()]),
        _ => eligible.iter().copied().min_by_key(|&i| jobs[i].deadline),
    }
}
