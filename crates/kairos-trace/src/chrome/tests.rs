//! The Chrome trace-event export, checked field by field.

use super::*;

fn sample_trace() -> Trace {
    let at = Instant::from_nanos;
    Trace {
        levels: Vec::new(),
        optional_deadlines: Vec::new(),
        server_names: Vec::new(),
        task_names: vec!["ctrl".into(), "log".into()],
        cores: 2,
        end: at(4_000_000),
        events: vec![
            TraceEvent::Release {
                task: 0,
                job: 0,
                at: at(0),
                deadline: at(2_000_000),
            },
            TraceEvent::Segment {
                core: 0,
                task: 0,
                job: 0,
                start: at(1_500_000),
                end: at(2_000_000),
            },
            TraceEvent::Segment {
                core: 1,
                task: 1,
                job: 3,
                start: at(1),
                end: at(1_000_002),
            },
            TraceEvent::Completion {
                task: 1,
                job: 3,
                at: at(1_000_002),
            },
            TraceEvent::DeadlineMiss {
                task: 0,
                job: 0,
                at: at(2_000_000),
            },
            TraceEvent::Abort {
                task: 1,
                job: 4,
                at: at(3_000_000),
            },
        ],
    }
}

fn events_with_phase(json: &Value, phase: &str) -> Vec<Value> {
    let events = json["traceEvents"]
        .as_array()
        .expect("traceEvents is an array");
    events
        .iter()
        .filter(|e| e["ph"] == phase)
        .cloned()
        .collect()
}

#[test]
fn segments_become_complete_events_in_microseconds() {
    let json = to_chrome_json(&sample_trace());
    assert_eq!(json["displayTimeUnit"], "ns");
    let complete = events_with_phase(&json, "X");
    assert_eq!(complete.len(), 2);
    let first = &complete[0];
    assert_eq!(
        (first["name"].as_str(), first["cat"].as_str()),
        (Some("ctrl"), Some("job"))
    );
    assert_eq!(
        (first["pid"].as_u64(), first["tid"].as_u64()),
        (Some(1), Some(1))
    );
    assert_eq!(
        (first["ts"].as_f64(), first["dur"].as_f64()),
        (Some(1500.0), Some(500.0))
    );
    assert_eq!(
        first["args"],
        serde_json::json!({ "task": "ctrl", "job": 0 })
    );
    let second = &complete[1];
    assert_eq!(second["tid"].as_u64(), Some(2));
    assert_eq!(
        (second["ts"].as_f64(), second["dur"].as_f64()),
        (Some(0.001), Some(1000.001))
    );
}

#[test]
fn every_core_gets_a_named_ordered_track() {
    let json = to_chrome_json(&sample_trace());
    let metadata = events_with_phase(&json, "M");
    let find = |name: &str, tid: u64| {
        metadata
            .iter()
            .find(|e| e["name"] == name && e["tid"].as_u64() == Some(tid))
            .cloned()
    };
    assert_eq!(
        find("process_name", 0).expect("process name")["args"]["name"],
        "kairos"
    );
    assert_eq!(
        find("thread_name", 0).expect("events track")["args"]["name"],
        "events"
    );
    for core in 0..2u64 {
        let tid = core + 1;
        let name = find("thread_name", tid).expect("core track name");
        assert_eq!(name["args"]["name"], format!("core {core}"));
        let order = find("thread_sort_index", tid).expect("core track order");
        assert_eq!(order["args"]["sort_index"].as_u64(), Some(tid));
    }
    assert_eq!(metadata.len(), 1 + 2 * 3);
}

#[test]
fn a_task_with_an_optional_deadline_gets_one_instant_per_job() {
    let mut trace = sample_trace();
    trace.optional_deadlines = vec![Some(kairos_model::Duration::from_micros(1_200)), None];
    let json = to_chrome_json(&trace);
    let instants = events_with_phase(&json, "i");
    let od: Vec<&Value> = (instants.iter())
        .filter(|e| e["name"] == "optional deadline ctrl#0")
        .collect();
    assert_eq!(od.len(), 1, "{instants:?}");
    assert_eq!(
        (od[0]["cat"].as_str(), od[0]["ts"].as_f64()),
        (Some("part"), Some(1200.0))
    );
}

