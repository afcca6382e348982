//! A SimSo configuration read element by element, every problem at the line and column of the
//! element or attribute it is about; then the workload's rules, checked on the kairos file
//! written from it, located back at the attributes each field came from.

use super::{policy_of, to_toml, SimsoImport, SimsoTask};
use crate::decode::MAX_DURATION;
use crate::diagnostics::{Diagnostic, Diagnostics};
use crate::duration_text::parse_duration;
use crate::positions::LineIndex;
use crate::time::Duration;
use crate::workload::Workload;
use crate::{check_source, xml, Format};
use roxmltree::Node;

/// What reading a SimSo configuration found.
#[derive(Debug)]
pub struct SimsoChecked {
    /// What the file holds, when it has no error.
    pub import: Option<SimsoImport>,
    /// The workload as a kairos file (what `kairos import simso` writes), with the workload.
    pub text: Option<String>,
    pub workload: Option<Workload>,
    /// Every problem, located in the XML, in source order.
    pub diagnostics: Diagnostics,
}

const HINT: &str =
    "SimSo's Configuration.save writes <simulation> with <sched>, <processors> and <tasks>";

/// Reads the SimSo configuration `source` into the workload named `name`.
pub fn check_simso(source: &str, name: &str) -> SimsoChecked {
    let lines = LineIndex::new(source);
    let mut reader = Reader::default();
    let mut out = Diagnostics::default();
    let import = match xml::parse(source, &lines, HINT) {
        Ok(document) => reader.simulation(document.root_element()),
        Err(refused) => {
            out.push(refused);
            None
        }
    };
    let mut checked = SimsoChecked {
        import: None,
        text: None,
        workload: None,
        diagnostics: Diagnostics::default(),
    };
    for (offset, d) in std::mem::take(&mut reader.out) {
        out.push(d.at_position(Some(lines.position(offset))));
    }
    if let Some(import) = import.filter(|_| !out.has_errors()) {
        let text = to_toml(&import, name);
        let rules = check_source(&text, Format::Toml);
        // The rules ran on the file written from the XML: their places are the XML's.
        for d in rules.diagnostics.0 {
            let offset = reader.places.of(d.path.as_deref());
            out.push(d.at_position(Some(lines.position(offset))));
        }
        checked.workload = rules.workload.filter(|_| !out.has_errors());
        checked.text = Some(text);
        checked.import = Some(import);
    }
    out.sort_by_position();
    checked.diagnostics = out;
    checked
}

/// Where each part of the configuration starts, for the rules' diagnostics.
#[derive(Default)]
struct Places {
    root: usize,
    processors: usize,
    tasks: usize,
    task: Vec<TaskPlaces>,
}

/// Where a task's element and the attributes of its fields start.
#[derive(Clone, Copy)]
struct TaskPlaces {
    element: usize,
    name: usize,
    wcet: usize,
    period: usize,
    deadline: usize,
    offset: usize,
}

impl Places {
    /// Where the field at `path` of the kairos file written from the XML came from.
    fn of(&self, path: Option<&str>) -> usize {
        let path = path.unwrap_or("");
        if path == "cores" {
            return self.processors;
        }
        let Some(rest) = path.strip_prefix("tasks") else {
            return self.root;
        };
        let task = (rest.strip_prefix('['))
            .and_then(|r| r.split_once(']'))
            .and_then(|(index, field)| Some((self.task.get(index.parse::<usize>().ok()?)?, field)));
        let Some((task, field)) = task else {
            return self.tasks;
        };
        let field = field.trim_start_matches('.');
        let field = field.split(['.', '[']).next().unwrap_or("");
        match field {
            "name" => task.name,
            "wcet" => task.wcet,
            "period" => task.period,
            "deadline" => task.deadline,
            "offset" => task.offset,
            _ => task.element,
        }
    }
}

/// The reader: diagnostics at byte offsets (located once the walk is done) and the places.
#[derive(Default)]
struct Reader {
    out: Vec<(usize, Diagnostic)>,
    places: Places,
}

impl Reader {
    fn error(&mut self, offset: usize, path: &str, message: String) {
        self.out
            .push((offset, Diagnostic::error(message).at_path(path.to_string())));
    }

    fn simulation(&mut self, root: Node<'_, '_>) -> Option<SimsoImport> {
        self.places.root = root.range().start;
        if root.tag_name().name() != "simulation" {
            let message = format!(
                "the root element is <{}>, not SimSo's <simulation>",
                root.tag_name().name()
            );
            self.error(root.range().start, "simulation", message);
            return None;
        }
        let duration = self.simulated_time(root);
        let mut notes = Vec::new();
        let class = self.child(root, "sched").and_then(|sched| {
            let class = sched.attribute("class").or(sched.attribute("className"));
            if class.is_none() {
                let message = "<sched> names no scheduler class".to_string();
                self.error(sched.range().start, "sched", message);
            }
            class
        });
        let cores = self.processors(root, &mut notes);
        if root.attribute("etm").is_some_and(|e| e != "wcet") {
            notes.push(format!(
                "SimSo's execution-time model {:?} is not carried: kairos jobs run their WCET",
                root.attribute("etm").unwrap_or_default()
            ));
        }
        let tasks = self.child(root, "tasks").map(|tasks| {
            self.places.tasks = tasks.range().start;
            let elements = tasks.children().filter(|n| n.has_tag_name("task"));
            elements
                .enumerate()
                .map(|(i, node)| self.task(node, i))
                .collect::<Vec<_>>()
        });
        let tasks = tasks?.into_iter().collect::<Option<Vec<_>>>()?;
        Some(SimsoImport {
            cores: cores?,
            duration: duration?,
            policy: policy_of(class?),
            scheduler: class?.to_string(),
            tasks,
            notes,
        })
    }

