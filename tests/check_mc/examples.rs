//! The shipped examples and `kairos import mcdag`.

use super::*;

#[test]
fn every_mc_example_checks_without_warnings() {
    let mut seen = 0;
    for entry in std::fs::read_dir(repo("examples/mcdag")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().and_then(|e| e.to_str()) != Some("toml") {
            continue;
        }
        seen += 1;
        let output = Command::new(env!("CARGO_BIN_EXE_kairos"))
            .arg("check")
            .arg(&path)
            .output()
            .unwrap();
        let out = text(&output.stdout);
        assert_eq!(output.status.code(), Some(0), "{}: {out}", path.display());
        assert!(out.ends_with(", 0 warning(s)\n"), "{out}");
    }
    assert!(seen >= 6, "examples/mcdag/ holds the documented files");
}

#[test]
fn three_level_example_synthesizes_on_two_to_four_cores() {
    let source = std::fs::read_to_string(repo("examples/mcdag/three-levels.toml")).unwrap();
    let checked = kairos_model::mc_load::check_mc_source(&source, kairos_model::Format::Toml);
    let system = checked.system.expect("valid");
    assert_eq!(system.levels, ["LO", "MID", "HI"]);
    for cores in 2..=4 {
        let options = kairos_mc::SynthOptions {
            cores: Some(cores),
            ..Default::default()
        };
        assert!(
            kairos_mc::synthesize(&system, &options).is_ok(),
            "{cores} cores"
        );
    }
}

#[test]
fn imported_reference_examples_match_the_xml() {
    for n in [0, 2, 5, 8] {
        let xml = std::fs::read_to_string(reference_xml(n)).unwrap();
        let from_xml =
            kairos_model::mcdag_xml::import(&xml, kairos_model::Duration::from_millis(1))
                .system
                .expect("the XML is valid");
        let toml =
            std::fs::read_to_string(repo(&format!("examples/mcdag/test-6-{n}.toml"))).unwrap();
        let from_toml =
            kairos_model::mc_load::check_mc_source(&toml, kairos_model::Format::Toml).system;
        assert_eq!(from_toml.as_ref(), Some(&from_xml), "test-6-{n}");
        assert_eq!(from_xml.cores, 6);
    }
}

// ---- kairos import mcdag --------------------------------------------------------------------

const SMALL_XML: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<mcsystem>
    <mcdag deadline="10" name="g">
        <actor name="a">
            <wcet number="0">2</wcet>
            <wcet number="1">4</wcet>
        </actor>
        <actor name="b">
            <wcet number="0">3</wcet>
            <wcet number="1">0</wcet>
        </actor>
        <ports>
            <port dstActor="b" name="p0" srcActor="a"/>
        </ports>
    </mcdag>
    <cores number="2"/>
    <levels number="2"/>
</mcsystem>
"#;

#[test]
fn import_writes_kairos_toml_to_standard_output() {
    let scratch = Scratch::new("check-mc-test");
    scratch.write("small.xml", SMALL_XML);
    let output = scratch.kairos(&["import", "mcdag", "small.xml"]);
    assert_eq!(output.status.code(), Some(0));
    assert_eq!(text(&output.stderr), "");
    assert_eq!(
        text(&output.stdout),
        r#"# Imported by `kairos import mcdag` from small.xml (MC-DAG framework XML), one slot = 1ms.
cores = 2
levels = ["LO", "HI"]

[[dags]]
name = "g"
period = "10ms"
edges = [
    ["a", "b"],
]

[[dags.tasks]]
name = "a"
wcet = ["2ms", "4ms"]

[[dags.tasks]]
name = "b"
wcet = ["3ms"]
"#
    );
}

#[test]
fn import_slot_cores_and_out_file_then_check() {
    let scratch = Scratch::new("check-mc-test");
    scratch.write("small.xml", SMALL_XML);
    let output = scratch.kairos(&[
        "import",
        "mcdag",
        "small.xml",
        "--slot",
        "250us",
        "--cores",
        "3",
        "--out",
        "sys/small.toml",
    ]);
    assert_eq!(output.status.code(), Some(0), "{}", text(&output.stderr));
    assert_eq!(
        text(&output.stdout),
        "wrote sys/small.toml: 1 DAG(s), 2 task(s), 2 level(s) on 3 core(s)\n"
    );
    let written = scratch.read("sys/small.toml");
    assert!(written.contains("cores = 3\n"), "{written}");
    assert!(written.contains("period = \"2.5ms\"\n"), "{written}");
    assert!(
        written.contains("wcet = [\"500us\", \"1ms\"]\n"),
        "{written}"
    );
    let check = scratch.kairos(&["check", "sys/small.toml"]);
    assert_eq!(
        text(&check.stdout),
        "sys/small.toml: ok: 1 DAG(s), 2 task(s), 2 level(s) on 3 core(s), utilization LO 0.500, HI 0.400, hyper-period 2.5ms, 0 warning(s)\n"
    );
    // The XML checked directly with the same slot says the same, bar the cores.
    let direct = scratch.kairos(&["check", "small.xml", "--slot", "250us"]);
    assert_eq!(
        text(&direct.stdout),
        "small.xml: ok: 1 DAG(s), 2 task(s), 2 level(s) on 2 core(s), utilization LO 0.500, HI 0.400, hyper-period 2.5ms, 0 warning(s)\n"
    );
}

