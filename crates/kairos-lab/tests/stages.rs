//! The library's stages called as another front end calls them (no command line), each result
//! checked against a value known independently of the code that computed it: by hand, by the
//! independent table validator, or by the analysis it must agree with.

use kairos_lab::analyze::analyze_default;
use kairos_lab::simulate::{simulate, Request, Simulation};
use kairos_lab::synth::{synthesize_tables, Summary};
use kairos_model::input::{load, Input, LoadOptions};
use kairos_model::Duration;
use std::path::Path;

/// A file's input, loaded from text as the Python package passes it.
fn input(name: &str, text: &str) -> Input {
    let loaded = load(Path::new(name), text, &LoadOptions::default());
    loaded
        .input
        .unwrap_or_else(|| panic!("{name}: {:?}", loaded.diagnostics))
}

fn example(path: &str) -> (String, String) {
    let full = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples")
        .join(path);
    (
        path.to_string(),
        std::fs::read_to_string(full).expect("the example exists"),
    )
}

const TWO_TASKS: &str = r#"
cores = 1
[[tasks]]
name = "a"
wcet = "1ms"
period = "4ms"
[[tasks]]
name = "b"
wcet = "2ms"
period = "6ms"
"#;

fn workload() -> kairos_model::Workload {
    match input("two.toml", TWO_TASKS) {
        Input::Workload(w) => w,
        _ => unreachable!("a periodic workload"),
    }
}

#[test]
fn the_analysis_gives_the_response_times_computed_by_hand() {
    let analysis = analyze_default("two.toml", &workload());
    assert!(analysis.schedulable);
    // Rate-monotonic response-time analysis by hand: R_a = 1 ms; R_b = 2 + ceil(R_b/4)*1,
    // from 3: 2 + 1 = 3 ms.
    let rta = (analysis.tests.iter())
        .find(|t| t.verdict.response_times.is_some() && t.test.contains("fp"))
        .expect("a fixed-priority response-time test ran on one core");
    let times = rta.verdict.response_times.as_ref().unwrap();
    assert_eq!(times, &[Duration::from_millis(1), Duration::from_millis(3)]);
    // The JSON the CLI prints keys the tests by name.
    let json = serde_json::to_value(&analysis).unwrap();
    assert_eq!(json["tests"][rta.test]["schedulable"], true);
}

#[test]
fn a_periodic_simulation_releases_one_job_per_period_of_the_hyperperiod() {
    let request = Request {
        policy: Some("pfp".into()),
        record_trace: true,
        ..Request::default()
    };
    let mut notes = Vec::new();
    let run = simulate(
        "two.toml",
        Input::Workload(workload()),
        None,
        &request,
        &mut |n| notes.push(n.to_string()),
    )
    .unwrap();
    let Simulation::Periodic { outcome, .. } = &run else {
        panic!("a periodic simulation")
    };
    // Hyper-period 12 ms, releases at both ends: a at 0, 4, 8, 12 and b at 0, 6, 12.
    assert_eq!(outcome.metrics.duration_ns, 12_000_000);
    assert_eq!(outcome.metrics.jobs_released, 7);
    assert_eq!(run.deadline_misses(), 0);
    let rows = kairos_lab::simulate::jobs::job_rows(run.trace().unwrap());
    assert_eq!(rows.len(), 7);
    assert!(notes.is_empty(), "{notes:?}");
}

#[test]
fn a_refused_option_says_which_and_why() {
    let request = Request {
        overrun_probability: 0.5,
        ..Request::default()
    };
    let refused = simulate(
        "two.toml",
        Input::Workload(workload()),
        None,
        &request,
        &mut |_| {},
    );
    let message = refused.err().expect("refused").message;
    assert!(
        message.contains("mixed-criticality systems only"),
        "{message}"
    );
}

#[test]
fn synthesized_tables_pass_the_independent_validator() {
    let (name, text) = example("mcdag/two-levels.toml");
    let Input::Mc(system) = input(&name, &text) else {
        panic!("an MC system")
    };
    let request = kairos_lab::synth::Request {
        file: name,
        policy: "gedzl".into(),
        cores: None,
        out: None,
        overheads: None,
    };
    let synthesized = synthesize_tables(&request, &system).unwrap();
    assert!(matches!(synthesized.summary, Summary::Schedulable(_)));
    let tables = synthesized.synthesis.unwrap().tables;
    let report = kairos_validate::validate(&system, &tables);
    assert!(report.violations.is_empty(), "{:?}", report.violations);
    assert_eq!(report.levels, system.levels.len());
}

#[test]
fn a_vm_system_simulates_on_the_vcpus_its_analysis_computes() {
    let (name, text) = example("vm/two-domains.toml");
    let Input::Vm(system) = input(&name, &text) else {
        panic!("a VM system")
    };
    let request = Request {
        duration: Some(Duration::from_millis(200)),
        ..Request::default()
    };
    let run = simulate(
        &name,
        Input::Vm(system.clone()),
        None,
        &request,
        &mut |_| {},
    )
    .unwrap();
    let Simulation::Vm { metrics, .. } = &run else {
        panic!("a VM simulation")
    };
    // The analysis accepts the system, so the VCPUs it computed carry every deadline.
    let analysis = kairos_analysis::csa::analyze(&system);
    assert_eq!(analysis.schedulable, Some(true));
    assert_eq!(run.deadline_misses(), 0);
    let budgets: Vec<u64> = metrics.vcpus.iter().map(|v| v.budget_ns).collect();
    let analysed: Vec<u64> = (analysis.interfaces.iter())
        .flat_map(|i| i.vcpus.iter().map(|v| v.budget.as_nanos()))
        .collect();
    assert_eq!(budgets, analysed);
    // Releases in [0, 200 ms], both ends included: control 11 + 6 + 3, vision 7 + 3 + 5.
    let released: u64 = metrics.domains.iter().map(|d| d.jobs_released).sum();
    assert_eq!(released, 35);
}
