//! Getting a workload ready for the semi-fixed-priority policies (Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP): the optional
//! deadlines of G-RMWP and P-RMWP, and the partition P-RMWP and its baseline P-RM share (next
//! fit that evens the number of tasks per core, with rate-monotonic response-time admission on
//! `C = m + w`, as section 6.1 of the paper describes it), from
//! `kairos_analysis::rmwp::plan`. Other policies take the workload as it is.

use crate::{Failure, Notify};
use kairos_analysis::partition::Heuristic;
use kairos_analysis::rmwp::plan::{plan, Placement};
use kairos_model::{Duration, Workload};
use kairos_policy::PolicyKind;
use std::borrow::Cow;

/// The partitioning heuristic of P-RMWP and P-RM runs.
pub const PARTITION: Heuristic = Heuristic::CyclicNextFit;

/// `workload` as `kind` runs it, its notices told to `notify`.
pub fn prepare<'w>(
    kind: PolicyKind,
    workload: &'w Workload,
    notify: Notify,
) -> Result<Cow<'w, Workload>, Failure> {
    let (prepared, notices) = planned(kind, workload).map_err(Failure::bad_input)?;
    for notice in &notices {
        notify(&format!("notice: {}: {notice}", kind.cli_name()));
    }
    Ok(prepared)
}

/// `workload` as `kind` runs it and what a user should be told about it (a negative verdict
/// of the analysis that set the optional deadlines); an error when P-RMWP or P-RM find no
/// partition.
pub fn planned(
    kind: PolicyKind,
    workload: &Workload,
) -> Result<(Cow<'_, Workload>, Vec<String>), String> {
    let placement = match kind {
        PolicyKind::GlobalRmwp => Placement::Global,
        PolicyKind::PartitionedRmwp | PolicyKind::PartitionedRm => {
            Placement::Partitioned(PARTITION)
        }
        _ => return Ok((Cow::Borrowed(workload), Vec::new())),
    };
    let planned = plan(workload, placement)?;
    // P-RM has no optional deadlines: the verdict on them is not its concern.
    let notices = match kind {
        PolicyKind::PartitionedRm => Vec::new(),
        _ => planned.notices,
    };
    Ok((Cow::Owned(planned.workload), notices))
}

/// [`prepare`], then every imprecise task's optional deadline `margin` earlier (never below
/// 0): the wind-up is then released that much earlier, room for what the analyses do not count
/// and a real run pays before a wind-up starts (the policy timer's lateness, a decision, a
/// worker's wake-up and migration). The deadlines are written into the workload, so a
/// simulation of it (`kairos run --compare`) uses the same ones.
pub fn prepare_with_margin<'w>(
    kind: PolicyKind,
    workload: &'w Workload,
    margin: Duration,
    notify: Notify,
) -> Result<Cow<'w, Workload>, Failure> {
    let mut prepared = prepare(kind, workload, notify)?;
    let has_ods = matches!(kind, PolicyKind::GlobalRmwp | PolicyKind::PartitionedRmwp);
    if margin.is_zero() || !has_ods {
        return Ok(prepared);
    }
    for task in &mut prepared.to_mut().tasks {
        if let Some(parts) = &mut task.imprecise {
            let od = parts.optional_deadline.unwrap_or_default();
            parts.optional_deadline = Some(od.saturating_sub(margin));
        }
    }
    Ok(prepared)
}
