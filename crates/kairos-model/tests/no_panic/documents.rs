//! Structured documents: known keys (and near misses) with wild values, in TOML or JSON.

use super::*;

pub(crate) const TASK_KEYS_AND_MORE: [&str; 16] = [
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

pub(crate) fn key_of(keys: &'static [&'static str]) -> impl Strategy<Value = String> {
    prop_oneof![
        4 => prop::sample::select(keys).prop_map(String::from),
        1 => "[a-zA-Z_]{1,8}",
        1 => "\\PC{0,4}",
    ]
}

/// Keeps the first entry of each key (a repeated key is a TOML syntax error, which would hide
/// everything else).
pub(crate) fn dedup(entries: Vec<(String, V)>) -> Vec<(String, V)> {
    let mut seen = HashSet::new();
    entries
        .into_iter()
        .filter(|(k, _)| seen.insert(k.clone()))
        .collect()
}

/// A value for a known field: the right shape, and with weight `noise` (out of 20) anything.
pub(crate) fn value_for(key: &str, noise: u32) -> BoxedStrategy<V> {
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

pub(crate) fn duration_or_anything() -> BoxedStrategy<V> {
    prop_oneof![3 => duration_text().prop_map(V::Str), 1 => any_value()].boxed()
}

/// A table with some of `keys` (each with probability `present`, the required ones almost
/// always) and, the more `noise`, unknown keys.
pub(crate) fn table_of(
    keys: &'static [&'static str],
    present: f64,
    noise: u32,
) -> impl Strategy<Value = V> {
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

pub(crate) const TASK_KEYS: [&str; 10] = [
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
pub(crate) use kairos_model::decode::OVERHEAD_KEYS;

/// A whole document: top-level entries, the overheads and the tasks.
#[derive(Clone, Debug)]
pub(crate) struct Doc {
    top: Vec<(String, V)>,
    overheads: Option<V>,
    tasks: Option<V>,
    /// Write tables as `[overheads]` / `[[tasks]]` sections rather than inline.
    sections: bool,
}

/// Documents with a mix of noise levels: none (mostly valid), some, and a lot.
pub(crate) fn document() -> impl Strategy<Value = Doc> {
    prop_oneof![Just(0u32), Just(1), Just(5), Just(20)].prop_flat_map(document_with_noise)
}

pub(crate) fn document_with_noise(noise: u32) -> impl Strategy<Value = Doc> {
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
    pub(crate) fn toml(&self) -> String {
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

    pub(crate) fn json(&self) -> String {
        let mut top = self.top.clone();
        top.extend(self.overheads.clone().map(|v| ("overheads".into(), v)));
        top.extend(self.tasks.clone().map(|v| ("tasks".into(), v)));
        V::Tab(dedup(top)).json()
    }
}
