//! Feeds arbitrary bytes (decoded lossily) to the mixed-criticality loaders: the kairos format
//! as TOML and as JSON, and the MC-DAG framework's XML, and to the loader of every kind. None may panic, and what they return must
//! be consistent: a system exactly when there is no error, and that system obeys the rules
//! `kairos check` enforces (docs/check.md).
#![no_main]

use kairos_model::input::{load, LoadOptions};
use kairos_model::mc_load::{check_mc_source, McChecked};
use std::path::Path;
use kairos_model::mcdag_xml::import;
use kairos_model::{Duration, Format};
use libfuzzer_sys::fuzz_target;

fn consistent(checked: &McChecked) {
    for d in checked.diagnostics.iter() {
        let _ = d.render("fuzz");
    }
    assert_eq!(checked.system.is_some(), !checked.diagnostics.has_errors());
    let Some(s) = &checked.system else { return };
    assert!(s.cores >= 1 && !s.levels.is_empty() && !s.dags.is_empty());
    assert!(s.hyperperiod().is_some());
    for dag in &s.dags {
        assert!(!dag.tasks.is_empty() && !dag.deadline.is_zero() && dag.deadline <= dag.period);
        let order = dag.topological_order().expect("acyclic");
        for level in 0..s.level_count() {
            // The critical path at every level fits within the deadline.
            let preds = dag.predecessors();
            let mut finish = vec![0u128; dag.tasks.len()];
            for &t in &order {
                let start = preds[t].iter().map(|&p| finish[p]).max().unwrap_or(0);
                let wcet = dag.tasks[t].wcet_at(level).map_or(0, Duration::as_nanos);
                finish[t] = start + u128::from(wcet);
            }
            let longest = finish.into_iter().max().unwrap_or(0);
            assert!(longest <= u128::from(dag.deadline.as_nanos()));
        }
        for t in &dag.tasks {
            assert!(!t.wcet.is_empty() && t.wcet.len() <= s.levels.len());
            assert!(!t.wcet[0].is_zero() && t.wcet.windows(2).all(|w| w[0] <= w[1]));
        }
    }
    for level in 0..s.level_count() {
        assert!(s.utilization_at(level).is_finite());
    }
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for format in [Format::Toml, Format::Json] {
        consistent(&check_mc_source(&text, format));
        let name = match format {
            Format::Toml => "fuzz.toml",
            Format::Json => "fuzz.json",
        };
        let _ = load(Path::new(name), &text, &LoadOptions::default());
    }
    consistent(&import(&text, Duration::from_millis(1)));
});
