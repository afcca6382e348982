//! The MC-DAG framework's ten example systems (`examples/mcdag/xml/test-6-*.xml`) on 8 cores: the
//! reference tool accepted G-LLF 2/10, G-EDF 1/10, G-EDZL 2/10; every table kairos accepts must
//! be valid.

mod common;

use kairos_mc::{synthesize, Policy, SynthOptions};
use kairos_model::{mcdag_xml, Duration, McSystem};

/// The examples; `None` for the ones the importer rejects (a critical path above the deadline:
/// no table exists on any number of cores).
fn examples() -> Vec<(String, Option<McSystem>)> {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../examples/mcdag/xml");
    (0..10)
        .map(|i| {
            let name = format!("test-6-{i}.xml");
            let text = std::fs::read_to_string(format!("{dir}/{name}")).unwrap();
            let checked = mcdag_xml::import(&text, Duration::from_millis(1));
            (name, checked.system)
        })
        .collect()
}

#[test]
fn examples_on_eight_cores() {
    let systems = examples();
    for policy in Policy::ALL {
        let mut accepted = 0;
        for (name, system) in &systems {
            let Some(system) = system else {
                println!("{name}: infeasible (critical path above the deadline)");
                continue;
            };
            let options = SynthOptions {
                policy,
                cores: Some(8),
            };
            match synthesize(system, &options) {
                Ok(out) => {
                    let problems = common::violations(system, &out.tables);
                    assert!(problems.is_empty(), "{name} {policy:?}: {problems:?}");
                    accepted += 1;
                    println!("{name} {policy:?}: ok, {:?}", out.quality.total);
                }
                Err(e) => println!("{name} {policy:?}: {e}"),
            }
        }
        println!("{policy:?}: {accepted}/10");
        if policy == Policy::Gedzl {
            assert!(accepted >= 2, "G-EDZL accepted {accepted}/10");
        }
    }
}