#[test]
fn misses_aborts_and_releases_are_instants_on_the_events_track() {
    let json = to_chrome_json(&sample_trace());
    let instants = events_with_phase(&json, "i");
    let names: Vec<&str> = instants.iter().filter_map(|e| e["name"].as_str()).collect();
    assert_eq!(
        names,
        ["release ctrl#0", "deadline miss: ctrl#0", "abort: log#4"]
    );
    assert!(instants.iter().all(|e| e["tid"].as_u64() == Some(0)));
    assert_eq!(
        (instants[1]["s"].as_str(), instants[1]["ts"].as_f64()),
        (Some("p"), Some(2000.0))
    );
    assert_eq!(
        (instants[2]["s"].as_str(), instants[2]["ts"].as_f64()),
        (Some("p"), Some(3000.0))
    );
}

#[test]
fn streamed_output_parses_to_the_same_json() {
    let trace = sample_trace();
    let mut bytes = Vec::new();
    write_chrome_trace(&trace, &mut bytes).expect("writing to a Vec succeeds");
    let parsed: Value = serde_json::from_slice(&bytes).expect("output is valid JSON");
    assert_eq!(parsed, to_chrome_json(&trace));
}

#[test]
fn empty_trace_has_only_process_and_events_track_metadata() {
    let json = to_chrome_json(&Trace::default());
    assert_eq!(json["traceEvents"].as_array().map(Vec::len), Some(3));
}

#[test]
fn mode_changes_are_global_instants_named_after_the_levels() {
    let mut trace = sample_trace();
    trace.levels = vec!["LO".into(), "HI".into()];
    trace.events = vec![
        TraceEvent::ModeChange {
            at: Instant::from_nanos(1_000),
            from: 0,
            to: 1,
        },
        TraceEvent::Discard {
            task: 1,
            job: 2,
            at: Instant::from_nanos(1_000),
        },
    ];
    let instants = events_with_phase(&to_chrome_json(&trace), "i");
    let fields: Vec<(&str, &str, f64)> = instants
        .iter()
        .filter_map(|e| Some((e["name"].as_str()?, e["s"].as_str()?, e["ts"].as_f64()?)))
        .collect();
    assert_eq!(
        fields,
        [("mode LO -> HI", "g", 1.0), ("discard: log#2", "p", 1.0)]
    );
}

#[test]
fn a_vcpus_time_on_a_core_is_a_slice_around_its_jobs_with_replenishments_as_instants() {
    let at = Instant::from_nanos;
    let mut trace = sample_trace();
    trace.server_names = vec!["vm1/v0".into()];
    trace.events = vec![
        TraceEvent::Replenish {
            server: 0,
            at: at(0),
        },
        TraceEvent::Segment {
            core: 1,
            task: 0,
            job: 0,
            start: at(1_000),
            end: at(2_000),
        },
        TraceEvent::ServerSegment {
            core: 1,
            server: 0,
            start: at(1_000),
            end: at(3_000),
        },
        TraceEvent::ServerExhausted {
            server: 0,
            at: at(3_000),
        },
    ];
    let json = to_chrome_json(&trace);
    let events = json["traceEvents"].as_array().unwrap();
    let named = |name: &str| events.iter().find(|e| e["name"] == name).cloned().unwrap();
    let vcpu = named("vm1/v0");
    assert_eq!(
        (vcpu["ph"].as_str(), vcpu["cat"].as_str()),
        (Some("X"), Some("server"))
    );
    assert_eq!(
        (vcpu["ts"].as_f64(), vcpu["dur"].as_f64()),
        (Some(1.0), Some(2.0))
    );
    let job = named("ctrl");
    assert_eq!(
        job["tid"], vcpu["tid"],
        "the job nests in its VCPU's slice on core 1"
    );
    assert_eq!(named("replenish vm1/v0")["cat"], "server");
    assert_eq!(named("budget exhausted: vm1/v0")["ts"].as_f64(), Some(3.0));
}
