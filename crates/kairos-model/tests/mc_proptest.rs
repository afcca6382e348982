//! Properties of the mixed-criticality loader: valid systems round-trip through the kairos TOML
//! and JSON formats and the MC-DAG XML, and no mutated source makes the checker panic or return
//! a system together with an error.

use kairos_model::input::{load, LoadOptions};
use kairos_model::mc_load::{check_mc_source, to_json, to_toml, McChecked};
use kairos_model::mcdag_xml::{import, to_xml};
use kairos_model::{Dag, Duration, Format, McSystem, McTask};
use proptest::prelude::*;
use std::path::Path;

/// Names with characters TOML, JSON and XML must escape; `#i` keeps them unique.
fn name(i: usize) -> impl Strategy<Value = String> {
    "[a-zA-Z0-9_ \"'\\\\<>&é.-]{0,6}".prop_map(move |s| format!("{s}#{i}"))
}

/// One DAG on `levels` levels whose times are multiples of `unit`: acyclic edges (from a lower
/// to a higher index), non-decreasing WCETs, a period at least the sum of every WCET (so every
/// critical path fits), a deadline between the critical path and the period.
fn dag(index: usize, levels: usize, unit: u64) -> impl Strategy<Value = Dag> {
    (1usize..6)
        .prop_flat_map(move |n| {
            let tasks = (0..n)
                .map(|i| {
                    (
                        name(i),
                        0..levels,
                        proptest::collection::vec(1u64..5, levels),
                    )
                        .prop_map(move |(name, crit, steps)| {
                            let mut total = 0;
                            let wcet = steps[..=crit]
                                .iter()
                                .map(|s| {
                                    total += s;
                                    Duration::from_nanos(total * unit)
                                })
                                .collect();
                            McTask { name, wcet }
                        })
                        .boxed()
                })
                .collect::<Vec<_>>();
            let edges = proptest::collection::vec((0..n, 0..n), 0..(n * 2));
            (name(index), tasks, edges, 0u64..20, any::<bool>())
        })
        .prop_map(move |(name, tasks, pairs, slack, constrained)| {
            let mut edges: Vec<(usize, usize)> = Vec::new();
            for (a, b) in pairs {
                let edge = (a.min(b), a.max(b));
                if a != b && !edges.contains(&edge) {
                    edges.push(edge);
                }
            }
            let work: u64 = tasks
                .iter()
                .map(|t| t.wcet.last().unwrap().as_nanos())
                .sum();
            let period = Duration::from_nanos(work + slack * unit);
            let deadline = if constrained {
                Duration::from_nanos(work)
            } else {
                period
            };
            Dag {
                name: name.replace('/', "_"),
                period,
                deadline,
                tasks,
                edges,
            }
        })
}

fn system() -> impl Strategy<Value = McSystem> {
    (
        1usize..4,
        1usize..9,
        prop_oneof![Just(1u64), Just(1_000), Just(1_000_000), Just(1_500)],
    )
        .prop_flat_map(|(levels, cores, unit)| {
            let dags = (1usize..4).prop_flat_map(move |count| {
                (0..count)
                    .map(|i| dag(i, levels, unit).boxed())
                    .collect::<Vec<_>>()
            });
            let names = proptest::collection::vec(name(0), levels).prop_map(|names| {
                names
                    .into_iter()
                    .enumerate()
                    .map(|(i, n)| format!("{n}{i}"))
                    .collect::<Vec<_>>()
            });
            (Just(cores), names, dags, proptest::option::of(name(9)))
        })
        .prop_map(|(cores, levels, dags, name)| McSystem {
            name,
            cores,
            levels,
            dags,
        })
}

