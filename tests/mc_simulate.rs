//! The `table` policy on generated systems (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", sections 5-6): for
//! systems that GMH-MC-DAG accepts, with 2 or 3 levels,
//! - a run without overruns, every job running its level-0 WCET, is table 0 interval by interval,
//!   with the tables' own preemption and migration counts;
//! - with random injected overruns (never above a task's WCET at its own level), no job of a task
//!   whose criticality is at least the mode at its deadline misses it: the safe transitions
//!   guarantee them, and the tasks below the mode were discarded before their deadlines.

mod common;

use kairos_gen::mcdag::{generate_mcdag, McDagParams};
use kairos_mc::{synthesize, SynthOptions, Synthesis};
use kairos_model::{Duration, McSystem};
use kairos_sim::table::{
    simulate_tables, table_matches_trace, Overrun, OverrunDemand, TableExecModel, TableSimConfig,
};
use kairos_trace::{Trace, TraceEvent};
use proptest::prelude::*;

/// A small accepted system and its tables, or `None` when the draw or the synthesis fails.
fn accepted(seed: u64, levels: usize, cores: usize, load: f64) -> Option<(McSystem, Synthesis)> {
    let params = McDagParams {
        dags: 1 + (seed % 2) as usize,
        tasks: 6 + (seed % 5) as usize,
        levels,
        utilization: load * cores as f64,
        cores,
        seed,
        ..McDagParams::default()
    };
    let system = generate_mcdag(&params).ok()?;
    let synthesis = synthesize(&system, &SynthOptions::default()).ok()?;
    Some((system, synthesis))
}

/// Walks the trace in event order, keeping the mode, and returns the misses of jobs whose task's
/// criticality is at least the mode at the deadline, as `task#job`.
fn misses_at_or_above_mode(system: &McSystem, trace: &Trace) -> Vec<String> {
    let criticality = |task: usize| {
        let t = system
            .find_task(&trace.task_names[task])
            .expect("trace names are dag/task");
        system.task(t).criticality()
    };
    let mut mode = 0;
    let mut misses = Vec::new();
    for event in &trace.events {
        match *event {
            TraceEvent::ModeChange { to, .. } => mode = to,
            TraceEvent::DeadlineMiss { task, job, .. } if criticality(task) >= mode => {
                misses.push(format!("{}#{job}", trace.task_names[task]));
            }
            _ => {}
        }
    }
    misses
}

/// Random overruns turned into `TASK@JOB:LEVEL` with LEVEL at most the task's own.
fn injections(system: &McSystem, draws: &[(usize, u64, usize)], jobs: u64) -> Vec<Overrun> {
    let tasks: Vec<_> = system.task_refs().collect();
    draws
        .iter()
        .map(|&(task, job, level)| {
            let t = tasks[task % tasks.len()];
            let per =
                system.hyperperiod().unwrap().as_nanos() / system.dags[t.dag].period.as_nanos();
            let level = level % (system.task(t).criticality() + 1);
            Overrun {
                task: system.qualified_name(t),
                job: job % (per * jobs),
                demand: OverrunDemand::Level(system.levels[level].clone()),
            }
        })
        .collect()
}

