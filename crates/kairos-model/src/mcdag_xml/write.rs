//! Writing a system as the MC-DAG framework's XML, one slot lasting a given duration.

use super::*;

/// The system in the MC-DAG framework's XML, with one slot lasting `slot`. Fails when a
/// period or WCET is not a whole number of slots, or a deadline differs from its period (the
/// format has only one value).
pub fn to_xml(system: &McSystem, slot: Duration) -> Result<String, String> {
    if slot.is_zero() {
        return Err("the slot length must be greater than zero".into());
    }
    let in_slots = |d: Duration, what: &str| -> Result<u64, String> {
        if d.as_nanos().is_multiple_of(slot.as_nanos()) {
            Ok(d.as_nanos() / slot.as_nanos())
        } else {
            Err(format!("{what} {d} is not a whole number of {slot} slots"))
        }
    };
    let levels = system.level_count();
    let mut out =
        String::from("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n<mcsystem>\n");
    for dag in &system.dags {
        if dag.deadline != dag.period {
            return Err(format!(
                "DAG `{}` has a deadline ({}) shorter than its period ({}): the XML format has only one value",
                dag.name, dag.deadline, dag.period
            ));
        }
        out.push_str(&format!(
            "    <mcdag deadline=\"{}\" name=\"{}\">\n",
            in_slots(dag.period, &format!("the period of `{}`", dag.name))?,
            escape(&dag.name)
        ));
        for task in &dag.tasks {
            out.push_str(&format!(
                "        <actor name=\"{}\">\n",
                escape(&task.name)
            ));
            for level in 0..levels {
                let value = match task.wcet_at(level) {
                    Some(w) => in_slots(w, &format!("the wcet of `{}/{}`", dag.name, task.name))?,
                    None => 0,
                };
                out.push_str(&format!(
                    "            <wcet number=\"{level}\">{value}</wcet>\n"
                ));
            }
            out.push_str("        </actor>\n");
        }
        out.push_str("        <ports>\n");
        for (i, &(from, to)) in dag.edges.iter().enumerate() {
            out.push_str(&format!(
                "            <port dstActor=\"{}\" name=\"p{i}\" srcActor=\"{}\"/>\n",
                escape(&dag.tasks[to].name),
                escape(&dag.tasks[from].name)
            ));
        }
        out.push_str("        </ports>\n    </mcdag>\n");
    }
    out.push_str(&format!(
        "    <cores number=\"{}\"/>\n    <levels number=\"{levels}\"/>\n</mcsystem>\n",
        system.cores
    ));
    Ok(out)
}

fn escape(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // A reference to a character XML forbids is itself forbidden (XML 1.0, section 4.1).
            '\t' | '\n' | '\r' => out.push_str(&format!("&#{};", c as u32)),
            c if !crate::names::is_xml_char(c) => {}
            c => out.push(c),
        }
    }
    out
}
