//! What the table run refuses or reads: overrun syntax, bad overruns and configurations,
//! tables it cannot execute, and the serialized metrics.

use super::*;

#[test]
fn overrun_syntax() {
    let parsed: Overrun = "g1/a@3".parse().unwrap();
    assert_eq!((parsed.task.as_str(), parsed.job), ("g1/a", 3));
    assert_eq!(parsed.demand, OverrunDemand::OwnLevel);
    let level: Overrun = "g1/a@0:HI".parse().unwrap();
    assert_eq!(level.demand, OverrunDemand::Level("HI".into()));
    let exact: Overrun = "g@x/a@12=1.5ms".parse().unwrap();
    assert_eq!((exact.task.as_str(), exact.job), ("g@x/a", 12));
    assert_eq!(
        exact.demand,
        OverrunDemand::Exactly(Duration::from_micros(1500))
    );
    for text in ["g1/a@0", "g1/a@0:HI", "g1/a@7=2ms"] {
        assert_eq!(text.parse::<Overrun>().unwrap().to_string(), text);
    }
    for bad in [
        "g1/a",
        "g1/a@",
        "g1/a@x",
        "g1/a@1:",
        "@1",
        "g1/a@1=fast",
        "g1/a@1+HI",
    ] {
        assert!(bad.parse::<Overrun>().is_err(), "{bad}");
    }
}

#[test]
fn bad_overruns_and_configurations_are_errors() {
    let (system, tables) = two_levels();
    let cases = [
        (traced(&["g/zz@0"]), "no task"),
        (traced(&["g/b@0:HI"]), "no WCET at level HI"),
        (traced(&["g/a@0:TOP"]), "no level"),
        (traced(&["g/a@0=0ns"]), "positive"),
        (
            TableSimConfig {
                overrun_probability: 1.5,
                ..TableSimConfig::default()
            },
            "probability",
        ),
    ];
    for (config, expected) in cases {
        let error = simulate_tables(&system, &tables, &config).unwrap_err();
        assert!(error.to_string().contains(expected), "{error}");
    }
    let by_index = traced(&["g/a@0:1"]);
    assert_eq!(run(&system, &tables, &by_index).metrics.max_mode, "HI");
}

type Edit = dyn Fn(&mut TableSet);

#[test]
fn tables_the_simulator_cannot_execute_are_refused() {
    let (system, tables) = two_levels();
    let edit = |change: &dyn Fn(&mut TableSet)| {
        let mut bad = tables.clone();
        change(&mut bad);
        simulate_tables(&system, &bad, &TableSimConfig::default())
            .unwrap_err()
            .to_string()
    };
    let cases: [(&Edit, &str); 7] = [
        (&|t| t.tables[0].intervals[1].core = 1, "overlap on core 1"),
        (
            &|t| t.tables[0].intervals[0].task = "g/q".into(),
            "unknown task",
        ),
        (
            &|t| {
                let b = t.tables[0].intervals[2].clone();
                t.tables[1].intervals.push(b)
            },
            "does not run at this level",
        ),
        (&|t| t.tables[0].intervals[4].job = 2, "no such job"),
        (&|t| t.tables[0].intervals[0].end = 11, "inside [0, 10)"),
        (&|t| t.hyperperiod = 20, "hyper-period"),
        (&|t| t.tables.swap(0, 1), "level order"),
    ];
    for (change, expected) in cases {
        let error = edit(change);
        assert!(error.contains(expected), "{expected}: {error}");
    }
    let same_task_twice = edit(&|t| {
        t.tables[1].intervals[1] = Interval {
            task: "g/a".into(),
            job: 0,
            core: 1,
            start: 3,
            end: 5,
        }
    });
    assert!(
        same_task_twice.contains("at the same time"),
        "{same_task_twice}"
    );
}

#[test]
fn metrics_serialize_with_level_keys_in_order() {
    let (system, tables) = two_levels();
    let outcome = run(&system, &tables, &traced(&["g/a@0"]));
    let json = serde_json::to_value(&outcome.metrics).unwrap();
    assert_eq!(
        json["deadline_misses_by_level"],
        serde_json::json!({"LO": 0, "HI": 0})
    );
    assert_eq!(json["jobs_discarded_by_level"]["LO"], 3);
    assert_eq!(json["mode_changes"][0]["triggers"][0], "g/a#0");
    let text = serde_json::to_string(&outcome.metrics.time_in_mode_ns).unwrap();
    assert_eq!(text, r#"{"LO":2,"HI":8}"#);
}

/// g's jobs are released every 10 ns: in a run of 25 ns, jobs 0, 1 and 2 (at 0, 10, 20); job 3
/// (at 30) would never be released, so naming it is an error, not a silent no-op. Without a
/// duration the run is one hyper-period (10 ns): job 0 only.
#[test]
fn an_overrun_after_the_end_of_the_run_is_an_error() {
    let (system, tables) = two_levels();
    let within = |duration: Option<u64>, overrun: &str| TableSimConfig {
        duration: duration.map(Duration::from_nanos),
        ..traced(&[overrun])
    };
    assert!(simulate_tables(&system, &tables, &within(Some(25), "g/a@2")).is_ok());
    let error = simulate_tables(&system, &tables, &within(Some(25), "g/a@3"))
        .unwrap_err()
        .to_string();
    for part in [
        "--overrun g/a@3",
        "released at 30ns",
        "end of the run at 25ns",
        "0 to 2",
    ] {
        assert!(error.contains(part), "{part:?} not in {error}");
    }
    assert!(simulate_tables(&system, &tables, &within(None, "g/a@0")).is_ok());
    let error = simulate_tables(&system, &tables, &within(None, "g/a@1"))
        .unwrap_err()
        .to_string();
    assert!(
        error.contains("at 10ns: the run has only 1 job(s)"),
        "{error}"
    );
    let huge = within(Some(25), &format!("g/a@{}", u64::MAX));
    let error = simulate_tables(&system, &tables, &huge)
        .unwrap_err()
        .to_string();
    assert!(error.contains("beyond 64-bit nanoseconds"), "{error}");
}