/// Only accepted systems count as cases (`prop_assume!`), and a run that had to reject more
/// draws than it ran cases fails: the properties are never checked on nothing. (About one draw
/// in four is rejected, some 20 per run; a limit of half the cases failed one run in about 45.)
fn config() -> ProptestConfig {
    ProptestConfig {
        cases: 64,
        max_global_rejects: 64,
        ..ProptestConfig::default()
    }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn without_overruns_the_run_is_table_zero(
        seed in any::<u64>(),
        levels in 2usize..=3,
        cores in 2usize..=4,
        load in 0.2f64..0.6,
        hyperperiods in 1u64..=2,
    ) {
        let drawn = accepted(seed, levels, cores, load);
        prop_assume!(drawn.is_some(), "the draw or the synthesis said no");
        let (system, synthesis) = drawn.expect("assumed");
        let tables = &synthesis.tables;
        let config = TableSimConfig {
            duration: Some(Duration::from_nanos(tables.hyperperiod * hyperperiods)),
            record_trace: true,
            ..TableSimConfig::default()
        };
        let outcome = simulate_tables(&system, tables, &config).expect("the run starts");
        let trace = outcome.trace.as_ref().expect("recorded");
        prop_assert_eq!(table_matches_trace(&system, tables, 0, trace), Ok(()));
        let m = &outcome.metrics;
        prop_assert!(m.mode_changes.is_empty());
        prop_assert_eq!(m.deadline_misses, 0);
        prop_assert_eq!(m.jobs_completed, m.jobs_released);
        prop_assert_eq!(m.precedence_violations, 0);
        let table_zero = &synthesis.quality.levels[0].counts;
        prop_assert_eq!(m.preemptions, table_zero.preemptions * hyperperiods);
        prop_assert_eq!(m.migrations, table_zero.migrations * hyperperiods);
    }

    #[test]
    fn overruns_never_make_a_job_at_or_above_the_mode_miss(
        seed in any::<u64>(),
        levels in 2usize..=3,
        cores in 2usize..=4,
        load in 0.2f64..0.6,
        hyperperiods in 1u64..=3,
        probability in 0.0f64..0.5,
        draws in prop::collection::vec((any::<usize>(), any::<u64>(), any::<usize>()), 0..6),
        sim_seed in any::<u64>(),
        uniform in any::<bool>(),
    ) {
        let drawn = accepted(seed, levels, cores, load);
        prop_assume!(drawn.is_some(), "the draw or the synthesis said no");
        let (system, synthesis) = drawn.expect("assumed");
        let tables = &synthesis.tables;
        let config = TableSimConfig {
            duration: Some(Duration::from_nanos(tables.hyperperiod * hyperperiods)),
            execution_times: if uniform {
                TableExecModel::Uniform { min_fraction: 0.0 }
            } else {
                TableExecModel::Wcet
            },
            overruns: injections(&system, &draws, hyperperiods),
            overrun_probability: probability,
            seed: sim_seed,
            record_trace: true,
            trace_bounds: Default::default(),
        };
        let outcome = simulate_tables(&system, tables, &config).expect("the run starts");
        let trace = outcome.trace.as_ref().expect("recorded");
        prop_assert_eq!(misses_at_or_above_mode(&system, trace), Vec::<String>::new());
        let m = &outcome.metrics;
        prop_assert_eq!(m.guaranteed_misses, 0);
        // Below the mode, jobs are discarded before their deadlines: nothing misses at all.
        prop_assert_eq!(m.deadline_misses, 0);
        prop_assert_eq!(m.budget_exhausted, 0);
        prop_assert_eq!(m.precedence_violations, 0);
        prop_assert_eq!(m.jobs_released, m.jobs_completed + m.jobs_discarded);
        let rises = m.mode_changes.iter().filter(|c| !c.triggers.is_empty()).count() as u64;
        prop_assert!(rises <= (levels as u64 - 1) * hyperperiods);
    }
}

/// The generator and the synthesizer accept enough systems for the properties to mean something.
#[test]
fn most_draws_give_accepted_systems() {
    let accepted = (0..20u64)
        .filter(|&seed| accepted(seed, 2 + (seed % 2) as usize, 3, 0.4).is_some())
        .count();
    assert!(accepted >= 10, "only {accepted} of 20 draws were accepted");
}

/// `kairos simulate` on a mixed-criticality file, end to end.
mod cli {
    use crate::common::Scratch;

    /// flight = sense -> fuse -> act (HI) every 20ms, video = grab -> encode (LO) every 10ms.
    const UAV: &str = r#"name = "uav"
cores = 2
levels = ["LO", "HI"]

[[dags]]
name = "flight"
period = "20ms"
edges = [["sense", "fuse"], ["fuse", "act"]]

[[dags.tasks]]
name = "sense"
wcet = ["2ms", "4ms"]

[[dags.tasks]]
name = "fuse"
wcet = ["3ms", "6ms"]

[[dags.tasks]]
name = "act"
wcet = ["1ms", "2ms"]

[[dags]]
name = "video"
period = "10ms"
edges = [["grab", "encode"]]

[[dags.tasks]]
name = "grab"
wcet = ["2ms"]

[[dags.tasks]]
name = "encode"
wcet = ["4ms"]
"#;

    /// A scratch folder with `uav.toml` and a periodic `plain.toml`.
    fn scratch() -> Scratch {
        let scratch = Scratch::new("mc-simulate");
        scratch.write("uav.toml", UAV);
        let plain = "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n";
        scratch.write("plain.toml", plain);
        scratch
    }