/// What a checked result must satisfy whatever the input.
fn consistent(checked: &McChecked) {
    for d in checked.diagnostics.iter() {
        let _ = d.render("p");
    }
    assert_eq!(checked.system.is_some(), !checked.diagnostics.has_errors());
    if let Some(s) = &checked.system {
        assert!(s.cores >= 1 && !s.levels.is_empty() && !s.dags.is_empty());
        assert!(s.hyperperiod().is_some());
        for dag in &s.dags {
            assert!(!dag.tasks.is_empty());
            assert!(dag.deadline <= dag.period && !dag.deadline.is_zero());
            assert!(dag.topological_order().is_some());
            for t in &dag.tasks {
                assert!(!t.wcet.is_empty() && t.wcet.len() <= s.levels.len());
                assert!(t.wcet.windows(2).all(|w| w[0] <= w[1]));
                assert!(!t.wcet[0].is_zero());
            }
        }
        for level in 0..s.level_count() {
            assert!(s.utilization_at(level).is_finite());
        }
    }
}

/// Applies `edits` (position, kind, text) to `source`.
fn mutate(source: &str, edits: &[(usize, u8, String)]) -> String {
    let mut text: Vec<char> = source.chars().collect();
    for (at, kind, insert) in edits {
        if text.is_empty() {
            break;
        }
        let at = at % text.len();
        match kind % 4 {
            0 => {
                text.remove(at);
            }
            1 => {
                for (k, c) in insert.chars().enumerate() {
                    text.insert(at + k, c);
                }
            }
            2 => {
                let end = (at + insert.len() * 3).min(text.len());
                text.drain(at..end);
            }
            _ => {
                // Duplicate the line holding `at`.
                let start = text[..at]
                    .iter()
                    .rposition(|&c| c == '\n')
                    .map_or(0, |i| i + 1);
                let end = text[at..]
                    .iter()
                    .position(|&c| c == '\n')
                    .map_or(text.len(), |i| at + i + 1);
                let line: Vec<char> = text[start..end].to_vec();
                for (k, c) in line.into_iter().enumerate() {
                    text.insert(end + k, c);
                }
            }
        }
    }
    text.into_iter().collect()
}

fn edits() -> impl Strategy<Value = Vec<(usize, u8, String)>> {
    proptest::collection::vec(
        (
            any::<usize>(),
            any::<u8>(),
            prop_oneof![
                "[\\[\\]\"=,0-9a-z ]{1,4}",
                Just("0ms".to_string()),
                Just("\"a\"".to_string()),
                Just("18446744073709551616".to_string()),
                Just("<".to_string()),
                Just("\n[[dags]]\n".to_string()),
            ],
        ),
        1..6,
    )
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    #[test]
    fn valid_systems_round_trip(system in system()) {
        let toml = to_toml(&system);
        let checked = check_mc_source(&toml, Format::Toml);
        consistent(&checked);
        prop_assert_eq!(checked.system.as_ref(), Some(&system), "{}", toml);
        // TOML -> system -> TOML is stable.
        prop_assert_eq!(to_toml(checked.system.as_ref().unwrap()), toml);
        let json = to_json(&system);
        let from_json = check_mc_source(&json, Format::Json).system;
        prop_assert_eq!(from_json.as_ref(), Some(&system));
    }

    #[test]
    fn xml_round_trips_on_its_slot(system in system()) {
        let mut system = system;
        for dag in &mut system.dags {
            dag.deadline = dag.period;
        }
        system.levels = kairos_model::mcdag_xml::level_names(system.levels.len());
        system.name = None;
        let slot = Duration::from_nanos(1);
        let xml = to_xml(&system, slot).unwrap();
        let imported = import(&xml, slot).system;
        prop_assert_eq!(imported.as_ref(), Some(&system), "{}", xml);
    }

    #[test]
    fn mutated_sources_never_panic(system in system(), edits in edits()) {
        let toml = mutate(&to_toml(&system), &edits);
        consistent(&check_mc_source(&toml, Format::Toml));
        let _ = load(Path::new("mutated.toml"), &toml, &LoadOptions::default());
        let json = mutate(&to_json(&system), &edits);
        consistent(&check_mc_source(&json, Format::Json));
        let mut xml_system = system.clone();
        for dag in &mut xml_system.dags {
            dag.deadline = dag.period;
        }
        let xml = mutate(&to_xml(&xml_system, Duration::from_nanos(1)).unwrap(), &edits);
        consistent(&import(&xml, Duration::from_nanos(1)));
        consistent(&import(&xml, Duration::from_secs(1_000_000_000)));
    }
}
