//! Inputs that are the wrong kind, nest without end or hold bad numbers: every command refuses
//! them through the one loader, located, with exit 2 (the library's unit tests check the
//! positions themselves).

mod common;

use common::{stderr, stdout, Scratch};
use std::process::{Command, Output};

fn kairos(dir: &Scratch, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .current_dir(&dir.0)
        .output()
        .expect("run kairos")
}

/// An MC-DAG framework file whose `<mcsystem>` holds `depth` elements each inside the one
/// before, on one line.
fn nested_mcdag(depth: usize) -> String {
    format!(
        "<mcsystem>{}{}</mcsystem>\n",
        "<a>".repeat(depth),
        "</a>".repeat(depth)
    )
}

const WORKLOAD: &str = "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n";

#[test]
fn commands_that_read_a_file_refuse_mc_dag_xml_as_what_it_is() {
    let dir = Scratch::new("robust-kind");
    dir.write("system.xml", nested_mcdag(3));
    dir.write("w.toml", WORKLOAD);
    for args in [
        &["experiment", "system.xml"][..],
        &["analyze", "system.xml"],
        &["analyze", "w.toml", "--overheads", "system.xml"],
        &["simulate", "w.toml", "--overheads", "system.xml"],
        &["import", "simso", "system.xml"],
    ] {
        let out = kairos(&dir, args);
        let err = stderr(&out);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        let said = match args.contains(&"--overheads") {
            true => "not an overhead profile",
            false => "`kairos synth`",
        };
        assert!(
            err.contains("MC-DAG framework's XML") && err.contains(said),
            "{args:?}: {err}"
        );
        assert!(!err.contains("TOML"), "{args:?} read XML as TOML: {err}");
    }
}

#[test]
fn deeply_nested_xml_is_refused_located_by_check_and_every_reader() {
    let dir = Scratch::new("robust-deep");
    dir.write("deep.xml", nested_mcdag(100_000));
    let out = kairos(&dir, &["check", "deep.xml", "--json"]);
    assert_eq!(out.status.code(), Some(2), "{}", stderr(&out));
    let report: serde_json::Value = serde_json::from_str(&stdout(&out)).unwrap();
    let d = &report["diagnostics"][0];
    assert!(
        d["message"].as_str().unwrap().contains("nest deeper"),
        "{d}"
    );
    // <mcsystem> (10 characters) is level one; each <a> is 3 characters: the 64th <a> is the
    // first past the bound of 64.
    assert_eq!(
        (d["line"].as_u64(), d["column"].as_u64()),
        (Some(1), Some(10 + 3 * 63 + 1))
    );
    for command in ["synth", "simulate", "experiment"] {
        let out = kairos(&dir, &[command, "deep.xml"]);
        assert_eq!(out.status.code(), Some(2), "{command}: {}", stderr(&out));
    }
}

#[test]
fn a_toml_file_nested_too_deep_is_refused_with_a_position() {
    let dir = Scratch::new("robust-toml");
    let key = vec!["k"; 3000].join(".");
    dir.write("keys.toml", format!("cores = 1\n{key} = 1\n"));
    let out = kairos(&dir, &["check", "keys.toml"]);
    assert_eq!(out.status.code(), Some(2));
    // The 65th segment of "k." pairs starts at column 129 of line 2.
    assert!(
        stdout(&out).starts_with("keys.toml:2:129: error: table headers, dotted keys"),
        "{}",
        stdout(&out)
    );
}

const SIMSO: &str = r#"<?xml version="1.0" ?>
<simulation cycles_per_ms="0" duration="1000000000" etm="wcet">
	<sched class="simso.schedulers.EDF"/>
	<processors>
		<processor id="1" name="CPU1" speed="1.0"/>
	</processors>
	<tasks>
		<task WCET="NaN" activationDate="0" deadline="20" name="T1" period="20" task_type="Periodic"/>
		<task WCET="2" activationDate="0" deadline="8" name="T2" period="-1" task_type="Periodic"/>
	</tasks>
</simulation>
"#;

#[test]
fn simso_import_reports_every_bad_number_at_its_attribute() {
    let dir = Scratch::new("robust-simso");
    dir.write("s.xml", SIMSO);
    let out = kairos(&dir, &["import", "simso", "s.xml"]);
    let err = stderr(&out);
    assert_eq!(out.status.code(), Some(2), "{err}");
    assert!(!err.contains("NaNms"), "{err}");
    // Columns counted in the text above (a tab is one character).
    for expected in [
        "s.xml:2:28: error: simulation.cycles_per_ms: <simulation> cycles_per_ms=\"0\" must be greater than zero",
        "s.xml:8:15: error: task[0].WCET: <task> WCET=\"NaN\" is not a finite number",
        "s.xml:9:68: error: task[1].period: <task> period=\"-1\" is negative",
    ] {
        assert!(err.contains(expected), "missing {expected:?} in:\n{err}");
    }
}
