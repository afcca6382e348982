//! The MC-DAG framework's XML importer: the reference files, the reading rules (slots, levels,
//! the discard model, ports), options, and export/import round trips. Exact messages for the
//! CLI are in the root `tests/check_mc/`.

use kairos_model::mc_load::{check_mc_source, to_json, to_toml, McChecked};
use kairos_model::mcdag_xml::{import, import_with, level_names, to_xml, ImportOptions};
use kairos_model::{Dag, Duration, Format, McSystem, McTask};
use std::path::PathBuf;

fn ms(v: u64) -> Duration {
    Duration::from_millis(v)
}

fn reference(n: usize) -> String {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../examples/mcdag/xml")
        .join(format!("test-6-{n}.xml"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn rendered(checked: &McChecked) -> Vec<String> {
    checked
        .diagnostics
        .iter()
        .map(|d| d.render("f.xml"))
        .collect()
}

/// A one-DAG system around `actors` and `ports` (XML fragments).
fn system_xml(levels: usize, deadline: u64, actors: &str, ports: &str) -> String {
    format!(
        "<mcsystem>\n<mcdag name=\"g\" deadline=\"{deadline}\">\n{actors}\n<ports>{ports}</ports>\n</mcdag>\n<cores number=\"2\"/>\n<levels number=\"{levels}\"/>\n</mcsystem>\n"
    )
}

#[test]
fn reference_files_import_and_round_trip() {
    let mut accepted = Vec::new();
    for n in 0..10 {
        let checked = import(&reference(n), ms(1));
        let Some(system) = checked.system.as_ref() else {
            let messages = rendered(&checked);
            assert_eq!(messages.len(), 1, "test-6-{n}: {messages:#?}");
            assert!(
                messages[0].contains("critical path at LO is"),
                "{messages:?}"
            );
            continue;
        };
        accepted.push(n);
        assert!(checked.diagnostics.0.is_empty(), "{:?}", rendered(&checked));
        assert_eq!(system.cores, 6);
        assert_eq!(system.levels, ["LO", "HI"]);
        assert_eq!(system.dags.len(), 2);
        for dag in &system.dags {
            assert_eq!(dag.period, dag.deadline);
            assert!(dag.topological_order().is_some());
        }
        let toml = to_toml(system);
        assert_eq!(
            check_mc_source(&toml, Format::Toml).system.as_ref(),
            Some(system)
        );
        let json = to_json(system);
        assert_eq!(
            check_mc_source(&json, Format::Json).system.as_ref(),
            Some(system)
        );
        let xml = to_xml(system, ms(1)).unwrap();
        assert_eq!(import(&xml, ms(1)).system.as_ref(), Some(system));
    }
    assert_eq!(accepted, [0, 2, 5, 8]);
}

#[test]
fn first_reference_file_in_detail() {
    let system = import(&reference(0), ms(1)).system.unwrap();
    let g = &system.dags[0];
    assert_eq!(g.name, "genned-1-ed-40.0-1");
    assert_eq!(g.period, ms(11));
    // <actor name="D1N25"> 1 at level 0, 0 at level 1: a LO task.
    let lo = g.tasks.iter().find(|t| t.name == "D1N25").unwrap();
    assert_eq!(lo.wcet, [ms(1)]);
    // <actor name="D1N4"> 4 then 6.
    let hi = g.tasks.iter().find(|t| t.name == "D1N4").unwrap();
    assert_eq!(hi.wcet, [ms(4), ms(6)]);
    let from = g.tasks.iter().position(|t| t.name == "D1N2").unwrap();
    let to = g.tasks.iter().position(|t| t.name == "D1N6").unwrap();
    assert_eq!(g.edges[0], (from, to));
    assert_eq!(system.hyperperiod(), Some(ms(2431)));
}

#[test]
fn slots_scale_every_time_and_cores_can_be_replaced() {
    let xml = system_xml(
        2,
        8,
        "<actor name=\"a\"><wcet number=\"0\">2</wcet><wcet number=\"1\">3</wcet></actor>",
        "",
    );
    let options = ImportOptions {
        slot: Duration::from_micros(250),
        cores: Some(5),
    };
    let system = import_with(&xml, &options).system.unwrap();
    assert_eq!(system.cores, 5);
    assert_eq!(system.dags[0].period, ms(2));
    assert_eq!(system.dags[0].deadline, ms(2));
    assert_eq!(
        system.dags[0].tasks[0].wcet,
        [Duration::from_micros(500), Duration::from_micros(750)]
    );
}

#[test]
fn missing_levels_count_as_zero_and_extra_elements_are_ignored() {
    let xml = system_xml(
        3,
        10,
        "<actor name=\"a\"><wcet number=\"0\">2</wcet><rank>3</rank><fprob>0.0</fprob></actor>\n\
         <actor name=\"b\"><wcet number=\"1\">3</wcet><wcet number=\"0\">2</wcet></actor>",
        "",
    )
    .replace("</ports>", "</ports><port srcActor=\"a\" dstActor=\"b\"/>");
    let checked = import(&xml, ms(1));
    assert!(checked.diagnostics.0.is_empty(), "{:?}", rendered(&checked));
    let system = checked.system.unwrap();
    assert_eq!(system.levels, ["LO", "MID", "HI"]);
    let tasks = &system.dags[0].tasks;
    assert_eq!(tasks[0].wcet, [ms(2)]);
    assert_eq!(tasks[1].wcet, [ms(2), ms(3)]);
    assert_eq!(system.dags[0].edges, [(0, 1)]);
}

#[test]
fn level_names_by_count() {
    assert_eq!(level_names(1), ["L0"]);
    assert_eq!(level_names(2), ["LO", "HI"]);
    assert_eq!(level_names(3), ["LO", "MID", "HI"]);
    assert_eq!(level_names(4), ["L0", "L1", "L2", "L3"]);
}

#[test]
fn shared_rules_apply_to_xml() {
    let xml = system_xml(
        2,
        10,
        "<actor name=\"a\"><wcet number=\"0\">3</wcet><wcet number=\"1\">2</wcet></actor>\n\
         <actor name=\"a\"><wcet number=\"0\">1</wcet></actor>\n\
         <actor name=\"b/c\"><wcet number=\"0\">1</wcet></actor>",
        "<port srcActor=\"a\" dstActor=\"a\"/>",
    );
    let messages = rendered(&import(&xml, ms(1)));
    assert_eq!(
        messages,
        [
            "f.xml:3:42: error: mcdag[0].actor[0].wcet[1]: wcet at HI (2ms) is below wcet at LO (3ms)\n  hint: a task's wcet must not decrease with the level",
            "f.xml:4:14: error: mcdag[0].actor[1].name: duplicate task name `a` in the DAG (also mcdag[0].actor[0])\n  hint: task names must be unique in the DAG: tables and traces refer to tasks as `dag/task`",
            "f.xml:5:14: error: mcdag[0].actor[2].name: task name `b/c` contains '/'\n  hint: tables and traces refer to tasks as `dag/task`: use another character",
            "f.xml:6:8: error: mcdag[0].port[0]: edge from `a` to itself\n  hint: a task cannot precede itself: remove the edge",
        ]
    );
}

#[test]
fn dtds_are_refused() {
    let xml = "<?xml version=\"1.0\"?>\n<!DOCTYPE mcsystem [<!ENTITY a \"aaaa\">]>\n<mcsystem/>\n";
    let messages = rendered(&import(xml, ms(1)));
    assert_eq!(messages.len(), 1);
    assert!(
        messages[0].starts_with("f.xml:2:1: error: XML syntax: XML with DTD detected"),
        "{messages:?}"
    );
}

fn small_system() -> McSystem {
    McSystem {
        name: None,
        cores: 2,
        levels: vec!["LO".into(), "HI".into()],
        dags: vec![Dag {
            name: "g&<\"'>".into(),
            period: ms(10),
            deadline: ms(10),
            tasks: vec![
                McTask {
                    name: "a".into(),
                    wcet: vec![ms(1), ms(2)],
                },
                McTask {
                    name: "b".into(),
                    wcet: vec![ms(3)],
                },
            ],
            edges: vec![(0, 1)],
        }],
    }
}

#[test]
fn export_escapes_names_and_refuses_what_xml_cannot_say() {
    let system = small_system();
    let xml = to_xml(&system, ms(1)).unwrap();
    assert!(xml.contains("name=\"g&amp;&lt;&quot;&apos;&gt;\""), "{xml}");
    assert_eq!(import(&xml, ms(1)).system, Some(system.clone()));

    let mut constrained = system.clone();
    constrained.dags[0].deadline = ms(8);
    assert!(to_xml(&constrained, ms(1))
        .unwrap_err()
        .contains("deadline"));
    let off_grid = to_xml(&system, ms(3)).unwrap_err();
    assert_eq!(
        off_grid,
        "the period of `g&<\"'>` 10ms is not a whole number of 3ms slots"
    );
}