    /// The simulated time: `duration` cycles over `cycles_per_ms`.
    fn simulated_time(&mut self, root: Node<'_, '_>) -> Option<Duration> {
        let per_ms = self.number(root, "cycles_per_ms", "simulation", true);
        let cycles = self.number(root, "duration", "simulation", true);
        let nanos = cycles? / per_ms? * 1e6;
        if nanos.round() > MAX_DURATION.as_nanos() as f64 || nanos.round() < 1.0 {
            let at = attribute_at(root, "duration").unwrap_or(root.range().start);
            let message = format!(
                "{} cycles at {} per ms simulate {nanos} ns: kairos simulates from 1 ns to 2^60 ns",
                cycles?, per_ms?
            );
            self.error(at, "simulation.duration", message);
            return None;
        }
        Some(Duration::from_nanos(nanos.round() as u64))
    }

    fn processors(&mut self, root: Node<'_, '_>, notes: &mut Vec<String>) -> Option<usize> {
        let processors = self.child(root, "processors")?;
        self.places.processors = processors.range().start;
        let all: Vec<Node> = (processors.children())
            .filter(|n| n.has_tag_name("processor"))
            .collect();
        if all.is_empty() {
            let message = "<processors> has no <processor>".to_string();
            self.error(processors.range().start, "processors", message);
            return None;
        }
        let speed = |p: &Node| p.attribute("speed").map(|s| s.trim().parse::<f64>());
        if all.iter().any(|p| speed(p).is_some_and(|s| s != Ok(1.0))) {
            let note = "processor speeds other than 1 are ignored: kairos's cores are identical";
            notes.push(note.into());
        }
        Some(all.len())
    }

    fn child<'a, 'i>(&mut self, node: Node<'a, 'i>, name: &str) -> Option<Node<'a, 'i>> {
        let found = node.children().find(|n| n.has_tag_name(name));
        if found.is_none() {
            let parent = node.tag_name().name();
            let message = format!("<{parent}> has no <{name}>");
            self.error(node.range().start, parent, message);
        }
        found
    }

    fn task(&mut self, node: Node<'_, '_>, index: usize) -> Option<SimsoTask> {
        let path = format!("task[{index}]");
        let element = node.range().start;
        let at = |key: &str| attribute_at(node, key).unwrap_or(element);
        self.places.task.push(TaskPlaces {
            element,
            name: at("name"),
            wcet: at("WCET"),
            period: at("period"),
            deadline: at("deadline"),
            offset: at("activationDate"),
        });
        let name = node.attribute("name").unwrap_or("task").to_string();
        let kind = node.attribute("task_type").unwrap_or("Periodic");
        let periodic = kind == "Periodic";
        if !periodic {
            let message = format!(
                "task {name}: {kind} tasks (explicit activation dates) have no kairos equivalent; make it periodic"
            );
            self.error(at("task_type"), &format!("{path}.task_type"), message);
        }
        let period = self.time(node, "period", &path);
        let deadline = self.time(node, "deadline", &path);
        let wcet = self.time(node, "WCET", &path);
        let offset = self.time(node, "activationDate", &path);
        Some(SimsoTask {
            period: period?,
            deadline: deadline?,
            wcet: wcet?,
            offset: offset?,
            name,
        })
        .filter(|_| periodic)
    }

    /// A time in milliseconds as SimSo writes it ("10", "7.3", "2.0").
    fn time(&mut self, node: Node<'_, '_>, key: &str, path: &str) -> Option<Duration> {
        self.number(node, key, path, false)?;
        let text = node.attribute(key)?.trim();
        match parse_duration(&format!("{text}ms")) {
            Ok(time) => Some(time),
            Err(e) => {
                let at = attribute_at(node, key).unwrap_or(node.range().start);
                self.error(
                    at,
                    &format!("{path}.{key}"),
                    format!("{key}=\"{text}\" ms: {e}"),
                );
                None
            }
        }
    }

    /// The number in attribute `key` of `node`: finite, not negative, and more than zero when
    /// `positive`.
    fn number(&mut self, node: Node<'_, '_>, key: &str, path: &str, positive: bool) -> Option<f64> {
        let element = node.tag_name().name();
        let Some(text) = node.attribute(key) else {
            let message = format!("<{element}> has no {key}");
            self.error(node.range().start, &format!("{path}.{key}"), message);
            return None;
        };
        let problem = match text.trim().parse::<f64>() {
            Err(_) => "is not a number",
            Ok(v) if !v.is_finite() => "is not a finite number",
            Ok(v) if v < 0.0 || (v == 0.0 && text.trim().starts_with('-')) => "is negative",
            Ok(v) if positive && v == 0.0 => "must be greater than zero",
            Ok(v) => return Some(v),
        };
        let at = attribute_at(node, key).unwrap_or(node.range().start);
        let message = format!("<{element}> {key}={text:?} {problem}");
        self.error(at, &format!("{path}.{key}"), message);
        None
    }
}

/// Where the value of attribute `key` of `node` starts, if it has one.
fn attribute_at(node: Node<'_, '_>, key: &str) -> Option<usize> {
    (node.attributes())
        .find(|a| a.name() == key)
        .map(|a| a.range_value().start)
}
