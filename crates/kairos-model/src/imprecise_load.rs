//! Decoding the parts of an imprecise task (`mandatory`, `optional`, `windup`,
//! `optional_deadline`; the extended imprecise computation model of Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP). A task gives either
//! `wcet` or the three parts; its `wcet` is then `mandatory + windup`.

use crate::decode::{join, Decoder, ZeroAllowed};
use crate::diagnostics::Diagnostic;
use crate::document::{Entry, Node};
use crate::time::Duration;
use crate::workload::ImpreciseParts;

/// The keys that make a task imprecise.
pub const PART_KEYS: [&str; 4] = ["mandatory", "optional", "windup", "optional_deadline"];

const PARTS_HINT: &str =
    "an imprecise task gives mandatory, optional and windup (optional may be \"0ms\")";

/// Whether the task table names any part.
pub fn is_imprecise(entries: &[Entry]) -> bool {
    entries.iter().any(|e| PART_KEYS.contains(&e.key.as_str()))
}

/// The parts of an imprecise task (`None` if one did not decode, reported). Also reports a
/// `wcet` given beside them: the wcet of an imprecise task is `mandatory + windup`.
pub fn decode_parts(
    decoder: &mut Decoder,
    entries: &[Entry],
    node: &Node,
    path: &str,
) -> Option<ImpreciseParts> {
    if let Some(wcet) = decoder.field(entries, "wcet", path) {
        decoder.diagnostics.push(
            Diagnostic::error("an imprecise task takes no wcet: its wcet is mandatory + windup")
                .at_path(join(path, "wcet"))
                .at_position(wcet.position)
                .with_hint(
                    "remove wcet, or remove mandatory, optional, windup and optional_deadline",
                ),
        );
    }
    let mut part = |key: &str, zero: ZeroAllowed| {
        let field = decoder.required(entries, key, path, node.position, PARTS_HINT)?;
        decoder.duration(field, &join(path, key), zero)
    };
    let mandatory = part("mandatory", ZeroAllowed::No);
    let optional = part("optional", ZeroAllowed::Yes);
    let windup = part("windup", ZeroAllowed::No);
    let optional_deadline = match decoder.field(entries, "optional_deadline", path) {
        Some(n) => Some(decoder.duration(n, &join(path, "optional_deadline"), ZeroAllowed::Yes)?),
        None => None,
    };
    Some(ImpreciseParts {
        mandatory: mandatory?,
        optional: optional?,
        windup: windup?,
        optional_deadline,
    })
}

impl ImpreciseParts {
    /// The real-time demand `m + w` (inputs are below 2^60 ns, so the sum cannot overflow).
    pub fn demand(&self) -> Duration {
        self.mandatory + self.windup
    }
}
