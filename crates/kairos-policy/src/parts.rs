//! The work of each part of an imprecise job (the extended imprecise computation model of Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP),
//! split from the one draw both engines make per job, so that a policy that runs parts and one
//! that does not (G-RMWP and its baseline G-RM) execute the same mandatory and wind-up work.

use kairos_model::{Duration, ImpreciseParts, Part};

/// What each part of one job executes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PartWork {
    pub mandatory: Duration,
    pub optional: Duration,
    pub windup: Duration,
}

impl PartWork {
    /// Splits `drawn`, the job's drawn real-time work (at most `m + w`), between the mandatory
    /// and wind-up parts in proportion `m : w`, each part at least 1 ns so that every job has
    /// both (a draw below 2 ns is raised to 2 ns). At the WCET the split is exact: `m` and `w`.
    /// The optional part asks for its full `o`: it is the work a job would do given the time
    /// (anytime computation), and the policy decides how much of it runs.
    pub fn split(drawn: Duration, parts: &ImpreciseParts) -> PartWork {
        let demand = parts.demand().as_nanos();
        let total = drawn.as_nanos().clamp(2.min(demand), demand);
        let share = u128::from(total) * u128::from(parts.mandatory.as_nanos()) / u128::from(demand);
        // `share <= total` because m <= m + w, so it fits u64.
        let mandatory = (share as u64).clamp(1, total.saturating_sub(1).max(1));
        PartWork {
            mandatory: Duration::from_nanos(mandatory),
            optional: parts.optional,
            windup: Duration::from_nanos(total - mandatory),
        }
    }

    pub fn of(&self, part: Part) -> Duration {
        match part {
            Part::Mandatory => self.mandatory,
            Part::Optional => self.optional,
            Part::Windup => self.windup,
        }
    }
}

/// The budget a policy sees for `part` of a task with these parts: its WCET (for the optional
/// part, what it asks for).
pub fn part_budget(parts: &ImpreciseParts, part: Part) -> Duration {
    match part {
        Part::Mandatory => parts.mandatory,
        Part::Optional => parts.optional,
        Part::Windup => parts.windup,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parts(m: u64, o: u64, w: u64) -> ImpreciseParts {
        ImpreciseParts {
            mandatory: Duration::from_nanos(m),
            optional: Duration::from_nanos(o),
            windup: Duration::from_nanos(w),
            optional_deadline: None,
        }
    }

    #[test]
    fn a_split_keeps_the_drawn_total_and_both_parts() {
        for (m, w) in [(1, 1), (3, 7), (1_000_000, 1), (1, 1_000_000), (2_000, 500)] {
            let p = parts(m, 5, w);
            assert_eq!(
                PartWork::split(Duration::from_nanos(m + w), &p)
                    .mandatory
                    .as_nanos(),
                m
            );
            for drawn in 0..=(m + w).min(3_000) {
                let s = PartWork::split(Duration::from_nanos(drawn), &p);
                let total = s.mandatory.as_nanos() + s.windup.as_nanos();
                assert_eq!(total, drawn.max(2), "m {m} w {w} drawn {drawn}");
                assert!(s.mandatory.as_nanos() >= 1 && s.windup.as_nanos() >= 1);
                assert!(s.mandatory.as_nanos() <= m && s.windup.as_nanos() <= w);
                assert_eq!(s.optional.as_nanos(), 5);
            }
        }
    }
}
