//! Table quality: preemptions and migrations, counted exactly (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems",
//! section 4.2: "reasonable number of preemptions ... major performance impact on the memory size
//! required to store the tables"; notes `mixed-criticality.md`, "Offline", step 5).
//!
//! Per job of a table, its intervals are taken in time order. Between two consecutive ones:
//! - a **preemption** when the next starts after the previous ended (a gap: the job stopped before
//!   completing and resumes later);
//! - a **migration** when they are on different cores, including instantaneous ones (no gap).
//!
//! Both are counts of pairs of intervals, so they are never negative (the reference tool's
//! count can be). Works on any [`TableSet`], including federated ones and files read back.

use crate::engine::Piece;
use crate::gmh::BuiltLevel;
use crate::output::Labels;
use kairos_model::{TableSet, TaskRef};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};

/// Counts over a set of jobs.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct Counts {
    pub jobs: u64,
    pub intervals: u64,
    pub preemptions: u64,
    pub migrations: u64,
}

impl Counts {
    fn add(&mut self, other: &Counts) {
        self.jobs += other.jobs;
        self.intervals += other.intervals;
        self.preemptions += other.preemptions;
        self.migrations += other.migrations;
    }

    /// Counts one more job.
    fn add_job(&mut self, job: &JobQuality) {
        self.add(&Counts {
            jobs: 1,
            intervals: job.intervals,
            preemptions: job.preemptions,
            migrations: job.migrations,
        });
    }

    /// Preemptions per job (0 without jobs).
    pub fn preemptions_per_job(&self) -> f64 {
        if self.jobs == 0 {
            0.0
        } else {
            self.preemptions as f64 / self.jobs as f64
        }
    }
}

/// The counts of one level's table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct LevelQuality {
    pub level: String,
    #[serde(flatten)]
    pub counts: Counts,
}

/// The counts of one job in one table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct JobQuality {
    /// Index of the level (into `TableSet::levels`).
    pub level: usize,
    /// Index of the task's name in [`Quality::tasks`].
    pub task: u32,
    pub job: u64,
    pub intervals: u64,
    pub preemptions: u64,
    pub migrations: u64,
}

/// Quality of a whole table set.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Quality {
    /// Task names (`dag/task`) that [`JobQuality::task`] indexes.
    pub tasks: Vec<String>,
    pub levels: Vec<LevelQuality>,
    pub total: Counts,
    pub jobs: Vec<JobQuality>,
}

/// Counts preemptions and migrations of every job of every table.
pub fn measure(tables: &TableSet) -> Quality {
    let mut levels = Vec::with_capacity(tables.tables.len());
    let mut jobs = Vec::new();
    let mut total = Counts::default();
    // Task names as small integers, so sorting compares numbers rather than strings.
    let mut ids: HashMap<&str, u32, BuildHasherDefault<Fnv>> = HashMap::default();
    for (level, table) in tables.tables.iter().enumerate() {
        let iv = &table.intervals;
        let mut order: Vec<(u32, u64, u64, u32)> = iv
            .iter()
            .enumerate()
            .map(|(i, x)| {
                let next = ids.len() as u32;
                let id = *ids.entry(&*x.task).or_insert(next);
                (id, x.job, x.start, i as u32)
            })
            .collect();
        order.sort_unstable();
        let mut counts = Counts::default();
        for group in order.chunk_by(|a, b| a.0 == b.0 && a.1 == b.1) {
            let mut job = JobQuality {
                level,
                task: group[0].0,
                job: group[0].1,
                intervals: group.len() as u64,
                preemptions: 0,
                migrations: 0,
            };
            for pair in group.windows(2) {
                let (prev, next) = (&iv[pair[0].3 as usize], &iv[pair[1].3 as usize]);
                job.preemptions += u64::from(next.start > prev.end);
                job.migrations += u64::from(next.core != prev.core);
            }
            counts.add_job(&job);
            jobs.push(job);
        }
        total.add(&counts);
        levels.push(LevelQuality {
            level: table.level.clone(),
            counts,
        });
    }
    let mut tasks = vec![String::new(); ids.len()];
    for (name, id) in ids {
        tasks[id as usize] = name.to_string();
    }
    Quality {
        tasks,
        levels,
        total,
        jobs,
    }
}

