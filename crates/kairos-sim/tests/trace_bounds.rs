//! A recorded trace is bounded: kept to what a Gantt chart of a window draws, it draws that
//! window exactly as the whole trace does (imprecise jobs' parts included), and past its cap
//! the run stops instead of growing.

use kairos_model::{check_source, Duration, Format, Instant, Workload};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_sim::{simulate, SimConfig, SimError, SimOutcome, TraceBounds};
use kairos_trace::gantt::{render_svg, GanttOptions, RowsBy};
use proptest::prelude::*;
use proptest::test_runner::{Config, RngAlgorithm, TestRng, TestRunner};

/// Three tasks on one core, 95 % busy under EDF: preemptions, and jobs whose release and
/// deadline straddle any window's edges.
fn workload() -> Workload {
    let source = "cores = 1\n\
        [[tasks]]\nname = \"a\"\nwcet = \"2ms\"\nperiod = \"5ms\"\n\
        [[tasks]]\nname = \"b\"\nwcet = \"3ms\"\nperiod = \"7ms\"\n\
        [[tasks]]\nname = \"c\"\nwcet = \"1.5ms\"\nperiod = \"11ms\"\n";
    check_source(source, Format::Toml).workload.unwrap()
}

fn run(bounds: TraceBounds) -> Result<SimOutcome, SimError> {
    run_on(&workload(), PolicyKind::GlobalEdf, bounds)
}

fn run_on(w: &Workload, kind: PolicyKind, bounds: TraceBounds) -> Result<SimOutcome, SimError> {
    let config = SimConfig {
        duration: Duration::from_millis(200),
        record_trace: true,
        trace_bounds: bounds,
        ..SimConfig::default()
    };
    let mut policy = kind.build(PriorityOrder::Auto);
    simulate(w, policy.as_mut(), &config)
}

fn ms(n: u64) -> Instant {
    Instant::ZERO + Duration::from_millis(n)
}

#[test]
fn a_trace_kept_to_a_window_draws_that_window_as_the_whole_trace_does() {
    let whole = run(TraceBounds::default()).unwrap().trace.unwrap();
    for window in [(ms(0), ms(30)), (ms(33), ms(61)), (ms(150), ms(200))] {
        let kept = run(TraceBounds {
            window: Some(window),
            ..TraceBounds::default()
        })
        .unwrap()
        .trace
        .unwrap();
        assert!(
            kept.events.len() * 3 < whole.events.len(),
            "{window:?} keeps too much"
        );
        for rows in [RowsBy::Cores, RowsBy::Tasks] {
            let view = GanttOptions {
                window: Some(window),
                rows,
                title: None,
            };
            assert_eq!(
                render_svg(&kept, &view),
                render_svg(&whole, &view),
                "{window:?} by {rows:?}"
            );
        }
    }
}

#[test]
fn a_run_whose_trace_passes_its_cap_stops() {
    let whole = run(TraceBounds::default()).unwrap().trace.unwrap();
    let max = whole.events.len() as u64 / 2;
    let capped = run(TraceBounds {
        max_events: max,
        ..TraceBounds::default()
    });
    // It stops inside the run, naming the cap it passed.
    let Err(SimError::TraceTooLarge { max: said, at }) = capped else {
        panic!("the run went on past its cap");
    };
    assert_eq!(said, max);
    assert!(at > Instant::ZERO && at < ms(200), "{at}");
    let exactly = run(TraceBounds {
        max_events: whole.events.len() as u64,
        ..TraceBounds::default()
    });
    assert_eq!(exactly.unwrap().trace.unwrap().events, whole.events);
}

/// One to three imprecise tasks beside a plain one, on one or two cores: periods in ms, each
/// imprecise task's mandatory, optional and wind-up parts in tenths of its period, its optional
/// deadline the latest there is (its wind-up before its deadline).
fn imprecise(cores: usize, tasks: &[(u64, [u64; 3])], plain: (u64, u64)) -> Workload {
    let mut source = format!(
        "cores = {cores}\n[[tasks]]\nname = \"plain\"\nwcet = \"{}ms\"\nperiod = \"{}ms\"\n",
        plain.0, plain.1
    );
    for (i, (period, [m, o, w])) in tasks.iter().enumerate() {
        let tenth = |n: u64| format!("{}us", period * 100 * n);
        source += &format!(
            "[[tasks]]\nname = \"t{i}\"\nperiod = \"{period}ms\"\nmandatory = \"{}\"\n\
             optional = \"{}\"\nwindup = \"{}\"\noptional_deadline = \"{}\"\n",
            tenth(*m),
            tenth(*o),
            tenth(*w),
            tenth(10 - w)
        );
    }
    let checked = check_source(&source, Format::Toml);
    checked
        .workload
        .unwrap_or_else(|| panic!("{source}: {:?}", checked.diagnostics))
}

/// Under G-RMWP and P-RMWP, a window anywhere in the run draws its imprecise jobs' parts (the
/// part of each bar, the cut marks, the legend) as the whole trace does: part ends before the
/// window are held for their jobs and only the last one before a job's first bar is kept.
#[test]
fn a_window_of_imprecise_jobs_draws_their_parts_as_the_whole_trace_does() {
    let config = Config {
        cases: 64,
        failure_persistence: None,
        ..Config::default()
    };
    let rng = TestRng::deterministic_rng(RngAlgorithm::ChaCha);
    let mut runner = TestRunner::new_with_rng(config, rng);
    let task = (3u64..=20, (1u64..=3, 1u64..=6, 1u64..=2));
    let shape = (
        1usize..=2,
        prop::collection::vec(task, 1..=3),
        (1u64..=2, 4u64..=9),
    );
    let window = (0u64..190, 1u64..=40);
    let kinds = prop_oneof![
        Just(PolicyKind::GlobalRmwp),
        Just(PolicyKind::PartitionedRmwp)
    ];
    let parted = std::cell::Cell::new(0);
    runner
        .run(&(shape, window, kinds), |((cores, tasks, plain), (from, len), kind)| {
            let tasks: Vec<(u64, [u64; 3])> =
                tasks.into_iter().map(|(p, (m, o, w))| (p, [m, o, w])).collect();
            let w = imprecise(cores, &tasks, plain);
            let window = (ms(from), ms((from + len).min(200)));
            let Ok(whole) = run_on(&w, kind, TraceBounds::default()) else {
                return Ok(()); // a set P-RMWP's partitioning refuses
            };
            let whole = whole.trace.unwrap();
            let kept = run_on(&w, kind, TraceBounds { window: Some(window), ..TraceBounds::default() })
                .unwrap()
                .trace
                .unwrap();
            let before = |e: &kairos_trace::TraceEvent| {
                matches!(e, kairos_trace::TraceEvent::PartEnd { at, .. } if *at < window.0)
            };
            if whole.events.iter().any(before) {
                parted.set(parted.get() + 1);
            }
            for rows in [RowsBy::Cores, RowsBy::Tasks] {
                let view = GanttOptions { window: Some(window), rows, title: None };
                prop_assert_eq!(render_svg(&kept, &view), render_svg(&whole, &view), "{:?}", window);
            }
            Ok(())
        })
        .unwrap();
    assert!(
        parted.get() >= 32,
        "cases with part ends before their window: {}",
        parted.get()
    );
}
