//! A tick-by-tick twin of G-RMWP and P-RMWP on integer task sets, written from the semantics
//! of Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP alone (no queue structures, no events): at every integer instant it applies part
//! ends, releases, optional deadlines and deadlines, then runs the `m` (or per core, the one)
//! most important ready parts for one tick. Its per-task figures must equal the engine's.

use super::sets::Imp;

#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Part {
    Mandatory,
    Optional,
    Windup,
}

struct Job {
    task: usize,
    number: u64,
    deadline: u64,
    od: u64,
    part: Part,
    left: u64,
    part_began: u64,
    optional_ran: u64,
    missed: bool,
}

/// What the twin counts per task, as the engine's metrics name them.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Figures {
    pub completed: u64,
    pub misses: u64,
    pub optional_executed: u64,
    pub optional_completed: u64,
    pub optional_cut: u64,
    pub optional_skipped: u64,
}

/// Runs `tasks` (optional deadlines `od`, cores `core` when partitioned) over `[0, end]`.
pub fn run(
    tasks: &[Imp],
    od: &[u64],
    cores: usize,
    core: Option<&[usize]>,
    end: u64,
) -> Vec<Figures> {
    let mut rank: Vec<usize> = (0..tasks.len()).collect();
    rank.sort_by_key(|&i| (tasks[i].t, i));
    let rank_of = |task: usize| rank.iter().position(|&r| r == task).unwrap();
    let mut figures = vec![Figures::default(); tasks.len()];
    let mut jobs: Vec<Job> = Vec::new();
    let mut running: Vec<usize> = Vec::new();
    for now in 0..=end {
        for i in running.drain(..) {
            let job = &mut jobs[i];
            job.left -= 1;
            if job.part == Part::Optional {
                job.optional_ran += 1;
            }
        }
        end_parts(&mut jobs, tasks, &mut figures, now);
        for (i, x) in tasks.iter().enumerate() {
            if now >= x.offset && (now - x.offset) % x.t == 0 {
                jobs.push(Job {
                    task: i,
                    number: (now - x.offset) / x.t,
                    deadline: now + x.t,
                    od: now + od[i],
                    part: Part::Mandatory,
                    left: x.m,
                    part_began: now,
                    optional_ran: 0,
                    missed: false,
                });
            }
        }
        for job in jobs
            .iter_mut()
            .filter(|j| j.part == Part::Optional && j.od <= now)
        {
            let f = &mut figures[job.task];
            f.optional_executed += job.optional_ran;
            if job.part_began == now && job.optional_ran == 0 {
                f.optional_skipped += 1;
            } else {
                f.optional_cut += 1;
            }
            job.part = Part::Windup;
            job.left = tasks[job.task].w;
            job.part_began = now;
        }
        for job in jobs.iter_mut().filter(|j| j.deadline == now && !j.missed) {
            job.missed = true;
            figures[job.task].misses += 1;
        }
        if now == end {
            break;
        }
        let ready = |j: &Job| match j.part {
            Part::Windup => j.od <= now,
            _ => true,
        };
        let key = |i: usize| {
            let j = &jobs[i];
            (j.part == Part::Optional, rank_of(j.task), j.number)
        };
        let mut candidates: Vec<usize> = (0..jobs.len()).filter(|&i| ready(&jobs[i])).collect();
        candidates.sort_by_key(|&i| key(i));
        match core {
            None => running = candidates.into_iter().take(cores).collect(),
            Some(core) => {
                for c in 0..cores {
                    running.extend(
                        candidates
                            .iter()
                            .copied()
                            .find(|&i| core[jobs[i].task] == c),
                    );
                }
            }
        }
    }
    figures
}

/// Part ends at `now`: the mandatory part drops to the optional one before the optional
/// deadline and skips it from then on (an empty optional part ends at once); a completed
/// optional part leaves a wind-up that waits for the optional deadline; a wind-up's end is the
/// job's completion.
fn end_parts(jobs: &mut Vec<Job>, tasks: &[Imp], figures: &mut [Figures], now: u64) {
    for job in jobs.iter_mut().filter(|j| j.left == 0) {
        let x = &tasks[job.task];
        let f = &mut figures[job.task];
        match job.part {
            Part::Mandatory if x.o > 0 && now < job.od => {
                (job.part, job.left) = (Part::Optional, x.o);
            }
            Part::Mandatory if x.o > 0 => {
                f.optional_skipped += 1;
                (job.part, job.left) = (Part::Windup, x.w);
            }
            Part::Mandatory => (job.part, job.left) = (Part::Windup, x.w),
            Part::Optional => {
                f.optional_completed += 1;
                f.optional_executed += job.optional_ran;
                (job.part, job.left) = (Part::Windup, x.w);
            }
            Part::Windup => f.completed += 1,
        }
        job.part_began = now;
    }
    // Wind-up parts that ended: the job is done.
    jobs.retain(|j| j.left > 0);
}
