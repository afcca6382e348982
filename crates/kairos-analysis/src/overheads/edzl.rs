//! Global EDZL with overheads, by its dominance over global EDF rather than by the zero-laxity
//! theorem.
//!
//! **Why not Theorem 1 on the inflated set** ([`crate::gedzl`]; M. Cirinei and T. P. Baker,
//! "EDZL scheduling analysis", ECRTS 2007; T. P. Baker, M. Cirinei and M. Bertogna, same title,
//! Real-Time Systems 40(3), 2008). Its proof counts zero-laxity jobs, and the laxity it speaks
//! of is the inflated job's, `d - t - (C' - e')`, where `e'` holds the overheads already charged
//! to the job. The policy sees `d - t - (C - e)`: a job promoted at zero laxity then pays a
//! switch its laxity did not hold, and misses by that much (`tests/overheads.rs` keeps such a
//! set). Laxity against `C'` instead would promote too early: a job's own switches count as
//! waiting, so it reaches zero after waiting only `D' - C' - (C' - C)`, less than the theorem's
//! `D' - C'`. Only the exact `e'` (every overhead attributed to the job so far, the release
//! interrupts' share included) would make the theorem apply, and neither the simulator nor the
//! dispatcher knows it.
//!
//! **What kairos argues instead** (Theorem 2 of [`crate::gedzl`]: EDZL schedules whatever G-EDF
//! schedules, S. Park et al., IEICE Trans. Inf. & Syst. E88-D(3), 2005, carried to the
//! overheads of B. B. Brandenburg's dissertation, UNC Chapel Hill 2011, chapter 3). Let a G-EDF
//! test accept the inflated set, so that G-EDF meets every deadline of every job set of the
//! tasks (any execution up to `C`) under any overheads up to the charges. Run EDZL on such a
//! job set. EDZL runs the jobs of zero laxity first and the others by deadline, as G-EDF does
//! with some tie breaking; so while every job of zero laxity is among the `m` jobs G-EDF would
//! choose, EDZL chooses the same jobs, and its schedule is a G-EDF schedule of the same jobs
//! with the same overheads. Take the first instant `t` at which a job `J` of laxity at most zero is not
//! among them (a waiting job G-EDF leaves waiting, or a running one it preempts). Give `J` its
//! whole WCET: nothing before `t` changes (`J` has not completed), and in that G-EDF schedule
//! `J`, not running at `t` with `C - e >= d - t` left, misses. The G-EDF verdict forbids it, so
//! no such `t` exists and EDZL makes G-EDF's choices throughout.
//!
//! **The one cost EDZL adds**: EDZL arms a wake-up for the first zero-laxity instant of the
//! jobs it leaves waiting, and every decision moves it. By the argument it never fires while its
//! job waits, but the dispatcher (which handles the policy's timers on one core) may wake for a
//! wake-up a decision just moved, and such a pass costs at most a release's. A decision follows
//! each release and each completion, so each job causes at most two: they are charged as two
//! more interrupts per period of each task, on every core (`Δrel` each, like releases).
//!
//! **Assumptions** beyond the accounting's: the policy sees each job's execution exactly. The
//! simulator does. kairos's dispatcher reads a running job's progress in steps of the workers'
//! unit of busy work, so a running job's laxity can look smaller than it is by up to one unit;
//! only a running job within one unit of zero laxity is affected (EDZL keeps it where G-EDF
//! might preempt it), which the argument does not cover.

use super::{inflate_among, Charges, Inflation, Overload, Placement};
use crate::{gedzl, SporadicTask, Verdict};
use kairos_model::Duration;

/// Interrupts per period of each task under EDZL: its release and the two wake-ups its
/// release's and its completion's decisions may leave behind.
const INTERRUPTS_PER_JOB: usize = 3;

/// The registered test this module gives overheads to.
pub const TEST: &str = "gedzl";

/// G-EDZL's overhead-aware verdict on `cores` cores: some G-EDF test accepts
/// [`inflate`]`(tasks)` (module doc).
pub fn verdict(tasks: &[SporadicTask], cores: usize, placement: Placement, c: &Charges) -> Verdict {
    match inflate(tasks, placement, c) {
        Ok(inflated) => gedzl::is_schedulable_by_edf_dominance(&inflated.tasks, cores),
        Err(overload) => overload.verdict(),
    }
}

/// `tasks` as [`super::inflate`] charges them for `placement`, each task's period counted
/// `INTERRUPTS_PER_JOB` times in the interrupt load.
pub fn inflate(
    tasks: &[SporadicTask],
    placement: Placement,
    c: &Charges,
) -> Result<Inflation, Overload> {
    let interrupts: Vec<Duration> = (tasks.iter())
        .flat_map(|t| [t.period; INTERRUPTS_PER_JOB])
        .collect();
    inflate_among(tasks, placement, c, &interrupts, &vec![0; tasks.len()])
}
