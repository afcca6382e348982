//! Every test by its CLI name: what `kairos analyze --tests`, batch mode and experiments use.

use crate::overheads::Placement;
use crate::partition::{self, Admission, Heuristic};
use crate::rmwp;
use crate::uniprocessor::{bounds, edf_qpa, fp_rta};
use crate::{SporadicTask, Verdict};
use std::sync::OnceLock;

/// How a test is run.
#[derive(Clone, Copy)]
enum Runner {
    /// A global (or any-m) test: tasks and core count.
    Global(fn(&[SporadicTask], usize) -> Verdict),
    /// A global fixed-priority test: rate-monotonic order, or the priority order given.
    GlobalFixedPriority(fn(&[SporadicTask], usize, &[usize]) -> Verdict),
    /// A uniprocessor test: analyses the set on one core.
    Uniprocessor(fn(&[SporadicTask]) -> Verdict),
    Partitioned(Heuristic, bool, Admission),
    /// A semi-fixed-priority test of imprecise tasks ([`crate::rmwp`]); never in `default`.
    Rmwp(RmwpScope),
}

#[derive(Clone, Copy)]
enum RmwpScope {
    Uniprocessor,
    Global,
    Partitioned(Heuristic),
}

/// One schedulability test.
pub struct Test {
    pub name: String,
    pub summary: String,
    runner: Runner,
}

impl Test {
    /// The verdict for `tasks` on `cores` cores (fixed-priority tests in rate-monotonic order).
    pub fn run(&self, tasks: &[SporadicTask], cores: usize) -> Verdict {
        self.run_with_priorities(tasks, cores, None)
    }

    /// Like [`Test::run`]; global fixed-priority tests use `priority_order` (task indices, most
    /// important first) when given.
    pub fn run_with_priorities(
        &self,
        tasks: &[SporadicTask],
        cores: usize,
        priority_order: Option<&[usize]>,
    ) -> Verdict {
        match self.runner {
            Runner::Global(test) => test(tasks, cores),
            Runner::GlobalFixedPriority(test) => match priority_order {
                Some(order) => test(tasks, cores, order),
                None => test(tasks, cores, &crate::global_fp::rate_monotonic_order(tasks)),
            },
            Runner::Uniprocessor(test) => test(tasks),
            Runner::Partitioned(heuristic, decreasing, admission) => {
                partition::partition(tasks, cores, heuristic, decreasing, admission)
            }
            Runner::Rmwp(RmwpScope::Uniprocessor) => rmwp::uniprocessor::is_schedulable(tasks),
            Runner::Rmwp(RmwpScope::Global) => rmwp::global::is_schedulable(tasks, cores),
            Runner::Rmwp(RmwpScope::Partitioned(heuristic)) => {
                rmwp::partitioned::is_schedulable(tasks, cores, heuristic)
            }
        }
    }

    /// How the test's policy places jobs on `cores` cores, which decides the overheads charged
    /// ([`crate::overheads`]).
    pub fn placement(&self, cores: usize) -> Placement {
        match self.runner {
            _ if cores == 1 => Placement::Uniprocessor,
            Runner::Global(_) | Runner::GlobalFixedPriority(_) => Placement::Global,
            Runner::Rmwp(RmwpScope::Global) => Placement::Global,
            _ => Placement::Partitioned,
        }
    }

    /// Whether the test is meant for `cores` cores (uniprocessor tests only for one).
    pub fn applies_to(&self, cores: usize) -> bool {
        !self.is_uniprocessor() || cores == 1
    }

    fn is_uniprocessor(&self) -> bool {
        matches!(
            self.runner,
            Runner::Uniprocessor(_) | Runner::Rmwp(RmwpScope::Uniprocessor)
        )
    }
}

fn global(name: &str, summary: &str, test: fn(&[SporadicTask], usize) -> Verdict) -> Test {
    Test {
        name: name.into(),
        summary: summary.into(),
        runner: Runner::Global(test),
    }
}

fn fixed_priority(
    name: &str,
    summary: &str,
    test: fn(&[SporadicTask], usize, &[usize]) -> Verdict,
) -> Test {
    Test {
        name: name.into(),
        summary: summary.into(),
        runner: Runner::GlobalFixedPriority(test),
    }
}

fn uniprocessor(name: &str, summary: &str, test: fn(&[SporadicTask]) -> Verdict) -> Test {
    Test {
        name: name.into(),
        summary: summary.into(),
        runner: Runner::Uniprocessor(test),
    }
}

