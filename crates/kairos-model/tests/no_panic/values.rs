//! Generated values for structured documents: strings, keys, durations, integers, scalars.

use super::*;

/// A generated value, rendered to TOML or JSON.
#[derive(Clone, Debug)]
pub(crate) enum V {
    Str(String),
    /// A literal with its TOML and JSON spellings (numbers, booleans, dates).
    Raw(String, String),
    Arr(Vec<V>),
    Tab(Vec<(String, V)>),
}

pub(crate) fn toml_string(s: &str) -> String {
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

pub(crate) fn toml_key(k: &str) -> String {
    if !k.is_empty()
        && k.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
    {
        k.to_string()
    } else {
        toml_string(k)
    }
}

pub(crate) fn json_string(s: &str) -> String {
    serde_json::to_string(s).expect("strings serialize")
}

impl V {
    pub(crate) fn toml(&self) -> String {
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

    pub(crate) fn json(&self) -> String {
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

pub(crate) fn raw(both: &str) -> V {
    V::Raw(both.to_string(), both.to_string())
}

/// Duration texts, valid and not.
pub(crate) fn duration_text() -> impl Strategy<Value = String> {
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
pub(crate) fn integer() -> impl Strategy<Value = V> {
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

pub(crate) fn scalar() -> impl Strategy<Value = V> {
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
pub(crate) fn any_value() -> impl Strategy<Value = V> {
    scalar().prop_recursive(3, 16, 4, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..4).prop_map(V::Arr),
            prop::collection::vec((key_of(&TASK_KEYS_AND_MORE), inner), 0..4)
                .prop_map(|entries| V::Tab(dedup(entries))),
        ]
    })
}
