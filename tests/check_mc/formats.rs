//! Unknown keys, JSON, TOML syntax and the MC-DAG framework's XML.

use super::*;

#[test]
fn unknown_keys_get_the_closest_key() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]
level = 1

[[dags]]
name = "g"
period = "10ms"
deadlin = "5ms"

[[dags.tasks]]
name = "a"
wcet = ["1ms"]
wcets = ["1ms"]
"#,
        r#"mc.toml:3:1: error: level: unknown key `level`
  hint: did you mean `levels`?
mc.toml:8:1: error: dags[0].deadlin: unknown key `deadlin`
  hint: did you mean `deadline`?
mc.toml:13:1: error: dags[0].tasks[0].wcets: unknown key `wcets`
  hint: did you mean `wcet`?
mc.toml: 3 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn json_has_paths_without_positions() {
    expect(
        "mc.json",
        r#"{"cores": 2, "levels": ["LO", "HI"], "dags": [{"name": "g", "period": "10ms", "edges": [["a", "x"]], "tasks": [{"name": "a", "wcet": ["2ms", "1ms"]}]}]}
"#,
        r#"mc.json: error: dags[0].tasks[0].wcet[1]: wcet at HI (1ms) is below wcet at LO (2ms)
  hint: a task's wcet must not decrease with the level
mc.json: error: dags[0].edges[0][1]: unknown task `x`
  hint: the DAG's tasks: `a`
mc.json: 2 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn valid_json() {
    expect(
        "mc.json",
        r#"{"name": "j", "cores": 2, "levels": ["LO", "HI"], "dags": [{"name": "g", "period": "10ms", "edges": [["a", "b"]], "tasks": [{"name": "a", "wcet": ["2ms", "3ms"]}, {"name": "b", "wcet": ["1ms"]}]}]}
"#,
        r#"mc.json: ok: 1 DAG(s), 2 task(s), 2 level(s) on 2 core(s), utilization LO 0.300, HI 0.300, hyper-period 10ms, 0 warning(s)
"#,
        0,
    );
}

#[test]
fn toml_syntax_errors_come_alone() {
    expect(
        "mc.toml",
        r#"cores = 2
levels = ["LO", "HI"]
[[dags]]
name = "g"
period = 10ms
"#,
        r#"mc.toml:5:10: error: TOML syntax: string values must be quoted, expected literal string
  hint: see https://toml.io for the syntax; durations are strings: wcet = "2ms"
mc.toml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn xml_is_checked_directly() {
    expect(
        "mc.xml",
        r#"<?xml version="1.0" encoding="UTF-8" standalone="no"?>
<mcsystem>
    <mcdag deadline="10" name="g">
        <actor name="a">
            <wcet number="0">2</wcet>
            <wcet number="1">4</wcet>
            <rank>1</rank>
            <fprob>0.0</fprob>
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
"#,
        r#"mc.xml: ok: 1 DAG(s), 2 task(s), 2 level(s) on 2 core(s), utilization LO 0.500, HI 0.400, hyper-period 10ms, 0 warning(s)
"#,
        0,
    );
}

#[test]
fn xml_errors_have_lines_and_columns() {
    expect(
        "bad.xml",
        r#"<mcsystem>
    <mcdag deadline="4" name="g">
        <actor name="a"><wcet number="0">0</wcet><wcet number="1">2</wcet></actor>
        <actor name="b"><wcet number="0">3</wcet><wcet number="2">1</wcet></actor>
        <actor name="c"><wcet number="0">x</wcet></actor>
        <actor name="d"><wcet number="0">5</wcet><colour/></actor>
        <ports><port name="p" srcActor="a" dstActor="bb"/></ports>
    </mcdag>
    <cores number="2"/>
    <levels number="2"/>
</mcsystem>
"#,
        r#"bad.xml:3:25: error: mcdag[0].actor[0].wcet[0]: wcet at LO is 0 but the task runs at HI (wcet 2)
  hint: a task runs at every level up to its own: a 0 can only be followed by 0 (discard model)
bad.xml:4:64: error: mcdag[0].actor[1].wcet[1].number: level 2 does not exist: the system has 2 level(s), numbered from 0
  hint: see <levels number="N"/>
bad.xml:5:25: error: mcdag[0].actor[2].wcet[0]: a wcet must be a whole number, found "x"
  hint: the file's times are whole numbers of slots (--slot sets a slot's length)
bad.xml:6:50: warning: mcdag[0].actor[3]: unknown element <colour> (ignored)
  hint: known here: <wcet>, <rank>, <fprob>
bad.xml:7:54: error: mcdag[0].port[0].dstActor: unknown task `bb`
  hint: did you mean `b`?
bad.xml: 4 error(s), 1 warning(s)
"#,
        2,
    );
}

/// An actor without a name does not hide an edge to a task that does not exist; a missing
/// `<cores>` is explained without pointing `check` users at an option it does not take.
#[test]
fn xml_unnamed_actor_does_not_hide_an_unknown_edge_end() {
    expect(
        "bad.xml",
        r#"<mcsystem>
  <mcdag name="g" deadline="10">
    <actor><wcet number="0">1</wcet></actor>
    <actor name="b"><wcet number="0">1</wcet></actor>
    <ports><port name="p" srcActor="b" dstActor="zz"/></ports>
  </mcdag>
  <levels number="2"/>
</mcsystem>
"#,
        r#"bad.xml:1:1: error: mcsystem: missing <cores number="M"/> in <mcsystem>
  hint: say how many identical cores: <cores number="4"/> in <mcsystem> (import, synth, simulate, validate-tables and run also take --cores)
bad.xml:3:5: error: mcdag[0].actor[0]: missing attribute `name` on <actor>
  hint: write <actor name="...">
bad.xml:5:50: error: mcdag[0].port[0].dstActor: unknown task `zz`
  hint: the DAG's tasks: `b` (a task without a readable name, reported above, may be the one meant)
bad.xml: 3 error(s), 0 warning(s)
"#,
        2,
    );
}

#[test]
fn xml_syntax_error() {
    expect(
        "bad.xml",
        r#"<mcsystem>
  <mcdag name="g" deadline="4">
  </mcdg>
</mcsystem>
"#,
        r#"bad.xml:3:3: error: XML syntax: expected 'mcdag' tag, not 'mcdg'
  hint: the MC-DAG framework writes <mcsystem> with <mcdag>, <cores> and <levels> elements
bad.xml: 1 error(s), 0 warning(s)
"#,
        2,
    );
}