/// [`measure`] of the tables [`crate::output::table_set`] makes from `levels`, computed on the
/// built pieces, which are already grouped by job and in time order, so nothing is hashed or
/// sorted. `None` when two tasks share a qualified name (the loader refuses that, a hand-built
/// system may not): only the string-keyed [`measure`] merges their jobs the same way.
pub(crate) fn of_built(
    labels: &Labels,
    built: &[BuiltLevel],
    level_jobs: &[Vec<(usize, u64)>],
    level_names: &[String],
) -> Option<Quality> {
    let mut distinct = HashSet::with_capacity(labels.names.len());
    if !labels.names.iter().all(|name| distinct.insert(&**name)) {
        return None;
    }
    // Name numbers in order of first appearance in the tables, as `measure` assigns them.
    let mut id_of: Vec<Option<u32>> = vec![None; labels.names.len()];
    let mut task_of: Vec<usize> = Vec::new();
    let mut levels = Vec::with_capacity(built.len());
    // Every job has a piece, so this is the exact count.
    let mut jobs = Vec::with_capacity(built.iter().map(|b| b.jobs.count()).sum());
    let mut total = Counts::default();
    for (level, (table, job_tasks)) in built.iter().zip(level_jobs).enumerate() {
        for &piece in &table.table {
            let task = job_tasks[table.pieces[piece as usize].job as usize].0;
            if id_of[task].is_none() {
                id_of[task] = Some(task_of.len() as u32);
                task_of.push(task);
            }
        }
        let mut counts = Counts::default();
        // `measure` lists jobs by (name number, DAG job).
        for (id, &task) in task_of.iter().enumerate() {
            for (k, pieces) in job_pieces(table, labels.tasks[task]) {
                let job = job_quality(level, id as u32, k, pieces);
                counts.add_job(&job);
                jobs.push(job);
            }
        }
        total.add(&counts);
        levels.push(LevelQuality {
            level: level_names[level].clone(),
            counts,
        });
    }
    Some(Quality {
        tasks: task_of
            .iter()
            .map(|&t| labels.names[t].to_string())
            .collect(),
        levels,
        total,
        jobs,
    })
}

/// The DAG jobs of `task` that have pieces in `table`, with them, by DAG job.
fn job_pieces(table: &BuiltLevel, task: TaskRef) -> impl Iterator<Item = (u64, &[Piece])> + '_ {
    (table.jobs.of_task(task))
        .map(|(k, id)| (k, table.of_job(id)))
        .filter(|(_, pieces)| !pieces.is_empty())
}

/// The counts of one job from its pieces in time order (slots: the same comparisons as in ns).
fn job_quality(level: usize, task: u32, job: u64, pieces: &[Piece]) -> JobQuality {
    let mut quality = JobQuality {
        level,
        task,
        job,
        intervals: pieces.len() as u64,
        preemptions: 0,
        migrations: 0,
    };
    for pair in pieces.windows(2) {
        quality.preemptions += u64::from(pair[1].start > pair[0].end);
        quality.migrations += u64::from(pair[1].core != pair[0].core);
    }
    quality
}

/// FNV-1a: task names are short and not adversarial, and the default SipHash dominated the
/// count on large tables.
#[derive(Default)]
struct Fnv(u64);

impl Hasher for Fnv {
    fn write(&mut self, bytes: &[u8]) {
        let mut hash = if self.0 == 0 {
            0xcbf2_9ce4_8422_2325
        } else {
            self.0
        };
        for &b in bytes {
            hash = (hash ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3);
        }
        self.0 = hash;
    }

    fn finish(&self) -> u64 {
        self.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_model::{Interval, LevelTable};

    fn iv(task: &str, job: u64, core: usize, start: u64, end: u64) -> Interval {
        Interval {
            task: task.into(),
            job,
            core,
            start,
            end,
        }
    }

    #[test]
    fn gaps_are_preemptions_and_core_changes_are_migrations() {
        let tables = TableSet {
            unit: "ns".into(),
            hyperperiod: 100,
            cores: 2,
            levels: vec!["LO".into()],
            policy: None,
            tables: vec![LevelTable {
                level: "LO".into(),
                intervals: vec![
                    iv("g/a", 0, 0, 10, 20),
                    iv("g/a", 0, 1, 0, 10), // instantaneous migration 1 -> 0 at 10
                    iv("g/a", 0, 0, 30, 40), // preemption, same core
                    iv("g/a", 0, 1, 50, 60), // preemption and migration
                    iv("g/b", 0, 1, 10, 20),
                    iv("g/a", 1, 0, 60, 70),
                ],
            }],
        };
        let q = measure(&tables);
        assert_eq!(
            q.total,
            Counts {
                jobs: 3,
                intervals: 6,
                preemptions: 2,
                migrations: 2
            }
        );
        let a0 = q
            .jobs
            .iter()
            .find(|j| q.tasks[j.task as usize] == "g/a" && j.job == 0)
            .unwrap();
        assert_eq!((a0.preemptions, a0.migrations, a0.intervals), (2, 2, 4));
        assert_eq!(q.levels[0].counts, q.total);
    }
}
