//! The `[overheads]` table: decoded inside a workload file, or alone from any file that has one
//! (`kairos simulate --overheads FILE`, the file `kairos bench overheads` writes).

use crate::decode::{Decoder, ZeroAllowed, OVERHEAD_KEYS};
use crate::diagnostics::Diagnostics;
use crate::document::{self, Format, Node, Value};
use crate::overheads::{
    Cost, ExecutionLoss, Overheads, Quantiles, RtThrottle, P999_KEY, QUANTILE_KEYS,
};
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
    let known: Vec<&str> = OVERHEAD_KEYS
        .iter()
        .copied()
        .chain([THROTTLE_KEY, LOSS_KEY])
        .collect();
    decoder.reject_unknown_keys(entries, &known, path);
    // Every key is read before giving up, so every bad value is reported.
    let costs: Vec<Option<Cost>> = (OVERHEAD_KEYS.iter())
        .map(|key| match decoder.field(entries, key, path) {
            Some(n) => decode_cost(decoder, n, &format!("{path}.{key}")),
            None => Some(Cost::default()),
        })
        .collect();
    let throttle_path = format!("{path}.{THROTTLE_KEY}");
    let rt_throttle = (decoder.field(entries, THROTTLE_KEY, path))
        .map(|n| decode_throttle(decoder, n, &throttle_path));
    let loss_path = format!("{path}.{LOSS_KEY}");
    let execution_loss = match decoder.field(entries, LOSS_KEY, path) {
        Some(n) => decode_loss(decoder, n, &loss_path),
        None => Some(ExecutionLoss::default()),
    };
    let costs: Vec<Cost> = costs.into_iter().collect::<Option<_>>()?;
    let rt_throttle = rt_throttle.map_or(Some(None), |t| t.map(Some))?;
    let execution_loss = execution_loss?;
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
        rt_throttle,
        execution_loss,
    })
}

/// The key of the measured execution loss in an `[overheads]` table.
pub const LOSS_KEY: &str = "execution_loss_ppm";

/// Parts per million, at most [`ExecutionLoss::MAX_PPM`].
fn decode_loss(decoder: &mut Decoder, node: &Node, path: &str) -> Option<ExecutionLoss> {
    let ppm = decoder.count(node, path, u64::from(ExecutionLoss::MAX_PPM))?;
    ExecutionLoss::from_ppm(u32::try_from(ppm).ok()?)
}

/// The key of the kernel's real-time throttling in an `[overheads]` table.
pub const THROTTLE_KEY: &str = "rt_throttle";

/// `{ runtime = "950ms", period = "1s" }`: a positive period, a runtime no longer than it.
fn decode_throttle(decoder: &mut Decoder, node: &Node, path: &str) -> Option<RtThrottle> {
    let hint = "rt_throttle = { runtime = \"950ms\", period = \"1s\" } (sched_rt_runtime_us of sched_rt_period_us)";
    let entries = decoder.table(node, path)?;
    decoder.reject_unknown_keys(entries, &["runtime", "period"], path);
    let mut read = |key: &str, zero| {
        let n = decoder.required(entries, key, path, node.position, hint)?;
        decoder.duration(n, &format!("{path}.{key}"), zero)
    };
    let runtime = read("runtime", ZeroAllowed::Yes);
    let period = read("period", ZeroAllowed::No);
    let throttle = RtThrottle {
        runtime: runtime?,
        period: period?,
    };
    if throttle.runtime > throttle.period {
        decoder.diagnostics.push(
            crate::Diagnostic::error("runtime is longer than period")
                .at_path(path)
                .at_position(node.position)
                .with_hint(hint),
        );
        return None;
    }
    Some(throttle)
}

