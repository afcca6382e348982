//! Partitioned scheduling: bin-packing heuristics ([`fit`]) that bind each task to one core,
//! admitting a task on a core only if a uniprocessor test accepts the core's tasks with it
//! ([`admission`]). The verdict reports the mapping (core of each task) or the first task that
//! fit nowhere; a mapping found with an exact admission test is schedulable under partitioned
//! EDF (P-EDF) or partitioned fixed priorities with deadline-monotonic order on each core (P-FP).
//!
//! CLI test names, parsed by [`parse_test_name`]: `partitioned-<h>[d]-<edf|fp>` with `<h>` one
//! of `ff` (first fit), `nf` (next fit), `bf` (best fit), `wf` (worst fit), a `d` suffix for
//! the decreasing-utilization variant, and `edf` / `fp` for exact admission (EDF processor
//! demand with QPA / FP response-time analysis with DM). Examples: `partitioned-ffd-edf`,
//! `partitioned-wf-fp`, `partitioned-bfd-fp`. Appending `-util` (EDF: total density <= 1) or
//! `-ll` (FP: Liu & Layland bound) selects a utilization-bound admission instead:
//! `partitioned-ffd-edf-util`, `partitioned-nf-fp-ll`.

pub mod admission;
pub mod fit;
mod fp_bins;

pub use admission::Admission;
pub use fit::{partition, partition_with};

/// The bin-packing heuristic (see [`fit`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Heuristic {
    FirstFit,
    NextFit,
    BestFit,
    WorstFit,
    /// Next fit that evens the number of tasks per core, as section 6.1 of Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP uses it for
    /// P-RMWP and P-RM: each task tries the cores cyclically from the one after the previous
    /// task's core. Not in [`Heuristic::ALL`] (the classic four).
    CyclicNextFit,
}

impl Heuristic {
    pub const ALL: [Heuristic; 4] = [
        Heuristic::FirstFit,
        Heuristic::NextFit,
        Heuristic::BestFit,
        Heuristic::WorstFit,
    ];

    /// The short name used in test names: `ff`, `nf`, `bf`, `wf`.
    pub fn short_name(self) -> &'static str {
        match self {
            Heuristic::FirstFit => "ff",
            Heuristic::NextFit => "nf",
            Heuristic::BestFit => "bf",
            Heuristic::WorstFit => "wf",
            Heuristic::CyclicNextFit => "cnf",
        }
    }
}

impl Admission {
    /// The suffix used in test names: `edf`, `fp`, `edf-util`, `fp-ll`.
    pub fn short_name(self) -> &'static str {
        match self {
            Admission::EdfExact => "edf",
            Admission::FpExact => "fp",
            Admission::EdfUtilization => "edf-util",
            Admission::FpLiuLayland => "fp-ll",
        }
    }

    pub const ALL: [Admission; 4] = [
        Admission::EdfExact,
        Admission::FpExact,
        Admission::EdfUtilization,
        Admission::FpLiuLayland,
    ];
}

/// The CLI name of a partitioning test, e.g. `partitioned-ffd-edf`.
pub fn test_name(heuristic: Heuristic, decreasing: bool, admission: Admission) -> String {
    let d = if decreasing { "d" } else { "" };
    format!(
        "partitioned-{}{d}-{}",
        heuristic.short_name(),
        admission.short_name()
    )
}

/// The 16 names with exact admission (`partitioned-ff-edf`, `partitioned-ffd-edf`, ...).
pub fn exact_test_names() -> Vec<String> {
    let mut names = Vec::new();
    for admission in [Admission::EdfExact, Admission::FpExact] {
        for heuristic in Heuristic::ALL {
            for decreasing in [false, true] {
                names.push(test_name(heuristic, decreasing, admission));
            }
        }
    }
    names
}

/// Parses `partitioned-<ff|nf|bf|wf>[d]-<edf|fp|edf-util|fp-ll>`; `None` for anything else.
pub fn parse_test_name(name: &str) -> Option<(Heuristic, bool, Admission)> {
    let rest = name.strip_prefix("partitioned-")?;
    let (packing, admission) = rest.split_once('-')?;
    let admission = Admission::ALL
        .into_iter()
        .find(|a| a.short_name() == admission)?;
    let (short, decreasing) = match packing.strip_suffix('d') {
        Some(short) => (short, true),
        None => (packing, false),
    };
    let heuristic = Heuristic::ALL
        .into_iter()
        .find(|h| h.short_name() == short)?;
    Some((heuristic, decreasing, admission))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_round_trip() {
        for h in Heuristic::ALL {
            for d in [false, true] {
                for a in Admission::ALL {
                    assert_eq!(parse_test_name(&test_name(h, d, a)), Some((h, d, a)));
                }
            }
        }
        assert_eq!(exact_test_names().len(), 16);
        assert_eq!(
            parse_test_name("partitioned-ffd-edf"),
            Some((Heuristic::FirstFit, true, Admission::EdfExact))
        );
        assert_eq!(
            parse_test_name("partitioned-wf-fp"),
            Some((Heuristic::WorstFit, false, Admission::FpExact))
        );
        for bad in [
            "partitioned-ffdd-edf",
            "partitioned-xf-edf",
            "partitioned-ff-rm",
            "ff-edf",
            "partitioned-ff",
        ] {
            assert_eq!(parse_test_name(bad), None, "{bad}");
        }
    }
}
