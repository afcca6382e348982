//! Valid workloads and their TOML and JSON spellings, for the round trip.

use super::*;

/// A duration up to `max`: small, round, or anywhere in range.
pub(crate) fn duration_up_to(min: u64, max: u64) -> impl Strategy<Value = Duration> {
    assert!(min <= max);
    let (lo_ms, hi_ms) = (min.div_ceil(1_000_000), max / 1_000_000);
    let whole_ms = if lo_ms <= hi_ms {
        (lo_ms..=hi_ms.min(lo_ms + 1000))
            .prop_map(|ms| ms * 1_000_000)
            .boxed()
    } else {
        Just(min).boxed()
    };
    prop_oneof![(min..=max.min(min + 10_000)), whole_ms, (min..=max)].prop_map(Duration::from_nanos)
}

pub(crate) fn max_ns() -> u64 {
    MAX_DURATION.as_nanos()
}

/// How to spell a duration: every spelling must read back to the same value.
pub(crate) fn spell(d: Duration, style: u8) -> String {
    let ns = d.as_nanos();
    match style % 5 {
        0 => format!("{ns}ns"),
        1 => d.to_string(),
        2 => format!("{}.{:09}s", ns / 1_000_000_000, ns % 1_000_000_000),
        3 if ns.is_multiple_of(1_000) => format!("{}µs", ns / 1_000),
        4 if ns.is_multiple_of(1_000_000) => format!(" {} ms ", ns / 1_000_000),
        _ => format!("{}.{:06}ms", ns / 1_000_000, ns % 1_000_000),
    }
}

/// A task that obeys every rule, and how to write it (spellings, which defaults to omit).
pub(crate) fn valid_task(cores: usize) -> impl Strategy<Value = (Task, Vec<u8>)> {
    let max = max_ns();
    (
        duration_up_to(1, max),
        duration_up_to(1, max),
        duration_up_to(0, max),
        any::<bool>(),
        prop::option::of(1u32..=u32::MAX),
        prop::option::of(0..cores),
        prop::collection::vec(any::<u8>(), 16),
    )
        .prop_flat_map(
            move |(wcet, period, offset, sporadic, priority, core, styles)| {
                (
                    Just((wcet, period, offset, sporadic, priority, core, styles)),
                    duration_up_to(0, wcet.as_nanos()),
                    duration_up_to(wcet.as_nanos(), max),
                    duration_up_to(period.as_nanos(), max),
                    (
                        any::<bool>(),
                        any::<u64>(),
                        duration_up_to(0, max),
                        any::<u64>(),
                    ),
                )
            },
        )
        .prop_map(
            |(
                (wcet, period, offset, sporadic, priority, core, styles),
                bcet,
                deadline,
                mia,
                parts,
            )| {
                let imprecise = imprecise_parts(wcet, deadline, parts);
                let task = Task {
                    name: String::new(),
                    wcet,
                    bcet,
                    period,
                    deadline,
                    offset,
                    arrival: if sporadic {
                        Arrival::Sporadic {
                            max_interarrival: mia,
                        }
                    } else {
                        Arrival::Periodic
                    },
                    priority: priority.map(Priority::from_level),
                    core: core.map(CoreId),
                    imprecise,
                };
                (task, styles)
            },
        )
}

/// Imprecise parts for a task of this wcet and deadline, when `imprecise` says so and the wcet
/// can be split into a mandatory and a wind-up part of at least 1 ns each: `m + w` is the wcet,
/// and the optional deadline, when there is one, leaves the wind-up room.
pub(crate) fn imprecise_parts(
    wcet: Duration,
    deadline: Duration,
    (imprecise, split, optional, od): (bool, u64, Duration, u64),
) -> Option<ImpreciseParts> {
    let c = wcet.as_nanos();
    if !imprecise || c < 2 {
        return None;
    }
    let mandatory = 1 + split % (c - 1);
    let windup = c - mandatory;
    let latest = deadline.as_nanos() - windup;
    Some(ImpreciseParts {
        mandatory: Duration::from_nanos(mandatory),
        optional,
        windup: Duration::from_nanos(windup),
        optional_deadline: (od % 2 == 0).then(|| Duration::from_nanos((od / 2) % (latest + 1))),
    })
}

/// Any name a file may give: not blank, no control character ([`kairos_model::names`]).
fn valid_name() -> impl Strategy<Value = String> {
    any::<String>().prop_filter("a name kairos accepts", |name| {
        kairos_model::names::name_problem(name).is_none()
    })
}

pub(crate) fn valid_workload() -> impl Strategy<Value = (Workload, Vec<u8>)> {
    (1usize..=8)
        .prop_flat_map(|cores| {
            (
                Just(cores),
                prop::option::of(valid_name()),
                prop::collection::hash_set(valid_name(), 1..6),
                prop::collection::vec(valid_task(cores), 5),
                (
                    duration_up_to(0, max_ns()),
                    duration_up_to(0, max_ns()),
                    duration_up_to(0, max_ns()),
                ),
                prop::collection::vec(any::<u8>(), 8),
            )
        })
        .prop_map(|(cores, name, names, tasks, (s, c, m), styles)| {
            let tasks: Vec<(Task, Vec<u8>)> = names
                .into_iter()
                .zip(tasks)
                .map(|(name, (task, styles))| (Task { name, ..task }, styles))
                .collect();
            let mut all_styles = styles;
            // Zero half the time, so the defaults are exercised.
            let half = |style: u8, d: Duration| {
                if style.is_multiple_of(2) {
                    d
                } else {
                    Duration::ZERO
                }
            };
            let overheads = Overheads::fixed(
                half(all_styles[0], s),
                half(all_styles[1], c),
                half(all_styles[2], m),
            );
            for (_, s) in &tasks {
                all_styles.extend(s);
            }
            let workload = Workload {
                name,
                cores,
                tasks: tasks.into_iter().map(|(t, _)| t).collect(),
                overheads,
            };
            (workload, all_styles)
        })
}

