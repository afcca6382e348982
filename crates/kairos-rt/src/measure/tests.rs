//! Tests of the parent module (`measure.rs`).

use super::*;

#[test]
fn summary_of_known_values() {
    let mut d = Distribution::new();
    for v in 1..=1000u64 {
        d.record(v * 1000);
    }
    let s = d.summary();
    assert_eq!(s.count, 1000);
    assert_eq!(s.min, 1000);
    // 3 significant digits: quantiles within 0.1 %.
    assert!(
        (s.p50 as f64 - 500_000.0).abs() / 500_000.0 < 0.002,
        "{s:?}"
    );
    assert!(s.max >= 1_000_000 && s.max <= 1_001_000, "{s:?}");
    assert_eq!(d.buckets().iter().map(|b| b.1).sum::<u64>(), 1000);
}

#[test]
fn empty_summary_is_zero() {
    assert_eq!(Distribution::new().summary(), Summary::default());
}

fn job(release: u64, deadline: u64, completion: Option<u64>) -> JobRecord {
    JobRecord {
        task: 0,
        job: 0,
        release,
        deadline,
        requested: None,
        start: Some(release + 10),
        completion,
        discarded: None,
        cpu: Some(0),
        release_core: None,
    }
}

#[test]
fn misses_follow_the_deadline_and_the_run_end() {
    assert!(!job(0, 100, Some(100)).missed(1000));
    assert!(job(0, 100, Some(101)).missed(1000));
    assert!(job(0, 100, None).missed(1000));
    // Unfinished, deadline after the end: not (yet) a miss.
    assert!(!job(0, 2000, None).missed(1000));
    let mut dropped = job(0, 100, None);
    dropped.discarded = Some(50);
    assert!(!dropped.missed(1000));
}
