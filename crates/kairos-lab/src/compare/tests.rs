use super::*;
use kairos_model::Instant;

fn trace(events: Vec<TraceEvent>) -> Trace {
    Trace {
        levels: Vec::new(),
        optional_deadlines: Vec::new(),
        server_names: Vec::new(),
        task_names: vec!["a".into()],
        cores: 2,
        end: Instant::from_nanos(100),
        events,
    }
}

fn job(job: u64, release: u64, cores: &[(u64, u64, usize)], done: Option<u64>) -> Vec<TraceEvent> {
    let at = Instant::from_nanos;
    let mut events = vec![TraceEvent::Release {
        task: 0,
        job,
        at: at(release),
        deadline: at(release + 50),
    }];
    for &(start, end, core) in cores {
        events.push(TraceEvent::Segment {
            core,
            task: 0,
            job,
            start: at(start),
            end: at(end),
        });
    }
    if let Some(c) = done {
        events.push(TraceEvent::Completion {
            task: 0,
            job,
            at: at(c),
        });
    }
    events
}

#[test]
fn counts_core_sequences_completions_and_response_differences() {
    let real = trace(
        [
            job(0, 0, &[(0, 5, 0), (6, 9, 0)], Some(9)),
            job(1, 10, &[(12, 15, 1), (16, 20, 0)], Some(20)),
            job(2, 20, &[(21, 22, 1)], None),
        ]
        .concat(),
    );
    let sim = trace(
        [
            job(0, 0, &[(0, 8, 0)], Some(8)),
            job(1, 10, &[(10, 14, 1), (14, 18, 1)], Some(18)),
            job(2, 20, &[(20, 25, 1)], Some(25)),
        ]
        .concat(),
    );
    let c = compare(&real, &sim);
    assert_eq!(c.jobs, 3);
    // Job 0: a preemption on the same core is no difference; job 1 migrated for real only.
    assert_eq!(c.same_core_sequence, 2);
    assert_eq!(
        (
            c.completed_both,
            c.completed_simulated_only,
            c.completed_measured_only
        ),
        (2, 1, 0)
    );
    assert_eq!(c.response_time_diff_ns.count, 2);
    assert_eq!(
        (c.response_time_diff_ns.min, c.response_time_diff_ns.max),
        (1, 2)
    );
}