/// Keys with their values, in the order they are written.
pub(crate) type Entries = Vec<(String, Lit)>;

/// The fields of `w` (top level, overheads, each task) as key and value pairs, omitting
/// defaults and choosing spellings and field order as `styles` says.
pub(crate) fn fields(w: &Workload, styles: &[u8]) -> (Entries, Entries, Vec<Entries>) {
    let mut s = styles.iter().copied().cycle();
    let mut next = || s.next().unwrap_or(0);
    let mut top = vec![("cores".to_string(), Lit::Int(w.cores as u64))];
    if let Some(name) = &w.name {
        top.push(("name".into(), Lit::Str(name.clone())));
    }
    let mut overheads = Vec::new();
    for (key, d) in [
        ("scheduling", w.overheads.scheduling.median()),
        ("context_switch", w.overheads.context_switch.median()),
        ("migration", w.overheads.migration.median()),
    ] {
        let style = next();
        if !d.is_zero() || style % 3 == 0 {
            overheads.push((key.to_string(), Lit::Str(spell(d, style / 3))));
        }
    }
    let mut tasks = Vec::new();
    for t in &w.tasks {
        let mut entries = vec![
            ("name".to_string(), Lit::Str(t.name.clone())),
            ("period".to_string(), Lit::Str(spell(t.period, next()))),
        ];
        match &t.imprecise {
            None => entries.push(("wcet".to_string(), Lit::Str(spell(t.wcet, next())))),
            Some(p) => {
                for (key, d) in [
                    ("mandatory", p.mandatory),
                    ("optional", p.optional),
                    ("windup", p.windup),
                ] {
                    entries.push((key.to_string(), Lit::Str(spell(d, next()))));
                }
                if let Some(od) = p.optional_deadline {
                    entries.push(("optional_deadline".into(), Lit::Str(spell(od, next()))));
                }
            }
        }
        let mut optional = |key: &str, d: Duration, default: Duration, entries: &mut Vec<_>| {
            let style = next();
            if d != default || style % 2 == 0 {
                entries.push((key.to_string(), Lit::Str(spell(d, style / 2))));
            }
        };
        optional("bcet", t.bcet, t.wcet, &mut entries);
        optional("deadline", t.deadline, t.period, &mut entries);
        optional("offset", t.offset, Duration::ZERO, &mut entries);
        match t.arrival {
            Arrival::Sporadic { max_interarrival } => {
                entries.push(("kind".into(), Lit::Str("sporadic".into())));
                optional("max_interarrival", max_interarrival, t.period, &mut entries);
            }
            Arrival::Periodic => {
                if next() % 2 == 0 {
                    entries.push(("kind".into(), Lit::Str("periodic".into())));
                }
            }
        }
        if let Some(p) = t.priority {
            entries.push(("priority".into(), Lit::Int(u64::from(p.level()))));
        }
        if let Some(c) = t.core {
            entries.push(("core".into(), Lit::Int(c.0 as u64)));
        }
        // Field order must not matter.
        let k = entries.len();
        entries.rotate_left(usize::from(next()) % k);
        tasks.push(entries);
    }
    (top, overheads, tasks)
}

pub(crate) enum Lit {
    Str(String),
    Int(u64),
}

impl Lit {
    pub(crate) fn toml(&self) -> String {
        match self {
            Lit::Str(s) => toml_string(s),
            Lit::Int(i) => i.to_string(),
        }
    }
    pub(crate) fn json(&self) -> String {
        match self {
            Lit::Str(s) => json_string(s),
            Lit::Int(i) => i.to_string(),
        }
    }
}

pub(crate) fn workload_toml(w: &Workload, styles: &[u8]) -> String {
    let (top, overheads, tasks) = fields(w, styles);
    let line = |(k, v): &(String, Lit)| format!("{k} = {}\n", v.toml());
    let mut out: String = top.iter().map(line).collect();
    if !overheads.is_empty() {
        out.push_str("\n[overheads]\n");
        out.extend(overheads.iter().map(line));
    }
    for task in &tasks {
        out.push_str("\n[[tasks]]\n");
        out.extend(task.iter().map(line));
    }
    out
}

pub(crate) fn workload_json(w: &Workload, styles: &[u8]) -> String {
    let (top, overheads, tasks) = fields(w, styles);
    let object = |entries: &[(String, Lit)]| {
        entries
            .iter()
            .map(|(k, v)| format!("{}: {}", json_string(k), v.json()))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let tasks: Vec<String> = tasks.iter().map(|t| format!("{{{}}}", object(t))).collect();
    let mut out = format!("{{{}", object(&top));
    if !overheads.is_empty() {
        out.push_str(&format!(", \"overheads\": {{{}}}", object(&overheads)));
    }
    out.push_str(&format!(",\n\"tasks\": [\n{}\n]}}", tasks.join(",\n")));
    out
}