fn build() -> Vec<Test> {
    let mut tests = vec![
        uniprocessor(
            "uni-fp-rta",
            "uniprocessor FP response-time analysis, RM order (exact)",
            fp_rta::rate_monotonic,
        ),
        uniprocessor(
            "uni-fp-rta-dm",
            "uniprocessor FP response-time analysis, DM order (exact)",
            fp_rta::deadline_monotonic,
        ),
        uniprocessor(
            "uni-edf-qpa",
            "uniprocessor EDF processor demand, QPA (exact)",
            edf_qpa::is_schedulable,
        ),
        uniprocessor(
            "uni-rm-ll",
            "Liu & Layland utilization bound for RM (sufficient)",
            bounds::liu_layland,
        ),
        uniprocessor(
            "uni-rm-hyperbolic",
            "hyperbolic bound for RM (sufficient)",
            bounds::hyperbolic,
        ),
    ];
    tests.extend(global_tests());
    tests.extend(rmwp_tests());
    for admission in Admission::ALL {
        for heuristic in Heuristic::ALL {
            for decreasing in [false, true] {
                tests.push(Test {
                    name: partition::test_name(heuristic, decreasing, admission),
                    summary: format!(
                        "partitioning: {heuristic:?}{} with {admission:?} admission",
                        if decreasing { " decreasing" } else { "" }
                    ),
                    runner: Runner::Partitioned(heuristic, decreasing, admission),
                });
            }
        }
    }
    tests
}

/// RMWP, G-RMWP and P-RMWP (first, next and best fit): verdicts and optional deadlines.
fn rmwp_tests() -> Vec<Test> {
    let test = |name: &str, summary: &str, scope| Test {
        name: name.into(),
        summary: summary.into(),
        runner: Runner::Rmwp(scope),
    };
    let mut tests = vec![
        test(
            "rmwp",
            "uniprocessor RMWP: RM response-time analysis with C = m + w, optional deadlines",
            RmwpScope::Uniprocessor,
        ),
        test(
            "g-rmwp",
            "G-RMWP: Bertogna-Cirinei G-RM analysis with C = m + w, optional deadlines",
            RmwpScope::Global,
        ),
    ];
    for heuristic in [
        Heuristic::FirstFit,
        Heuristic::NextFit,
        Heuristic::BestFit,
        Heuristic::CyclicNextFit,
    ] {
        tests.push(test(
            &format!("p-rmwp-{}", heuristic.short_name()),
            &format!("P-RMWP: {heuristic:?} with RM response-time admission, optional deadlines"),
            RmwpScope::Partitioned(heuristic),
        ));
    }
    tests
}

/// G-EDF, G-FP and G-EDZL tests.
fn global_tests() -> Vec<Test> {
    use crate::global_edf::{bak, bcl, bcl_iterative, gfb, rta};
    use crate::global_fp::bertogna_cirinei::{self, Variant};
    use crate::global_fp::guan;
    vec![
        global(
            "gfb",
            "G-EDF density bound, Goossens-Funk-Baruah 2003",
            gfb::is_schedulable,
        ),
        global("bak", "G-EDF, Baker 2003/2005", bak::is_schedulable),
        global(
            "bcl",
            "G-EDF, Bertogna-Cirinei-Lipari 2005",
            bcl::is_schedulable,
        ),
        global(
            "bcl-iterative",
            "G-EDF, Bertogna-Cirinei-Lipari 2009, iterative slack",
            bcl_iterative::is_schedulable,
        ),
        global(
            "gedf-rta",
            "G-EDF response-time analysis, Bertogna-Cirinei 2007",
            rta::is_schedulable,
        ),
        fixed_priority(
            "gfp-bc",
            "G-FP response-time analysis, Bertogna-Cirinei 2007",
            |t, m, order| bertogna_cirinei::is_schedulable_with_order(t, m, order, Variant::Paper),
        ),
        fixed_priority(
            "gfp-bc-schedcat",
            "G-FP, Bertogna-Cirinei as SchedCAT implements it (no R - C + 1 cap)",
            |t, m, order| {
                bertogna_cirinei::is_schedulable_with_order(t, m, order, Variant::SchedCat)
            },
        ),
        fixed_priority(
            "gfp-guan",
            "G-FP response-time analysis, Guan-Stigge-Yi-Yu 2009",
            guan::is_schedulable_with_order,
        ),
        global(
            "gedzl",
            "G-EDZL: zero-laxity theorem (see gedzl.rs) or any G-EDF test",
            crate::gedzl::is_schedulable,
        ),
    ]
}

/// Every test, uniprocessor first, then global, then partitioning.
pub fn all() -> &'static [Test] {
    static TESTS: OnceLock<Vec<Test>> = OnceLock::new();
    TESTS.get_or_init(build)
}

pub fn find(name: &str) -> Option<&'static Test> {
    all().iter().find(|t| t.name == name)
}

/// The tests `default` selects: every global test, the exact uniprocessor tests, and
/// first-fit decreasing partitioning with exact admission.
pub const DEFAULT_PARTITIONING: [&str; 2] = ["partitioned-ffd-edf", "partitioned-ffd-fp"];

