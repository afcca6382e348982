//! The `[overheads]` table: decoded inside a workload file, or alone from any file that has one
//! (`kairos simulate --overheads FILE`, the file `kairos bench overheads` writes).

use crate::decode::{Decoder, ZeroAllowed, OVERHEAD_KEYS};
use crate::diagnostics::Diagnostics;
use crate::document::{self, Format, Node, Value};
use crate::overheads::{Cost, Overheads, Quantiles, QUANTILE_KEYS};
use crate::time::Duration;

/// The `[overheads]` table of `source`; every other key of the file is ignored. An error if the
/// file has no such table or a value in it is wrong (located diagnostics).
pub fn overheads_from_source(source: &str, format: Format) -> Result<Overheads, Diagnostics> {
    let root = document::parse(source, format)?;
    let mut decoder = Decoder::default();
    let overheads = match &root.value {
        Value::Table(entries) => match decoder.field(entries, "overheads", "") {
            Some(node) => decode_overheads(&mut decoder, node),
            None => {
                decoder.diagnostics.push(
                    crate::Diagnostic::error("no [overheads] table")
                        .at_position(root.position)
                        .with_hint("kairos bench overheads --out FILE.toml writes one"),
                );
                None
            }
        },
        _ => decoder.table(&root, "").and(None),
    };
    let mut diagnostics = decoder.diagnostics;
    diagnostics.sort_by_position();
    match overheads {
        Some(o) if !diagnostics.has_errors() => Ok(o),
        _ => Err(diagnostics),
    }
}

pub(crate) fn decode_overheads(decoder: &mut Decoder, node: &Node) -> Option<Overheads> {
    let path = "overheads";
    let entries = decoder.table(node, path)?;
    decoder.reject_unknown_keys(entries, &OVERHEAD_KEYS, path);
    // Every key is read before giving up, so every bad value is reported.
    let costs: Vec<Option<Cost>> = (OVERHEAD_KEYS.iter())
        .map(|key| match decoder.field(entries, key, path) {
            Some(n) => decode_cost(decoder, n, &format!("{path}.{key}")),
            None => Some(Cost::default()),
        })
        .collect();
    let costs: Vec<Cost> = costs.into_iter().collect::<Option<_>>()?;
    let [scheduling, context_switch, migration, release, release_latency, ipi, part_callback] =
        costs.try_into().ok()?;
    Some(Overheads {
        scheduling,
        context_switch,
        migration,
        release,
        release_latency,
        ipi,
        part_callback,
    })
}

/// A duration, or a table of the five quantiles of a measured distribution.
fn decode_cost(decoder: &mut Decoder, node: &Node, path: &str) -> Option<Cost> {
    let Value::Table(entries) = &node.value else {
        return decoder
            .duration(node, path, ZeroAllowed::Yes)
            .map(Cost::Fixed);
    };
    decoder.reject_unknown_keys(entries, &QUANTILE_KEYS, path);
    let hint = "a measured distribution gives all of min, p50, p90, p99, max (kairos bench overheads writes one)";
    let values: Vec<Option<Duration>> = QUANTILE_KEYS
        .iter()
        .map(|key| {
            let n = decoder.required(entries, key, path, node.position, hint)?;
            decoder.duration(n, &format!("{path}.{key}"), ZeroAllowed::Yes)
        })
        .collect();
    let values: Vec<Duration> = values.into_iter().collect::<Option<_>>()?;
    let values: [Duration; 5] = values.try_into().ok()?;
    let quantiles = Quantiles::from_values(values);
    if quantiles.is_none() {
        decoder.diagnostics.push(
            crate::Diagnostic::error("the quantiles decrease")
                .at_path(path)
                .at_position(node.position)
                .with_hint("min <= p50 <= p90 <= p99 <= max"),
        );
    }
    quantiles.map(Cost::Measured)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::check_source;

    const MEASURED: &str = r#"
[overheads]
scheduling = "2us"
context_switch = { min = "5us", p50 = "8us", p90 = "12us", p99 = "25us", max = "60us" }
"#;

    #[test]
    fn a_distribution_or_a_duration_per_overhead() {
        let o = overheads_from_source(MEASURED, Format::Toml).unwrap();
        assert_eq!(o.scheduling, Cost::Fixed(Duration::from_micros(2)));
        let us = Duration::from_micros;
        let expected = Quantiles::from_values([us(5), us(8), us(12), us(25), us(60)]).unwrap();
        assert_eq!(o.context_switch, Cost::Measured(expected));
        assert_eq!(o.migration, Cost::default());
        let json = r#"{"overheads": {"migration": {"min": "1us", "p50": "1us", "p90": "2us", "p99": "3us", "max": "4us"}}}"#;
        let o = overheads_from_source(json, Format::Json).unwrap();
        assert_eq!(o.migration.median(), us(1));
        let workload = format!("name = \"w\"\ncores = 1\n{MEASURED}\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"10ms\"\n");
        let checked = check_source(&workload, Format::Toml);
        assert_eq!(
            checked.workload.unwrap().overheads.context_switch,
            Cost::Measured(expected)
        );
    }

    #[test]
    fn bad_distributions_are_located_errors() {
        let cases = [
            (
                r#"context_switch = { min = "5us", p50 = "8us", p99 = "25us", max = "60us" }"#,
                "p90",
            ),
            (
                r#"context_switch = { min = "5us", p50 = "8us", p90 = "7us", p99 = "25us", max = "60us" }"#,
                "the quantiles decrease",
            ),
            (
                r#"context_switch = { min = "5us", p50 = "8us", p90 = "9us", p95 = "1us", p99 = "25us", max = "60us" }"#,
                "unknown key `p95`",
            ),
            (
                r#"context_switch = { min = 5, p50 = "8us", p90 = "9us", p99 = "25us", max = "60us" }"#,
                "no unit",
            ),
        ];
        for (line, expected) in cases {
            let source = format!("[overheads]\n{line}\n");
            let errors = overheads_from_source(&source, Format::Toml).unwrap_err();
            let text: Vec<String> = errors.iter().map(|d| d.render("o.toml")).collect();
            let text = text.join("\n");
            assert!(text.contains(expected), "{line}: {text}");
            assert!(text.contains("o.toml:2:"), "{line}: not located: {text}");
        }
        let none = overheads_from_source("name = \"w\"\n", Format::Toml).unwrap_err();
        assert!(none
            .iter()
            .any(|d| d.message.contains("no [overheads] table")));
    }
}
