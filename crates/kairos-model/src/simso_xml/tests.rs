use super::*;
use crate::Position;

const WRITTEN: &str = r#"<?xml version="1.0" ?>
<simulation cycles_per_ms="1000000" duration="1000000000" etm="wcet">
	<sched class="simso.schedulers.EDF" overhead="0" overhead_activate="0" overhead_terminate="0"/>
	<caches memory_access_time="100"/>
	<processors>
		<processor cl_overhead="0" cs_overhead="0" id="1" name="CPU1" speed="1.0"/>
		<processor cl_overhead="0" cs_overhead="0" id="2" name="CPU2" speed="1.0"/>
	</processors>
	<tasks>
		<task ACET="7.3" WCET="7.3" abort_on_miss="no" activationDate="0" base_cpi="1.0" deadline="20" et_stddev="0" id="1" instructions="0" list_activation_dates="" mix="0.5" name="T1" period="20" preemption_cost="0" task_type="Periodic"/>
		<task ACET="2" WCET="2" abort_on_miss="no" activationDate="1.5" base_cpi="1.0" deadline="8" et_stddev="0" id="2" instructions="0" list_activation_dates="" mix="0.5" name="T2" period="10" preemption_cost="0" task_type="Periodic"/>
	</tasks>
</simulation>"#;

fn read(source: &str) -> SimsoChecked {
    check_simso(source, "simso")
}

/// The position of the `nth` (from 0) occurrence of `needle` in `source`, plus `skip`
/// characters, counted by hand: lines before it, characters since its line's start.
fn place(source: &str, needle: &str, nth: usize, skip: usize) -> Position {
    let offset = source
        .match_indices(needle)
        .nth(nth)
        .expect("in the text")
        .0
        + skip;
    let before = &source[..offset];
    let start = before.rfind('\n').map_or(0, |i| i + 1);
    Position {
        line: before.lines().count().max(1) + usize::from(before.ends_with('\n')),
        column: before[start..].chars().count() + 1,
    }
}

/// The errors of `source`: (position, message).
fn errors(source: &str) -> Vec<(Option<Position>, String)> {
    let checked = read(source);
    assert!(checked.workload.is_none());
    (checked.diagnostics.iter())
        .filter(|d| d.is_error())
        .map(|d| (d.position, d.message.clone()))
        .collect()
}

#[test]
fn a_simso_file_becomes_a_checked_kairos_workload() {
    let checked = read(WRITTEN);
    let import = checked.import.expect("read");
    assert_eq!((import.cores, import.policy), (2, Some("gedf")));
    assert_eq!(import.duration, Duration::from_secs(1));
    assert_eq!(import.tasks[0].wcet, Duration::from_micros(7300));
    assert_eq!(import.tasks[1].offset, Duration::from_micros(1500));
    let workload = checked.workload.expect("valid");
    assert_eq!(workload.tasks[1].deadline, Duration::from_millis(8));
    assert_eq!(workload.tasks[0].period, Duration::from_millis(20));
    let again = crate::check_source(&checked.text.unwrap(), crate::Format::Toml);
    assert_eq!(again.workload, Some(workload));
}

#[test]
fn zero_cycles_per_ms_is_refused_at_the_attribute() {
    let zero = WRITTEN.replace("cycles_per_ms=\"1000000\"", "cycles_per_ms=\"0\"");
    let found = errors(&zero);
    let at = place(&zero, "cycles_per_ms=", 0, "cycles_per_ms=\"".len());
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, Some(at));
    assert!(found[0].1.contains("greater than zero"), "{found:?}");
    assert!(!found[0].1.contains("NaN"), "{found:?}");
}

#[test]
fn every_bad_number_is_reported_at_once_where_it_is_written() {
    let bad = WRITTEN
        .replace("WCET=\"7.3\"", "WCET=\"NaN\"")
        .replace("period=\"10\"", "period=\"-10\"")
        .replace("duration=\"1000000000\"", "duration=\"inf\"")
        .replace("deadline=\"8\" ", "");
    let found = errors(&bad);
    let expected = [
        (place(&bad, "duration=", 0, 10), "is not a finite number"),
        (place(&bad, "WCET=", 0, 6), "is not a finite number"),
        (place(&bad, "<task ", 1, 0), "has no deadline"),
        (place(&bad, " period=", 1, 9), "is negative"),
    ];
    assert_eq!(found.len(), expected.len(), "{found:?}");
    for ((position, message), (at, words)) in found.iter().zip(expected) {
        assert_eq!(*position, Some(at), "{message}");
        assert!(message.contains(words), "{message} (expected {words})");
    }
}

#[test]
fn the_workload_rules_are_located_at_the_attributes_they_read() {
    // T2's WCET above its deadline: a rule of the workload, not of the XML.
    let late = WRITTEN.replace("WCET=\"2\"", "WCET=\"9\"");
    let found = errors(&late);
    assert!(!found.is_empty());
    let wcet = place(&late, "WCET=", 1, 6);
    let deadline = place(&late, "deadline=", 1, 10);
    for (position, message) in &found {
        assert!([Some(wcet), Some(deadline)].contains(position), "{found:?}");
        assert!(!message.is_empty());
    }
}

#[test]
fn what_kairos_cannot_carry_is_refused_or_noted() {
    let sporadic = WRITTEN.replace(
        "task_type=\"Periodic\"/>\n\t</tasks>",
        "task_type=\"Sporadic\"/>\n\t</tasks>",
    );
    let found = errors(&sporadic);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].0, Some(place(&sporadic, "Sporadic", 0, 0)));
    assert!(found[0].1.contains("Sporadic tasks"));
    let fast = WRITTEN.replace(
        "id=\"2\" name=\"CPU2\" speed=\"1.0\"",
        "id=\"2\" name=\"CPU2\" speed=\"2.0\"",
    );
    assert_eq!(read(&fast).import.unwrap().notes.len(), 1);
    let other = errors("<mcsystem/>");
    assert!(other[0].1.contains("not SimSo's"), "{other:?}");
    assert_eq!(policy_of("../schedulers/P_RM.py"), Some("pfp"));
    assert_eq!(policy_of("simso.schedulers.LLF"), None);
}

#[test]
fn deep_nesting_is_refused_where_it_passes_the_bound() {
    let depth = crate::nesting::MAX_NESTING + 10;
    let deep = WRITTEN.replace(
        "<caches",
        &format!("{}{}<caches", "<x>".repeat(depth), "</x>".repeat(depth)),
    );
    let found = errors(&deep);
    assert_eq!(found.len(), 1, "{found:?}");
    // <simulation> is level one: the (MAX_NESTING)-th <x> passes.
    let at = place(&deep, "<x>", crate::nesting::MAX_NESTING - 1, 0);
    assert_eq!(found[0].0, Some(at));
}
