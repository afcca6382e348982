//! Properties of `check_source`, the entry point every kairos command feeds user files to:
//!
//! 1. it never panics, whatever the bytes (decoded lossily), in both formats;
//! 2. on structured-but-random documents (known keys with wild values) it never panics, and a
//!    workload it returns has no error diagnostics and satisfies the model's invariants;
//! 3. a valid workload written out as TOML or JSON text is read back exactly.

use kairos_model::decode::{MAX_CORES, MAX_DURATION};
use kairos_model::{
    check_source, Arrival, Checked, CoreId, Duration, Format, ImpreciseParts, Overheads, Priority,
    Task, Workload,
};
use proptest::prelude::*;
use std::collections::HashSet;

// ---- invariants --------------------------------------------------------------------------

/// What must hold of every result of `check_source` on `source`.
fn check_invariants(checked: &Checked, source: &str) -> Result<(), TestCaseError> {
    let lines = source.split('\n').count();
    for d in checked.diagnostics.iter() {
        prop_assert!(!d.message.is_empty(), "empty message: {d:?}");
        if let Some(p) = d.position {
            prop_assert!(p.line >= 1 && p.column >= 1, "positions are 1-based: {d:?}");
            prop_assert!(
                p.line <= lines,
                "line {} past the end ({lines} lines)",
                p.line
            );
        }
    }
    // A workload exactly when there is no error: no silent refusal, no error let through.
    prop_assert_eq!(
        checked.workload.is_some(),
        !checked.diagnostics.has_errors(),
        "diagnostics: {:?}",
        checked.diagnostics
    );
    let Some(w) = &checked.workload else {
        return Ok(());
    };
    prop_assert!(w.cores >= 1 && w.cores <= MAX_CORES, "cores {}", w.cores);
    prop_assert!(!w.tasks.is_empty());
    let Overheads {
        scheduling,
        context_switch,
        migration,
    } = w.overheads;
    for d in [scheduling, context_switch, migration] {
        prop_assert!(d.median() <= MAX_DURATION);
    }
    let mut names = HashSet::new();
    for t in &w.tasks {
        prop_assert!(names.insert(t.name.as_str()), "duplicate name {:?}", t.name);
        prop_assert!(!t.wcet.is_zero() && !t.period.is_zero() && !t.deadline.is_zero());
        prop_assert!(t.wcet <= t.deadline, "{t:?}");
        prop_assert!(t.bcet <= t.wcet, "{t:?}");
        let mut durations = vec![t.wcet, t.bcet, t.period, t.deadline, t.offset];
        if let Arrival::Sporadic { max_interarrival } = t.arrival {
            prop_assert!(max_interarrival >= t.period, "{t:?}");
            durations.push(max_interarrival);
        }
        for d in durations {
            prop_assert!(d <= MAX_DURATION, "{d} in {t:?}");
        }
        if let Some(p) = t.priority {
            prop_assert!(p.level() >= 1);
        }
        if let Some(c) = t.core {
            prop_assert!(c.0 < w.cores);
        }
    }
    Ok(())
}

fn check_both(source: &str) -> Result<(), TestCaseError> {
    for format in [Format::Toml, Format::Json] {
        let checked = check_source(source, format);
        check_invariants(&checked, source)?;
    }
    Ok(())
}

// ---- (1) arbitrary text ------------------------------------------------------------------

/// Text made of the characters workload files are made of, so parsers get past the first byte.
fn tokenish_text() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("cores".to_string()),
        Just("tasks".to_string()),
        Just("[[tasks]]".to_string()),
        Just("name".to_string()),
        Just("wcet".to_string()),
        Just("period".to_string()),
        Just("\"5ms\"".to_string()),
        Just(" = ".to_string()),
        Just("\n".to_string()),
        Just("{".to_string()),
        Just("}".to_string()),
        Just("[".to_string()),
        Just("]".to_string()),
        Just(",".to_string()),
        Just(":".to_string()),
        Just("\"".to_string()),
        "[0-9a-z._\\-+ \t#\"'\\\\]{1,6}",
        "\\PC{1,3}",
    ];
    prop::collection::vec(token, 0..64).prop_map(|parts| parts.concat())
}

