//! Per-unit bounds that make every mode change safe (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section
//! 4.2, first constraint and figures 1-2; notes `mixed-criticality.md`, "Offline", step 4).
//!
//! Requirement, for a job `j` present at levels `l` and `l+1`: `A_l(j,t) >= A_{l+1}(j,t)` for every
//! `t <= f_l(j)`, where `A_x(j,t)` is what table `x` gave `j` before `t` and `f_l(j)` the end of
//! its last level-`l` interval. On slots, with `B_x(s)` the job's slots at `>= s` in table `x`
//! and `Delta = C_{l+1} - C_l`, `A_x(s) = C_x - B_x(s)`, so the requirement at a boundary `s`
//! reads `B_{l+1}(s) - B_l(s) >= Delta`. It binds only at slots holding a level-`l` unit.
//!
//! - **Backwards** (level `l` built with table `l+1` fixed): the `b`-th unit placed counting from
//!   the end needs `B_{l+1}(s) >= Delta + b`, i.e. `s <= sigma_{Delta+b}` (the slot of the job's
//!   `(Delta+b)`-th last unit in table `l+1`). In the engine's mirrored time this is a per-unit
//!   *release*: unit `b` runs at or after the mirrored slot of adjacent unit `Delta + b`.
//! - **Forwards** (level 0 built with table 1 fixed): while unfinished, `A_0(s+1) >= A_1(s+1)`,
//!   i.e. unit `k` of `C_0` runs no later than table 1's `k`-th unit: a per-unit *deadline*.
//!
//! Both are stored as runs of consecutive units (one per piece of the adjacent table), so memory
//! follows intervals, and the bound of unit `k` is `slot + (k - first)` inside a run.
//!
//! Laxity with per-unit deadlines `D_k` (a unit at slot `<= bound_k`): units `done+1..=k` need
//! `k - done` slots in `[t, bound_k]`, so `laxity = min_k (bound_k + 1 - t - (k - done))`; inside
//! a run `bound_k - k` is constant, hence a suffix minimum per run. Running keeps every term,
//! waiting lowers all by one, so zero laxity means "run now". With per-unit releases the plain
//! laxity (deadline - t - remaining) is exact once the static check
//! [`UnitBounds::infeasible_release`] passes, and a blocked job always has laxity >= 1.

/// `len` consecutive units of a job, the first being unit `first` (1-based), bounded by slots
/// `slot, slot + 1, ...` (engine time).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct UnitRun {
    first: u64,
    slot: u64,
    len: u64,
    /// Minimum of `slot - first` over this run and every later one.
    suffix: i64,
}

/// The runs of one job, ascending. Most jobs have a single piece in the adjacent table, hence a
/// single run: that one is kept inline, sparing an allocation per job.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Runs {
    One(UnitRun),
    Many(Vec<UnitRun>),
}

impl Runs {
    /// Appends `run`; allocates only from the second run on.
    fn push(&mut self, run: UnitRun) {
        *self = match std::mem::replace(self, Runs::Many(Vec::new())) {
            Runs::Many(runs) if runs.is_empty() => Runs::One(run),
            Runs::One(first) => Runs::Many(vec![first, run]),
            Runs::Many(mut runs) => {
                runs.push(run);
                Runs::Many(runs)
            }
        };
    }
}

impl std::ops::DerefMut for Runs {
    fn deref_mut(&mut self) -> &mut [UnitRun] {
        match self {
            Runs::One(run) => std::slice::from_mut(run),
            Runs::Many(runs) => runs,
        }
    }
}

impl std::ops::Deref for Runs {
    type Target = [UnitRun];

    fn deref(&self) -> &[UnitRun] {
        match self {
            Runs::One(run) => std::slice::from_ref(run),
            Runs::Many(runs) => runs,
        }
    }
}

/// The per-unit bounds of one job in the table being built.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) enum UnitBounds {
    /// Highest level, or a job absent from the adjacent table.
    #[default]
    Free,
    /// Unit `k` runs at a slot `>= bound_k`.
    Release(Runs),
    /// Unit `k` runs at a slot `<= bound_k`.
    Deadline(Runs),
}

impl UnitBounds {
    /// Unit `k` no earlier than the adjacent job's unit `offset + k`; `pieces` are the adjacent
    /// job's `[start, end)` in engine time, ascending.
    pub fn release(pieces: impl Iterator<Item = (u64, u64)>, offset: u64, wcet: u64) -> UnitBounds {
        UnitBounds::Release(runs(pieces, offset, wcet))
    }

    /// Unit `k` no later than the adjacent job's unit `k`.
    pub fn deadline(pieces: impl Iterator<Item = (u64, u64)>, wcet: u64) -> UnitBounds {
        UnitBounds::Deadline(runs(pieces, 0, wcet))
    }