/// The RMWP tests the `default` list runs on a workload with imprecise tasks: the uniprocessor
/// test on one core, G-RMWP and P-RMWP with the partitioning kairos runs P-RMWP on (cyclic next
/// fit) on more.
pub const DEFAULT_RMWP: [&str; 3] = ["rmwp", "g-rmwp", "p-rmwp-cnf"];

/// The tests a selection runs on a workload of `cores` cores, and the ones it leaves out with
/// the reason.
pub struct Selection {
    pub run: Vec<&'static Test>,
    pub skipped: Vec<(&'static Test, &'static str)>,
}

/// Why a selection leaves a test out on a number of cores (`None`: it runs).
type SkipRule = fn(&Test, usize) -> Option<&'static str>;

const ONE_CORE: &str =
    "on one core the exact uniprocessor tests decide (name a test in --tests to run it anyway)";
const MANY_CORES: &str =
    "uniprocessor tests (name one in --tests to analyse the set as if on one core)";

/// A test list as written (`default`, `all`, or names), parsed once and applied to each
/// workload's core count with [`TestList::for_cores`].
pub struct TestList {
    candidates: Vec<&'static Test>,
    skip: SkipRule,
    /// The list is `default`: a workload with imprecise tasks adds the RMWP tests.
    default: bool,
}

impl TestList {
    /// Parses `default` (on one core the exact uniprocessor tests; on more, every global test
    /// and first-fit-decreasing partitioning), `all` (every test that applies: uniprocessor
    /// tests on one core only), or comma-separated names, which run as named. A list that names
    /// no test is an error.
    pub fn parse(list: &str) -> Result<TestList, String> {
        let (candidates, skip): (Vec<&'static Test>, SkipRule) = match list.trim() {
            "default" => (
                all().iter().filter(|t| in_default(t)).collect(),
                default_skip,
            ),
            "all" => (all().iter().collect(), all_skip),
            _ => (named(list)?, |_, _| None),
        };
        let default = list.trim() == "default";
        Ok(TestList {
            candidates,
            skip,
            default,
        })
    }

    /// [`TestList::for_cores`] for a workload of `cores` cores; with imprecise tasks the
    /// `default` list adds the RMWP tests ([`DEFAULT_RMWP`]), whose verdicts give the optional
    /// deadlines G-RMWP and P-RMWP run with.
    pub fn for_workload(&self, cores: usize, imprecise: bool) -> Selection {
        let mut selection = self.for_cores(cores);
        if self.default && imprecise {
            let rmwp = all()
                .iter()
                .filter(|t| DEFAULT_RMWP.contains(&t.name.as_str()));
            for test in rmwp {
                match default_skip(test, cores) {
                    None => selection.run.push(test),
                    Some(reason) => selection.skipped.push((test, reason)),
                }
            }
        }
        selection
    }

    /// The tests that run on `cores` cores, and the ones left out with the reason.
    pub fn for_cores(&self, cores: usize) -> Selection {
        let (mut run, mut skipped) = (Vec::new(), Vec::new());
        for &test in &self.candidates {
            match (self.skip)(test, cores) {
                None => run.push(test),
                Some(reason) => skipped.push((test, reason)),
            }
        }
        Selection { run, skipped }
    }
}

/// [`TestList::parse`] then [`TestList::for_cores`].
pub fn select(list: &str, cores: usize) -> Result<Selection, String> {
    Ok(TestList::parse(list)?.for_cores(cores))
}

fn in_default(test: &Test) -> bool {
    match test.runner {
        Runner::Global(_) | Runner::GlobalFixedPriority(_) => true,
        Runner::Uniprocessor(_) => test.name == "uni-fp-rta" || test.name == "uni-edf-qpa",
        Runner::Partitioned(..) => DEFAULT_PARTITIONING.contains(&test.name.as_str()),
        Runner::Rmwp(_) => false,
    }
}

fn default_skip(test: &Test, cores: usize) -> Option<&'static str> {
    match (test.is_uniprocessor(), cores) {
        (true, 1) => None,
        (true, _) => Some(MANY_CORES),
        (_, 1) => Some(ONE_CORE),
        _ => None,
    }
}

fn all_skip(test: &Test, cores: usize) -> Option<&'static str> {
    (!test.applies_to(cores)).then_some(MANY_CORES)
}

fn named(list: &str) -> Result<Vec<&'static Test>, String> {
    let tests = list
        .split(',')
        .map(str::trim)
        .filter(|name| !name.is_empty())
        .map(|name| {
            find(name).ok_or_else(|| {
                format!("unknown test `{name}`; `kairos analyze --list` shows them all")
            })
        })
        .collect::<Result<Vec<_>, String>>()?;
    if tests.is_empty() {
        return Err(format!(
            "--tests {list:?} names no test: give `default`, `all` or test names (`kairos analyze --list`)"
        ));
    }
    Ok(tests)
}
