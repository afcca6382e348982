use super::*;
use crate::managed::{BestEffortWork, Execution, JobSize};
use crate::time::Duration;

const GOOD: &str = r#"
name = "m"
cores = 3
[manager]
execution = "free"
period = "10ms"
margin = "1ms"
[rt]
name = "control"
core = 0
period = "10ms"
work = "proc"
length = "3ms"
[[allocations]]
core = 2
be = "4ms"
[[best_effort]]
name = "load"
core = 1
stress = "fork, mmap"
[[best_effort]]
name = "build"
core = 2
command = ["make", "-j1"]
"#;

fn errors(source: &str) -> Vec<String> {
    check_managed_source(source, Format::Toml)
        .diagnostics
        .iter()
        .filter(|d| d.is_error())
        .map(|d| format!("{}: {}", d.path.clone().unwrap_or_default(), d.message))
        .collect()
}

fn assert_errors(source: &str, expected: &[&str]) {
    let found = errors(source);
    for e in expected {
        assert!(found.iter().any(|f| f.starts_with(e)), "{e} in {found:?}");
    }
}

#[test]
fn a_good_system_decodes_with_every_core_allocated() {
    let checked = check_managed_source(GOOD, Format::Toml);
    let system = checked.system.expect("valid");
    let kind = crate::input::detect(std::path::Path::new("f.toml"), GOOD);
    assert_eq!(kind, Ok(crate::input::InputKind::Managed));
    assert_eq!(system.manager.execution, Execution::Free);
    assert_eq!(system.manager.hold, DEFAULT_HOLD);
    assert_eq!(system.manager.probe, DEFAULT_PROBE);
    assert_eq!(system.rt.deadline, Duration::from_millis(10));
    assert_eq!(system.rt.size, JobSize::Length(Duration::from_millis(3)));
    assert_eq!(system.target(), Duration::from_millis(9));
    let ms = Duration::from_millis;
    let shares: Vec<(Duration, Duration)> =
        system.allocations.iter().map(|a| (a.rt, a.be)).collect();
    assert_eq!(
        shares,
        [(ms(10), ms(0)), (ms(0), ms(10)), (ms(0), ms(4))],
        "the RT core defaults to all RT, the others to all BE"
    );
    assert_eq!(system.allocations[2].idle(ms(10)), Some(ms(6)));
    assert_eq!(
        system.best_effort[0].work,
        BestEffortWork::Stress(vec!["fork".into(), "mmap".into()])
    );
}

#[test]
fn shape_errors_are_all_reported_with_their_paths() {
    let bad = GOOD
        .replace("execution = \"free\"", "execution = \"loose\"")
        .replace("length = \"3ms\"", "length = \"3ms\"\ncalls = 4")
        .replace(
            "command = [\"make\", \"-j1\"]",
            "command = []\nstress = \"cpu\"",
        );
    assert_errors(
        &bad,
        &[
            "manager.execution: unknown execution \"loose\"",
            "rt: a job needs exactly one of `length` or `calls`",
            "best_effort[1]: a best-effort program needs exactly one",
        ],
    );
}

#[test]
fn the_partition_rules_follow_the_model() {
    let bad = GOOD
        .replace("period = \"10ms\"\nmargin", "period = \"5ms\"\nmargin")
        .replace("be = \"4ms\"", "be = \"6ms\"\nrt = \"7ms\"")
        .replace("core = 1\nstress", "core = 7\nstress")
        .replace("\"fork, mmap\"", "\"fork, disk\"")
        .replace("work = \"proc\"", "work = \"gpu\"\nwcet = \"12ms\"");
    assert_errors(
        &bad,
        &[
            "manager.period: free execution enforces over the RT period",
            "rt.wcet: W = 12ms exceeds the deadline 10ms",
            "rt.work: unknown job work \"gpu\"",
            "allocations[0].rt: core 2 runs no RT task",
            "allocations[0]: S_RT + S_BE = 6ms exceeds the period P = 5ms",
            "best_effort[0].core: core 7 does not exist",
            "best_effort[0].stress: unknown stressor \"disk\"",
        ],
    );
}

#[test]
fn constrained_execution_needs_whole_periods_and_a_reservation() {
    let constrained = GOOD.replace("\"free\"", "\"constrained\"");
    assert_errors(
        &constrained,
        &["rt: constrained execution needs the RT reservation"],
    );
    let with_rt = constrained.replace(
        "[[allocations]]\ncore = 2",
        "[[allocations]]\ncore = 0\nrt = \"4ms\"\nbe = \"2ms\"\n[[allocations]]\ncore = 2",
    );
    let system = check_managed_source(&with_rt, Format::Toml)
        .system
        .expect("valid");
    assert_eq!(system.allocations[0].rt, Duration::from_millis(4));
    assert_eq!(system.periods_per_deadline(), 1);
    let halves = with_rt.replace("period = \"10ms\"\nmargin", "period = \"3ms\"\nmargin");
    assert_errors(
        &halves,
        &["manager.period: P = 3ms does not divide the RT period A = 10ms"],
    );
    let zero_be = with_rt.replace("be = \"4ms\"", "be = \"0ms\"");
    assert_errors(
        &zero_be,
        &["best_effort[1].core: core 2 gives best-effort work no time"],
    );
    let tiny = with_rt.replace("be = \"4ms\"", "be = \"500us\"");
    assert_errors(
        &tiny,
        &["allocations[1].be: S_BE = 500us is below the kernel's smallest CFS quota"],
    );
}
