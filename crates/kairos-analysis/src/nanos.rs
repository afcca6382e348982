//! Durations in the analysis' serialized output as integer nanoseconds: `Duration`'s own
//! serialization is text ("1.5ms"), but verdicts and interfaces have always been numbers, and
//! the JSON of `kairos analyze` and its readers (reports, Python) depend on that.

use kairos_model::Duration;
use serde::Serializer;

/// One duration as its nanoseconds.
pub(crate) fn one<S: Serializer>(d: &Duration, serializer: S) -> Result<S::Ok, S::Error> {
    serializer.serialize_u64(d.as_nanos())
}

/// An optional list of durations as a list of nanoseconds (`None` is skipped by the field).
pub(crate) fn some_list<S: Serializer>(
    list: &Option<Vec<Duration>>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    let nanos: Option<Vec<u64>> = list
        .as_ref()
        .map(|l| l.iter().map(|d| d.as_nanos()).collect());
    serde::Serialize::serialize(&nanos, serializer)
}

/// An optional duration as its nanoseconds (`None` is skipped by the field).
pub(crate) fn option<S: Serializer>(
    d: &Option<Duration>,
    serializer: S,
) -> Result<S::Ok, S::Error> {
    serde::Serialize::serialize(&d.map(|d| d.as_nanos()), serializer)
}

/// A list of durations as a list of nanoseconds.
pub(crate) fn list<S: Serializer>(list: &[Duration], serializer: S) -> Result<S::Ok, S::Error> {
    serializer.collect_seq(list.iter().map(|d| d.as_nanos()))
}
