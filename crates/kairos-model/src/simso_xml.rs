//! SimSo's XML configuration (the file SimSo's `Configuration.save` writes: `<simulation>`
//! with `<sched>`, `<processors>` and `<tasks>`) read into a kairos workload. Times are in
//! milliseconds, written as decimal numbers; they convert exactly (as the duration text
//! "7.3ms" does). What kairos cannot carry is refused or reported:
//! - sporadic and aperiodic tasks with explicit activation lists: refused (kairos's sporadic
//!   tasks have a minimum inter-arrival, not a list);
//! - processor speeds other than 1, cache models, execution-time models other than the WCET:
//!   reported as notes, since kairos's cores are identical and its jobs run their WCET unless
//!   a `bcet` says otherwise.
//!
//! The scheduler's class (`simso.schedulers.EDF`, or a file path) maps to the kairos policy
//! with the same rules where there is one ([`policy_of`]).

use crate::duration_text::parse_duration;
use crate::time::Duration;
use roxmltree::{Document, Node};

/// What a SimSo configuration holds, in kairos terms.
#[derive(Clone, Debug, PartialEq)]
pub struct SimsoImport {
    pub cores: usize,
    /// The simulated time (`duration` cycles over `cycles_per_ms`).
    pub duration: Duration,
    /// SimSo's scheduler class, as written.
    pub scheduler: String,
    /// The kairos policy with the same rules, if any.
    pub policy: Option<&'static str>,
    pub tasks: Vec<SimsoTask>,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SimsoTask {
    pub name: String,
    pub period: Duration,
    pub deadline: Duration,
    pub wcet: Duration,
    pub offset: Duration,
}

/// The kairos policy for a SimSo scheduler class (its last dotted or path component): EDF is
/// global EDF; RM global fixed priority in rate-monotonic order (kairos's default order, which
/// is RM for implicit deadlines); EDZL is EDZL; P_EDF and P_RM partition first as SimSo does
/// (decreasing utilization, first fit), then schedule each core.
pub fn policy_of(class: &str) -> Option<&'static str> {
    let stem = class
        .rsplit(['.', '/'])
        .find(|part| !part.is_empty() && *part != "py")
        .unwrap_or(class);
    match stem {
        "EDF" | "EDF2" => Some("gedf"),
        "RM" => Some("gfp"),
        "EDZL" => Some("edzl"),
        "P_EDF" => Some("pedf"),
        "P_RM" => Some("pfp"),
        _ => None,
    }
}

/// Reads a SimSo XML configuration.
pub fn import_simso(source: &str) -> Result<SimsoImport, String> {
    let document = Document::parse(source).map_err(|e| format!("not XML: {e}"))?;
    let root = document.root_element();
    if root.tag_name().name() != "simulation" {
        return Err(format!(
            "the root element is <{}>, not SimSo's <simulation>",
            root.tag_name().name()
        ));
    }
    let cycles_per_ms: f64 = number(root, "cycles_per_ms")?;
    let cycles: f64 = number(root, "duration")?;
    let duration = ms(
        &format!("{}", cycles / cycles_per_ms),
        "simulation duration",
    )?;
    let mut notes = Vec::new();
    let scheduler = child(root, "sched")?;
    let class = scheduler
        .attribute("class")
        .or_else(|| scheduler.attribute("className"))
        .ok_or("<sched> names no scheduler class")?
        .to_string();
    let processors: Vec<Node> = child(root, "processors")?
        .children()
        .filter(|n| n.has_tag_name("processor"))
        .collect();
    if processors.is_empty() {
        return Err("<processors> has no <processor>".into());
    }
    if processors.iter().any(|p| {
        p.attribute("speed")
            .is_some_and(|s| s.parse::<f64>() != Ok(1.0))
    }) {
        notes
            .push("processor speeds other than 1 are ignored: kairos's cores are identical".into());
    }
    if root.attribute("etm").is_some_and(|e| e != "wcet") {
        notes.push(format!(
            "SimSo's execution-time model {:?} is not carried: kairos jobs run their WCET",
            root.attribute("etm").unwrap_or_default()
        ));
    }
    let tasks = child(root, "tasks")?
        .children()
        .filter(|n| n.has_tag_name("task"))
        .map(task)
        .collect::<Result<Vec<_>, _>>()?;
    Ok(SimsoImport {
        cores: processors.len(),
        duration,
        policy: policy_of(&class),
        scheduler: class,
        tasks,
        notes,
    })
}