#[test]
fn import_to_json() {
    let scratch = Scratch::new("check-mc-test");
    scratch.write("small.xml", SMALL_XML);
    let output = scratch.kairos(&["import", "mcdag", "small.xml", "-o", "small.json"]);
    assert_eq!(output.status.code(), Some(0));
    let json: serde_json::Value = serde_json::from_str(&scratch.read("small.json")).unwrap();
    assert_eq!(
        json["dags"][0]["tasks"][1]["wcet"],
        serde_json::json!(["3ms"])
    );
    let check = scratch.kairos(&["check", "small.json"]);
    assert_eq!(check.status.code(), Some(0), "{}", text(&check.stdout));
}

#[test]
fn import_refuses_a_file_with_errors_and_writes_nothing() {
    let scratch = Scratch::new("check-mc-test");
    scratch.write(
        "bad.xml",
        SMALL_XML.replace("deadline=\"10\"", "deadline=\"4\""),
    );
    let output = scratch.kairos(&["import", "mcdag", "bad.xml", "--out", "bad.toml"]);
    assert_eq!(output.status.code(), Some(2));
    assert_eq!(text(&output.stdout), "");
    assert_eq!(
        text(&output.stderr),
        "bad.xml:3:5: error: mcdag[0]: critical path at LO is 5ms, longer than the deadline 4ms: a -> b\n  hint: no number of cores can meet this deadline: shorten the wcets on the path or raise the deadline\nerror: bad.xml has errors; see `kairos check bad.xml`\n"
    );
    assert!(!scratch.0.join("bad.toml").exists());
}

#[test]
fn import_refuses_a_zero_slot() {
    let scratch = Scratch::new("check-mc-test");
    scratch.write("small.xml", SMALL_XML);
    let output = scratch.kairos(&["import", "mcdag", "small.xml", "--slot", "0ms"]);
    assert_eq!(output.status.code(), Some(2));
    assert!(text(&output.stderr).contains("a slot must last more than zero"));
}

#[test]
fn reference_files_that_miss_their_deadline_at_lo_are_refused() {
    // The reference tool's generator sets each deadline to the DAG's critical path at HI; in
    // six of the ten files the LO-only tasks make the LO critical path longer than that.
    for (n, dag, length, deadline) in [
        (1, 0, 15, 14),
        (3, 0, 61, 54),
        (4, 1, 29, 26),
        (6, 1, 80, 78),
        (7, 0, 108, 67),
        (9, 1, 75, 51),
    ] {
        let path = reference_xml(n);
        let output = Command::new(env!("CARGO_BIN_EXE_kairos"))
            .arg("check")
            .arg(&path)
            .output()
            .unwrap();
        let out = text(&output.stdout);
        assert_eq!(output.status.code(), Some(2), "{out}");
        assert!(
            out.contains(&format!(
                ": error: mcdag[{dag}]: critical path at LO is {length}ms, longer than the deadline {deadline}ms: "
            )),
            "test-6-{n}: {out}"
        );
        assert!(out.ends_with(": 1 error(s), 0 warning(s)\n"), "{out}");
    }
}

#[test]
fn periodic_commands_refuse_an_mc_system_naming_the_commands_that_take_it() {
    let scratch = Scratch::new("check-mc-test");
    scratch.write("mc.toml", "cores = 2\nlevels = [\"LO\"]\n[[dags]]\nname = \"g\"\nperiod = \"4ms\"\n[[dags.tasks]]\nname = \"a\"\nwcet = [\"1ms\"]\n");
    let output = scratch.kairos(&["analyze", "mc.toml"]);
    assert_eq!(output.status.code(), Some(2));
    let stderr = text(&output.stderr);
    assert!(
        stderr.contains("error: `kairos analyze` does not take a mixed-criticality DAG system (mc.toml): `kairos synth`, `simulate`, `run`, `report` and `validate-tables` take it\n"),
        "{stderr}"
    );
}
