//! Feeds arbitrary bytes (decoded lossily) to `check_source` as TOML and as JSON: it must never
//! panic, and what it returns must be consistent (a workload exactly when there is no error, and
//! that workload obeys the rules `kairos check` enforces).
#![no_main]

use kairos_model::decode::MAX_DURATION;
use kairos_model::{check_source, Arrival, Format};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    for format in [Format::Toml, Format::Json] {
        let checked = check_source(&text, format);
        for d in checked.diagnostics.iter() {
            let _ = d.render("fuzz");
        }
        assert_eq!(
            checked.workload.is_some(),
            !checked.diagnostics.has_errors()
        );
        if let Some(w) = &checked.workload {
            assert!(w.cores >= 1 && !w.tasks.is_empty());
            for t in &w.tasks {
                assert!(!t.wcet.is_zero() && t.wcet <= t.deadline && t.bcet <= t.wcet);
                assert!(t.period <= MAX_DURATION && t.deadline <= MAX_DURATION);
                assert!(t.offset <= MAX_DURATION);
                if let Arrival::Sporadic { max_interarrival } = t.arrival {
                    assert!(max_interarrival >= t.period && max_interarrival <= MAX_DURATION);
                }
                if let Some(core) = t.core {
                    assert!(core.0 < w.cores);
                }
            }
        }
    }
});