fn child<'a>(node: Node<'a, 'a>, name: &str) -> Result<Node<'a, 'a>, String> {
    node.children()
        .find(|n| n.has_tag_name(name))
        .ok_or_else(|| format!("<{}> has no <{name}>", node.tag_name().name()))
}

fn number(node: Node, key: &str) -> Result<f64, String> {
    let text = node
        .attribute(key)
        .ok_or_else(|| format!("<{}> has no {key}", node.tag_name().name()))?;
    text.parse().map_err(|_| {
        format!(
            "<{}> {key}={text:?} is not a number",
            node.tag_name().name()
        )
    })
}

/// A time in milliseconds as SimSo writes it ("10", "7.3", "2.0").
fn ms(text: &str, what: &str) -> Result<Duration, String> {
    parse_duration(&format!("{}ms", text.trim())).map_err(|e| format!("{what} {text:?} ms: {e}"))
}

fn task(node: Node) -> Result<SimsoTask, String> {
    let name = node.attribute("name").unwrap_or("task").to_string();
    let kind = node.attribute("task_type").unwrap_or("Periodic");
    if kind != "Periodic" {
        return Err(format!(
            "task {name}: {kind} tasks (explicit activation dates) have no kairos equivalent; make it periodic"
        ));
    }
    let get = |key: &str| {
        node.attribute(key)
            .ok_or_else(|| format!("task {name} has no {key}"))
            .and_then(|t| ms(t, &format!("task {name}'s {key}")))
    };
    Ok(SimsoTask {
        period: get("period")?,
        deadline: get("deadline")?,
        wcet: get("WCET")?,
        offset: get("activationDate")?,
        name,
    })
}

/// The import as a kairos workload file (TOML), with the run SimSo would make in a comment.
pub fn to_toml(import: &SimsoImport, name: &str) -> String {
    let mut out = format!("# Imported from SimSo: scheduler {}", import.scheduler);
    match import.policy {
        Some(p) => out.push_str(&format!(", kairos policy {p}")),
        None => out.push_str(" (no kairos policy with the same rules)"),
    }
    out.push_str(&format!(", simulated for {}\n", import.duration));
    for note in &import.notes {
        out.push_str(&format!("# note: {note}\n"));
    }
    out.push_str(&format!("name = {name:?}\ncores = {}\n", import.cores));
    for t in &import.tasks {
        out.push_str(&format!(
            "\n[[tasks]]\nname = {:?}\nwcet = \"{}\"\nperiod = \"{}\"\n",
            t.name, t.wcet, t.period
        ));
        if t.deadline != t.period {
            out.push_str(&format!("deadline = \"{}\"\n", t.deadline));
        }
        if !t.offset.is_zero() {
            out.push_str(&format!("offset = \"{}\"\n", t.offset));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

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

    #[test]
    fn a_simso_file_becomes_a_checked_kairos_workload() {
        let import = import_simso(WRITTEN).unwrap();
        assert_eq!((import.cores, import.policy), (2, Some("gedf")));
        assert_eq!(import.duration, Duration::from_secs(1));
        assert_eq!(import.tasks[0].wcet, Duration::from_micros(7300));
        assert_eq!(import.tasks[1].offset, Duration::from_micros(1500));
        let toml = to_toml(&import, "simso");
        let checked = crate::check_source(&toml, crate::Format::Toml);
        let workload = checked.workload.expect("valid");
        assert_eq!(workload.tasks[1].deadline, Duration::from_millis(8));
        assert_eq!(workload.tasks[0].period, Duration::from_millis(20));
    }

    #[test]
    fn what_kairos_cannot_carry_is_refused_or_noted() {
        let sporadic = WRITTEN.replace(
            "task_type=\"Periodic\"/>\n\t</tasks>",
            "task_type=\"Sporadic\"/>\n\t</tasks>",
        );
        assert!(import_simso(&sporadic)
            .unwrap_err()
            .contains("Sporadic tasks"));
        let fast = WRITTEN.replace(
            "id=\"2\" name=\"CPU2\" speed=\"1.0\"",
            "id=\"2\" name=\"CPU2\" speed=\"2.0\"",
        );
        assert_eq!(import_simso(&fast).unwrap().notes.len(), 1);
        assert!(import_simso("<mcsystem/>")
            .unwrap_err()
            .contains("not SimSo's"));
        assert_eq!(policy_of("../schedulers/P_RM.py"), Some("pfp"));
        assert_eq!(policy_of("simso.schedulers.LLF"), None);
    }
}