/// A duration, or a table of the five quantiles of a measured distribution.
fn decode_cost(decoder: &mut Decoder, node: &Node, path: &str) -> Option<Cost> {
    let Value::Table(entries) = &node.value else {
        return decoder
            .duration(node, path, ZeroAllowed::Yes)
            .map(Cost::Fixed);
    };
    let known: Vec<&str> = QUANTILE_KEYS.iter().copied().chain([P999_KEY]).collect();
    decoder.reject_unknown_keys(entries, &known, path);
    let hint = "a measured distribution gives all of min, p50, p90, p99, max, and p999 if it has it (kairos bench overheads writes one)";
    let values: Vec<Option<Duration>> = QUANTILE_KEYS
        .iter()
        .map(|key| {
            let n = decoder.required(entries, key, path, node.position, hint)?;
            decoder.duration(n, &format!("{path}.{key}"), ZeroAllowed::Yes)
        })
        .collect();
    let values: Vec<Duration> = values.into_iter().collect::<Option<_>>()?;
    let values: [Duration; 5] = values.try_into().ok()?;
    let p999 = match decoder.field(entries, P999_KEY, path) {
        Some(n) => Some(decoder.duration(n, &format!("{path}.{P999_KEY}"), ZeroAllowed::Yes)?),
        None => None,
    };
    let quantiles =
        Quantiles::from_values(values).and_then(|q| p999.map_or(Some(q), |v| q.with_p999(v)));
    if quantiles.is_none() {
        decoder.diagnostics.push(
            crate::Diagnostic::error("the quantiles decrease")
                .at_path(path)
                .at_position(node.position)
                .with_hint("min <= p50 <= p90 <= p99 <= p999 <= max"),
        );
    }
    quantiles.map(Cost::Measured)
}