// ---- (2) structured documents ------------------------------------------------------------

/// A generated value, rendered to TOML or JSON.
#[derive(Clone, Debug)]
enum V {
    Str(String),
    /// A literal with its TOML and JSON spellings (numbers, booleans, dates).
    Raw(String, String),
    Arr(Vec<V>),
    Tab(Vec<(String, V)>),
}

fn toml_string(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 || c == '\u{7f}' => {
                out.push_str(&format!("\\u{:04X}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

fn toml_key(k: &str) -> String {
    if !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        k.to_string()
    } else {
        toml_string(k)
    }
}

fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialize")
}

impl V {
    fn toml(&self) -> String {
        match self {
            V::Str(s) => toml_string(s),
            V::Raw(t, _) => t.clone(),
            V::Arr(items) => format!(
                "[{}]",
                items.iter().map(V::toml).collect::<Vec<_>>().join(", ")
            ),
            V::Tab(entries) => format!(
                "{{{}}}",
                entries
                    .iter()
                    .map(|(k, v)| format!("{} = {}", toml_key(k), v.toml()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }

    fn json(&self) -> String {
        match self {
            V::Str(s) => json_string(s),
            V::Raw(_, j) => j.clone(),
            V::Arr(items) => format!(
                "[{}]",
                items.iter().map(V::json).collect::<Vec<_>>().join(", ")
            ),
            V::Tab(entries) => format!(
                "{{{}}}",
                entries
                    .iter()
                    .map(|(k, v)| format!("{}: {}", json_string(k), v.json()))
                    .collect::<Vec<_>>()
                    .join(", ")
            ),
        }
    }
}

fn raw(both: &str) -> V {
    V::Raw(both.to_string(), both.to_string())
}

/// Duration texts, valid and not.
fn duration_text() -> impl Strategy<Value = String> {
    let unit = prop::sample::select(vec!["ns", "us", "µs", "ms", "s"]);
    let weird = prop::sample::select(vec![
        "5ms",
        "-1s",
        "1e9s",
        "1E3ms",
        "",
        " ",
        "0ns",
        "0ms",
        "1.5ns",
        "0.0005us",
        "5",
        "5h",
        "5 m s",
        " 3 ms ",
        "+2ms",
        "++2ms",
        "-0ms",
        "1_000us",
        "_1ms",
        ".5s",
        "1.ms",
        ".s",
        "ms",
        "1.2.3ms",
        "18446744073709551615ns",
        "18446744073709551616ns",
        "1152921504606846976ns",
        "1152921504606846977ns",
        "1152921504.606846976s",
        "1152921504.606846977s",
        "99999999999999999999s",
        "18446744073.709551615s",
        "0.000000001s",
        "0.0000000001s",
        "NaN",
        "infs",
        "١ms",
        "5ms\n",
        "\u{0}ms",
        "−1ms",
    ]);
    prop_oneof![
        4 => (1u64..=5000, unit.clone()).prop_map(|(n, u)| format!("{n}{u}")),
        1 => (0u64..100, 0u64..1000, unit).prop_map(|(w, f, u)| format!("{w}.{f}{u}")),
        3 => weird.prop_map(String::from),
        1 => "\\PC{0,8}",
        1 => "[0-9.+_ -]{0,6}(ns|us|ms|s|m|h|e|E)?",
    ]
}

/// Integer literals, small and extreme; TOML spellings with their JSON equivalent.
fn integer() -> impl Strategy<Value = V> {
    let extreme = prop::sample::select(vec![
        ("0", "0"),
        ("-1", "-1"),
        ("4096", "4096"),
        ("4097", "4097"),
        ("4294967295", "4294967295"),
        ("4294967296", "4294967296"),
        ("9223372036854775807", "9223372036854775807"),
        ("-9223372036854775808", "-9223372036854775808"),
        ("99999999999999999999", "99999999999999999999"),
        (
            "999999999999999999999999999999999999999999",
            "999999999999999999999999999999999999999999",
        ),
        ("0x10", "16"),
        ("0o7", "7"),
        ("0b11", "3"),
        ("1_000", "1000"),
        ("+5", "5"),
    ]);
    prop_oneof![
        4 => (0i64..8).prop_map(|i| raw(&i.to_string())),
        2 => any::<i64>().prop_map(|i| raw(&i.to_string())),
        2 => extreme.prop_map(|(t, j)| V::Raw(t.to_string(), j.to_string())),
    ]
}

fn scalar() -> impl Strategy<Value = V> {
    let float = prop::sample::select(vec![
        ("1.5", "1.5"),
        ("-0.0", "-0.0"),
        ("3.0", "3.0"),
        ("1e300", "1e300"),
        ("inf", "null"),
        ("-inf", "null"),
        ("nan", "null"),
        ("5e-324", "5e-324"),
    ]);
    prop_oneof![
        3 => duration_text().prop_map(V::Str),
        2 => "\\PC{0,10}".prop_map(V::Str),
        2 => integer(),
        1 => float.prop_map(|(t, j)| V::Raw(t.to_string(), j.to_string())),
        1 => any::<bool>().prop_map(|b| raw(&b.to_string())),
        1 => Just(V::Raw("1979-05-27T07:32:00Z".into(), "\"1979-05-27T07:32:00Z\"".into())),
    ]
}

/// Any value, nested a little.
fn any_value() -> impl Strategy<Value = V> {
    scalar().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(V::Arr),
            prop::collection::vec((key_of(&TASK_KEYS_AND_MORE), inner), 0..4)
                .prop_map(|entries| V::Tab(dedup(entries))),
        ]
    })
}

const TASK_KEYS_AND_MORE: [&str; 16] = [
    "name",
    "wcet",
    "bcet",
    "period",
    "deadline",
    "offset",
    "kind",
    "max_interarrival",
    "priority",
    "core",
    "scheduling",
    "context_switch",
    "migration",
    "perod",
    "WCET",
    "",
];

fn key_of(keys: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(keys).prop_map(String::from),
        1 => "[a-zA-Z_]{1,8}",
        1 => "\\PC{0,4}",
    ]
}

/// Keeps the first entry of each key (a repeated key is a TOML syntax error, which would hide
/// everything else).
fn dedup(entries: Vec<(String, V)>) -> Vec<(String, V)> {
    let mut seen = HashSet::new();
    entries
        .into_iter()
        .filter(|(k, _)| seen.insert(k.clone()))
        .collect()
}

/// A value for a known field: the right shape, and with weight `noise` (out of 20) anything.
fn value_for(key: &str, noise: u32) -> BoxedStrategy<V> {
    let ms = |lo: u64, hi: u64| (lo..=hi).prop_map(|n| V::Str(format!("{n}ms"))).boxed();
    let int = |lo: i64, hi: i64| (lo..=hi).prop_map(|i| raw(&i.to_string())).boxed();
    let (right, wrong) = match key {
        "name" => ("[a-z]{1,3}".prop_map(V::Str).boxed(), any_value().boxed()),
        "cores" => (int(1, 4), integer().boxed()),
        "priority" => (int(1, 5), integer().boxed()),
        "core" => (int(0, 3), integer().boxed()),
        "kind" => (
            prop::sample::select(vec!["periodic", "sporadic"])
                .prop_map(|s| V::Str(s.to_string()))
                .boxed(),
            prop_oneof![
                prop::sample::select(vec!["Sporadic", "", "aperiodic"])
                    .prop_map(|s| V::Str(s.to_string())),
                any_value(),
            ]
            .boxed(),
        ),
        "wcet" | "bcet" => (ms(1, 5), duration_or_anything()),
        "offset" => (ms(0, 10), duration_or_anything()),
        _ => (ms(5, 40), duration_or_anything()),
    };
    prop_oneof![20 => right, noise => wrong].boxed()
}

fn duration_or_anything() -> BoxedStrategy<V> {
    prop_oneof![3 => duration_text().prop_map(V::Str), 1 => any_value()].boxed()
}

/// A table with some of `keys` (each with probability `present`, the required ones almost
/// always) and, the more `noise`, unknown keys.
fn table_of(keys: &'static [&'static str], present: f64, noise: u32) -> impl Strategy<Value = V> {
    let fields: Vec<BoxedStrategy<Option<(String, V)>>> = keys
        .iter()
        .map(|&k| {
            let p = if matches!(k, "name" | "wcet" | "period" | "cores" | "tasks") {
                1.0 - 0.01 * f64::from(noise + 1)
            } else {
                present
            };
            prop::option::weighted(p, value_for(k, noise).prop_map(move |v| (k.to_string(), v)))
                .boxed()
        })
        .collect();
    let extra = prop::collection::vec((key_of(keys), any_value()), 0..2);
    let with_extra = prop::bool::weighted(0.02 * f64::from(noise));
    (fields, with_extra, extra).prop_map(|(fields, with_extra, extra)| {
        let mut entries: Vec<(String, V)> = fields.into_iter().flatten().collect();
        if with_extra {
            entries.extend(extra);
        }
        V::Tab(dedup(entries))
    })
}

const TASK_KEYS: [&str; 10] = [
    "name",
    "wcet",
    "bcet",
    "period",
    "deadline",
    "offset",
    "kind",
    "max_interarrival",
    "priority",
    "core",
];
const OVERHEAD_KEYS: [&str; 3] = ["scheduling", "context_switch", "migration"];

/// A whole document: top-level entries, the overheads and the tasks.
#[derive(Clone, Debug)]
struct Doc {
    top: Vec<(String, V)>,
    overheads: Option<V>,
    tasks: Option<V>,
    /// Write tables as `[overheads]` / `[[tasks]]` sections rather than inline.
    sections: bool,
}

/// Documents with a mix of noise levels: none (mostly valid), some, and a lot.
fn document() -> impl Strategy<Value = Doc> {
    prop_oneof![Just(0u32), Just(1), Just(5), Just(20)].prop_flat_map(document_with_noise)
}

fn document_with_noise(noise: u32) -> impl Strategy<Value = Doc> {
    let top = (
        prop::option::weighted(0.98, value_for("cores", noise)),
        prop::option::weighted(0.5, value_for("name", noise)),
        prop::collection::vec(
            (
                key_of(&["cores", "tasks", "name", "overheads"]),
                any_value(),
            ),
            0..2,
        ),
        prop::bool::weighted(0.02 * f64::from(noise)),
    )
        .prop_map(|(cores, name, extra, with_extra)| {
            let mut top = Vec::new();
            top.extend(cores.map(|v| ("cores".to_string(), v)));
            top.extend(name.map(|v| ("name".to_string(), v)));
            if with_extra {
                top.extend(extra);
            }
            top
        });
    let overheads = prop::option::weighted(
        0.3,
        prop_oneof![20 => table_of(&OVERHEAD_KEYS, 0.6, noise), noise => any_value()],
    );
    let tasks = prop::option::weighted(
        0.98,
        prop_oneof![
            20 => prop::collection::vec(table_of(&TASK_KEYS, 0.2, noise), 0..5).prop_map(V::Arr),
            noise => any_value(),
        ],
    );
    (top, overheads, tasks, any::<bool>()).prop_map(|(top, overheads, tasks, sections)| Doc {
        top,
        overheads,
        tasks,
        sections,
    })
}

impl Doc {
    fn toml(&self) -> String {
        let mut out = String::new();
        let mut top = self.top.clone();
        let mut sections = String::new();
        match &self.overheads {
            Some(V::Tab(entries)) if self.sections => {
                sections.push_str("\n[overheads]\n");
                for (k, v) in entries {
                    sections.push_str(&format!("{} = {}\n", toml_key(k), v.toml()));
                }
            }
            Some(v) => top.push(("overheads".into(), v.clone())),
            None => {}
        }
        match &self.tasks {
            Some(V::Arr(items))
                if self.sections
                    && !items.is_empty()
                    && items.iter().all(|i| matches!(i, V::Tab(_))) =>
            {
                for item in items {
                    sections.push_str("\n[[tasks]]\n");
                    if let V::Tab(entries) = item {
                        for (k, v) in entries {
                            sections.push_str(&format!("{} = {}\n", toml_key(k), v.toml()));
                        }
                    }
                }
            }
            Some(v) => top.push(("tasks".into(), v.clone())),
            None => {}
        }
        for (k, v) in dedup(top) {
            out.push_str(&format!("{} = {}\n", toml_key(&k), v.toml()));
        }
        out + &sections
    }

    fn json(&self) -> String {
        let mut top = self.top.clone();
        top.extend(self.overheads.clone().map(|v| ("overheads".into(), v)));
        top.extend(self.tasks.clone().map(|v| ("tasks".into(), v)));
        V::Tab(dedup(top)).json()
    }
}

// ---- (3) round trip ----------------------------------------------------------------------

/// A duration up to `max`: small, round, or anywhere in range.
fn duration_up_to(min: u64, max: u64) -> impl Strategy<Value = Duration> {
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

fn max_ns() -> u64 {
    MAX_DURATION.as_nanos()
}

/// How to spell a duration: every spelling must read back to the same value.
fn spell(d: Duration, style: u8) -> String {
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
fn valid_task(cores: usize) -> impl Strategy<Value = (Task, Vec<u8>)> {
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
fn imprecise_parts(
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

fn valid_workload() -> impl Strategy<Value = (Workload, Vec<u8>)> {
    (1usize..=8)
        .prop_flat_map(|cores| {
            (
                Just(cores),
                prop::option::of(any::<String>()),
                prop::collection::hash_set(any::<String>(), 1..6),
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
type Entries = Vec<(String, Lit)>;

/// The fields of `w` (top level, overheads, each task) as key and value pairs, omitting
/// defaults and choosing spellings and field order as `styles` says.
fn fields(w: &Workload, styles: &[u8]) -> (Entries, Entries, Vec<Entries>) {
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

enum Lit {
    Str(String),
    Int(u64),
}

impl Lit {
    fn toml(&self) -> String {
        match self {
            Lit::Str(s) => toml_string(s),
            Lit::Int(i) => i.to_string(),
        }
    }
    fn json(&self) -> String {
        match self {
            Lit::Str(s) => json_string(s),
            Lit::Int(i) => i.to_string(),
        }
    }
}

fn workload_toml(w: &Workload, styles: &[u8]) -> String {
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

fn workload_json(w: &Workload, styles: &[u8]) -> String {
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

// ---- the properties ----------------------------------------------------------------------

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn never_panics_on_arbitrary_bytes(bytes in prop::collection::vec(any::<u8>(), 0..512)) {
        check_both(&String::from_utf8_lossy(&bytes))?;
    }

    #[test]
    fn never_panics_on_token_soup(text in tokenish_text()) {
        check_both(&text)?;
    }

    #[test]
    fn structured_documents_hold_the_invariants(doc in document()) {
        let toml = doc.toml();
        let checked = check_source(&toml, Format::Toml);
        check_invariants(&checked, &toml)?;
        let json = doc.json();
        let checked = check_source(&json, Format::Json);
        check_invariants(&checked, &json)?;
    }

    #[test]
    fn valid_workloads_round_trip((workload, styles) in valid_workload()) {
        for (format, text) in [
            (Format::Toml, workload_toml(&workload, &styles)),
            (Format::Json, workload_json(&workload, &styles)),
        ] {
            let checked = check_source(&text, format);
            let errors: Vec<String> = checked
                .diagnostics
                .iter()
                .filter(|d| d.is_error())
                .map(|d| d.to_string())
                .collect();
            prop_assert!(errors.is_empty(), "{format:?} errors {errors:?} in\n{text}");
            prop_assert_eq!(checked.workload.as_ref(), Some(&workload), "{:?}:\n{}", format, text);
        }
    }
}

/// The generator of structured documents does produce valid workloads often enough for the
/// invariant checks above to mean something.
#[test]
fn structured_documents_are_sometimes_valid() {
    use proptest::strategy::ValueTree;
    use proptest::test_runner::TestRunner;
    let mut runner = TestRunner::deterministic();
    let strategy = document();
    let (mut valid, mut total) = (0, 0);
    for _ in 0..500 {
        let doc = strategy.new_tree(&mut runner).expect("a tree").current();
        total += 1;
        if check_source(&doc.toml(), Format::Toml).workload.is_some() {
            valid += 1;
        }
    }
    assert!(
        valid * 20 >= total,
        "only {valid} of {total} generated documents are valid workloads"
    );
}