    fn text(bytes: &[u8]) -> String {
        String::from_utf8_lossy(bytes).into_owned()
    }

    #[test]
    fn an_overrun_shows_in_the_report_the_json_and_the_pictures() {
        let scratch = scratch();
        let args = ["simulate", "uav.toml", "--overrun", "flight/sense@0"];
        let output = scratch.kairos(&args);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let report = text(&output.stdout);
        assert!(
            report.contains("LO -> HI  overrun of flight/sense#0"),
            "{report}"
        );
        assert!(
            report.contains("HI -> LO  hyper-period boundary"),
            "{report}"
        );
        let json_args = [
            &args[..],
            &["--json", "--gantt", "g.svg", "--trace", "t.json"],
        ]
        .concat();
        let output = scratch.kairos(&json_args);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let v: serde_json::Value = serde_json::from_slice(&output.stdout).expect("JSON");
        assert_eq!(v["policy"], "table");
        assert_eq!(v["mode_changes"][0]["to"], "HI");
        assert_eq!(v["mode_changes"][0]["triggers"][0], "flight/sense#0");
        assert_eq!(v["deadline_misses"], 0);
        assert!(v["jobs_discarded_by_level"]["LO"].as_u64() > Some(0));
        assert!(scratch.read("g.svg").contains("LO -&gt; HI"));
        assert!(scratch.read("t.json").contains("mode LO -> HI"));
    }

    #[test]
    fn tables_from_synth_run_as_given() {
        let scratch = scratch();
        let output = scratch.kairos(&["synth", "uav.toml", "--out", "tables.json"]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let output = scratch.kairos(&["simulate", "uav.toml", "--tables", "tables.json"]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        let report = text(&output.stdout);
        assert!(report.contains("under table (tables.json)"), "{report}");
        assert!(report.contains("mode changes: 0"), "{report}");
        let output = scratch.kairos(&["simulate", "uav.toml", "--cores", "3"]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        assert!(text(&output.stdout).starts_with("3 cores"));
        let args = [
            "simulate",
            "uav.toml",
            "--cores",
            "3",
            "--tables",
            "tables.json",
        ];
        let output = scratch.kairos(&args);
        assert_eq!(output.status.code(), Some(2));
        assert!(text(&output.stderr).contains("the tables use 2 cores, the system has 3"));
    }

    #[test]
    fn a_budget_overrun_at_the_top_level_fails_on_miss() {
        let scratch = scratch();
        let args = ["simulate", "uav.toml", "--overrun", "flight/fuse@0=15ms"];
        let output = scratch.kairos(&[&args[..], &["--fail-on-miss"]].concat());
        assert_eq!(output.status.code(), Some(1), "{}", text(&output.stderr));
        let report = text(&output.stdout);
        assert!(report.contains("budget exhausted: 1"), "{report}");
        assert!(report.contains("flight/fuse#0 (HI) missed"), "{report}");
    }

    #[test]
    fn options_of_the_wrong_kind_are_refused() {
        let scratch = scratch();
        let cases: [(&[&str], &str); 5] = [
            (
                &["simulate", "uav.toml", "--policy", "gedf"],
                "--policy table",
            ),
            (
                &["simulate", "uav.toml", "--priorities", "rm"],
                "periodic workloads only",
            ),
            (
                &[
                    "simulate",
                    "plain.toml",
                    "--policy",
                    "gedf",
                    "--overrun",
                    "a@0",
                ],
                "mixed-criticality systems only",
            ),
            (
                &["simulate", "plain.toml", "--policy", "table"],
                "periodic workload",
            ),
            (
                &["simulate", "uav.toml", "--overrun", "flight/nope@0"],
                "no task",
            ),
        ];
        for (args, expected) in cases {
            let output = scratch.kairos(args);
            assert_eq!(output.status.code(), Some(2), "{args:?}");
            let err = text(&output.stderr);
            assert!(err.contains(expected), "{args:?}: {err}");
        }
        // Without --policy a plain workload runs the default policy of its kind.
        let output = scratch.kairos(&["simulate", "plain.toml"]);
        assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
        assert!(
            text(&output.stdout).contains("under pfp"),
            "{}",
            text(&output.stdout)
        );
    }
}
