//! A recorded trace is bounded: kept to what a Gantt chart of a window draws, it draws that
//! window exactly as the whole trace does, and past its cap the run stops instead of growing.

use kairos_model::{check_source, Duration, Format, Instant, Workload};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_sim::{simulate, SimConfig, SimError, SimOutcome, TraceBounds};
use kairos_trace::gantt::{render_svg, GanttOptions, RowsBy};

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
    let config = SimConfig {
        duration: Duration::from_millis(200),
        record_trace: true,
        trace_bounds: bounds,
        ..SimConfig::default()
    };
    let mut policy = PolicyKind::GlobalEdf.build(PriorityOrder::Auto);
    simulate(&workload(), policy.as_mut(), &config)
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