    /// The earliest slot unit `unit` may take (0 when unbounded).
    #[inline]
    pub fn earliest_slot(&self, unit: u64) -> u64 {
        match self {
            UnitBounds::Release(runs) => run_of(runs, unit).map_or(0, |r| r.slot + unit - r.first),
            _ => 0,
        }
    }

    /// How many units from `unit` on may run back to back without the bounds changing.
    #[inline]
    pub fn stable_units(&self, unit: u64) -> u64 {
        match self {
            UnitBounds::Free => u64::MAX,
            UnitBounds::Release(runs) | UnitBounds::Deadline(runs) => {
                run_of(runs, unit).map_or(u64::MAX, |r| r.first + r.len - unit)
            }
        }
    }

    /// Laxity at slot `t` after `done` units with `remaining` left, and whether a per-unit bound
    /// (rather than `deadline`) is the tightest.
    #[inline]
    pub fn laxity(&self, done: u64, remaining: u64, t: u64, deadline: u64) -> (i64, bool) {
        let plain = deadline as i64 - t as i64 - remaining as i64;
        let UnitBounds::Deadline(runs) = self else {
            return (plain, false);
        };
        let index = runs.partition_point(|r| r.first + r.len <= done + 1);
        match runs.get(index) {
            Some(run) => {
                let unit = run.suffix + 1 + done as i64 - t as i64;
                (plain.min(unit), unit < plain)
            }
            None => (plain, false),
        }
    }

    /// With per-unit releases, the first unit `k` whose release leaves fewer than the
    /// `wcet - k + 1` slots its remaining units need before `deadline`: `(k, release of k)`.
    pub fn infeasible_release(&self, wcet: u64, deadline: u64) -> Option<(u64, u64)> {
        let UnitBounds::Release(runs) = self else {
            return None;
        };
        runs.iter()
            .find(|r| r.slot + (wcet - r.first + 1) > deadline)
            .map(|r| (r.first, r.slot))
    }
}

/// The run holding unit `unit`, if any.
fn run_of(runs: &[UnitRun], unit: u64) -> Option<&UnitRun> {
    let index = runs.partition_point(|r| r.first + r.len <= unit);
    runs.get(index).filter(|r| r.first <= unit)
}

/// Units `1..=wcet` of this job against adjacent units `offset + 1..=offset + wcet`.
fn runs(pieces: impl Iterator<Item = (u64, u64)>, offset: u64, wcet: u64) -> Runs {
    let mut out = Runs::Many(Vec::new());
    let mut before = 0u64; // adjacent units in earlier pieces
    for (start, end) in pieces {
        let len = end - start;
        // This piece holds adjacent units before+1..=before+len, i.e. our units
        // before+1-offset..=before+len-offset, clipped to 1..=wcet.
        let lo = (before + 1).max(offset + 1);
        let hi = (before + len).min(offset + wcet);
        if lo <= hi {
            out.push(UnitRun {
                first: lo - offset,
                slot: start + (lo - before - 1),
                len: hi - lo + 1,
                suffix: 0,
            });
        }
        before += len;
    }
    let mut min = i64::MAX;
    for run in out.iter_mut().rev() {
        min = min.min(run.slot as i64 - run.first as i64);
        run.suffix = min;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn release_runs_skip_the_offset() {
        // Adjacent job: slots 2,3 then 7,8,9 (5 units); Delta = 2, this job has 3 units.
        let bounds = UnitBounds::release([(2, 4), (7, 10)].into_iter(), 2, 3);
        // Unit 1 <-> adjacent unit 3 (slot 7), unit 2 <-> 8, unit 3 <-> 9.
        assert_eq!(bounds.earliest_slot(1), 7);
        assert_eq!(bounds.earliest_slot(3), 9);
        assert_eq!(bounds.stable_units(2), 2);
        assert_eq!(bounds.infeasible_release(3, 10), None);
        assert_eq!(bounds.infeasible_release(3, 9), Some((1, 7)));
    }

    #[test]
    fn deadline_laxity_is_the_tightest_unit() {
        // Table 1 gives units at slots 1 and 5..8; this job needs 3 units, deadline 20.
        let bounds = UnitBounds::deadline([(1, 2), (5, 9)].into_iter(), 3);
        // At t = 0, nothing done: unit 1 must be at slot <= 1 -> laxity 1.
        assert_eq!(bounds.laxity(0, 3, 0, 20), (1, true));
        // After one unit at t = 1: units 2,3 at <= 5,6 -> laxity min(5+1-1-1, 6+1-1-2) = 4.
        assert_eq!(bounds.laxity(1, 2, 1, 20), (4, true));
        // A tight deadline wins.
        assert_eq!(bounds.laxity(1, 2, 1, 4), (1, false));
    }

    #[test]
    fn free_jobs_have_plain_laxity() {
        assert_eq!(UnitBounds::Free.laxity(2, 3, 4, 10), (3, false));
        assert_eq!(UnitBounds::Free.earliest_slot(1), 0);
    }
}