/// A located error for each measured distribution of `source`'s `[overheads]` table without
/// `point` (a key only newer profiles carry, [`P999_KEY`]): what a reader that charges that
/// point reports instead of charging something else. Empty when the file cannot be read as a
/// profile (its own errors say why).
pub fn distributions_lacking(source: &str, format: Format, point: &str) -> Diagnostics {
    let mut diagnostics = Diagnostics::default();
    let Ok(root) = document::parse(source, format) else {
        return diagnostics;
    };
    let Value::Table(top) = &root.value else {
        return diagnostics;
    };
    let Some(Value::Table(costs)) = (top.iter())
        .find(|e| e.key == "overheads")
        .map(|e| &e.node.value)
    else {
        return diagnostics;
    };
    // The throttle is a share, not a distribution: no quantile is charged of it.
    for cost in costs.iter().filter(|c| c.key != THROTTLE_KEY) {
        let Value::Table(points) = &cost.node.value else {
            continue;
        };
        if points.iter().all(|p| p.key != point) {
            diagnostics.push(
                crate::Diagnostic::error(format!(
                    "this distribution has no {point}, the quantile charged"
                ))
                .at_path(format!("overheads.{}", cost.key))
                .at_position(cost.node.position)
                .with_hint(format!(
                    "a profile written before {point} was measured: measure again with `kairos bench overheads --out FILE`, or charge p99 or max"
                )),
            );
        }
    }
    diagnostics
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
    fn p999_is_optional_and_a_reader_charging_it_locates_each_distribution_without_it() {
        let source = r#"
[overheads]
scheduling = "2us"
context_switch = { min = "5us", p50 = "8us", p90 = "12us", p99 = "25us", p999 = "40us", max = "60us" }
migration = { min = "1us", p50 = "1us", p90 = "2us", p99 = "3us", max = "4us" }
"#;
        let o = overheads_from_source(source, Format::Toml).unwrap();
        let Cost::Measured(q) = o.context_switch else {
            panic!("measured")
        };
        assert_eq!(q.p999, Some(Duration::from_micros(40)));
        let Cost::Measured(q) = o.migration else {
            panic!("measured")
        };
        assert_eq!(q.p999, None);
        // Only migration lacks it (scheduling is a fixed cost, the same at every point).
        let lacking = distributions_lacking(source, Format::Toml, P999_KEY);
        let text: Vec<String> = lacking.iter().map(|d| d.render("p.toml")).collect();
        assert_eq!(text.len(), 1, "{text:?}");
        assert!(text[0].starts_with("p.toml:5:") && text[0].contains("overheads.migration"));
        assert!(distributions_lacking(MEASURED, Format::Toml, "p99")
            .iter()
            .next()
            .is_none());
        // The throttle is a share: a profile `kairos bench overheads` writes has it, and it
        // lacks no quantile.
        let throttled =
            format!("{MEASURED}rt_throttle = {{ runtime = \"950ms\", period = \"1s\" }}\n");
        assert!(distributions_lacking(&throttled, Format::Toml, "p99")
            .iter()
            .next()
            .is_none());
    }

    #[test]
    fn the_kernels_throttling_is_read_and_checked() {
        let source = "[overheads]\nrt_throttle = { runtime = \"950ms\", period = \"1s\" }\n";
        let o = overheads_from_source(source, Format::Toml).unwrap();
        let throttle = o.rt_throttle.expect("read");
        assert_eq!(throttle.runtime, Duration::from_millis(950));
        assert!((throttle.share() - 0.95).abs() < 1e-12);
        assert!(o.is_zero(), "a throttle is not a cost");
        let cases = [
            (
                r#"{ runtime = "2s", period = "1s" }"#,
                "runtime is longer than period",
            ),
            (
                r#"{ runtime = "1ms", period = "0s" }"#,
                "overheads.rt_throttle.period",
            ),
            (r#"{ runtime = "1ms" }"#, "missing"),
            (
                r#"{ runtime = "1ms", period = "1s", share = 1 }"#,
                "unknown key `share`",
            ),
        ];
        for (value, expected) in cases {
            let source = format!("[overheads]\nrt_throttle = {value}\n");
            let errors = overheads_from_source(&source, Format::Toml).unwrap_err();
            let text: Vec<String> = errors.iter().map(|d| d.render("o.toml")).collect();
            let text = text.join("\n");
            assert!(text.contains(expected), "{value}: {text}");
            assert!(text.contains("o.toml:2:"), "{value}: not located: {text}");
        }
    }

    #[test]
    fn the_execution_loss_is_read_in_parts_per_million_and_checked() {
        let source = "[overheads]\nexecution_loss_ppm = 31000\n";
        let o = overheads_from_source(source, Format::Toml).unwrap();
        assert_eq!(o.execution_loss.ppm(), 31_000);
        assert!(o.is_zero(), "a loss is not a cost");
        for (value, expected) in [
            ("900001", "larger than the supported maximum 900000"),
            ("-1", "must not be negative"),
            ("0.03", "an integer"),
        ] {
            let source = format!("[overheads]\nexecution_loss_ppm = {value}\n");
            let errors = overheads_from_source(&source, Format::Toml).unwrap_err();
            let text: Vec<String> = errors.iter().map(|d| d.render("o.toml")).collect();
            let text = text.join("\n");
            assert!(text.contains(expected), "{value}: {text}");
            assert!(
                text.contains("o.toml:2:") && text.contains("overheads.execution_loss_ppm"),
                "{value}: not located: {text}"
            );
        }
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
        let p999 = r#"context_switch = { min = "5us", p50 = "8us", p90 = "9us", p99 = "25us", p999 = "70us", max = "60us" }"#;
        let errors = overheads_from_source(&format!("[overheads]\n{p999}\n"), Format::Toml);
        let text = errors
            .unwrap_err()
            .iter()
            .map(|d| d.render("o.toml"))
            .collect::<String>();
        assert!(
            text.contains("o.toml:2:") && text.contains("decrease"),
            "{text}"
        );
        let none = overheads_from_source("name = \"w\"\n", Format::Toml).unwrap_err();
        assert!(none
            .iter()
            .any(|d| d.message.contains("no [overheads] table")));
    }
}
