//! The overheads a comparison's simulation charges, out of sample: given by the caller (a
//! profile `kairos bench overheads --out` wrote), or measured on a short run of the same
//! workload under the same policy just before the run being compared. Never the compared run's
//! own costs: a simulation charged with them would agree with the run by construction, in part.

use super::periodic::on_dispatcher_for;
use super::Request;
use crate::{Failure, Notify};
use kairos_model::{Cost, Duration, Overheads, Workload};
use kairos_policy::Policy;
use kairos_rt::dispatcher::measured_overheads;
use serde_json::{json, Value};

/// The longest measuring run before a compared one.
const MEASURE_FOR: Duration = Duration::from_millis(1000);

/// What the simulation charges and where it comes from.
pub(super) struct Charged {
    pub overheads: Overheads,
    /// `None`: given by the caller; else the length of the run that measured them.
    measured_for: Option<Duration>,
    /// The quantile the caller's overheads were cut at, if they were.
    cut_at: Option<&'static str>,
}

/// The caller's overheads, or those of a run of `workload` under `policy` for up to a second
/// (as long as the compared run, if shorter), told to `notify` first.
pub(super) fn before(
    request: &Request,
    workload: &Workload,
    policy: Box<dyn Policy + Send>,
    notify: Notify,
) -> Result<Charged, Failure> {
    if let Some(overheads) = request.overheads {
        return Ok(Charged {
            cut_at: request.overheads_cut_at,
            ..Charged::given(overheads)
        });
    }
    let length = request.duration.min(MEASURE_FOR);
    notify(&format!(
        "measuring the overheads the comparison charges: {length} of the same run first"
    ));
    let run = on_dispatcher_for(request, length, workload, policy)?;
    Ok(Charged {
        overheads: measured_overheads(&run.result),
        measured_for: Some(length),
        cut_at: None,
    })
}

impl Charged {
    /// Overheads the caller gave.
    pub fn given(overheads: Overheads) -> Charged {
        Charged {
            overheads,
            measured_for: None,
            cut_at: None,
        }
    }

    /// `simulated_overheads` of the run's JSON: the source and each charge in ns.
    pub fn json(&self) -> Value {
        let o = &self.overheads;
        json!({
            "source": match self.measured_for {
                None => "given",
                Some(_) => "measured before the run",
            },
            "measured_for_ns": self.measured_for.map(|d| d.as_nanos()),
            "cut_at": self.cut_at,
            "scheduling_ns": o.scheduling.median().as_nanos(),
            "context_switch_ns": o.context_switch.median().as_nanos(),
            "migration_ns": o.migration.median().as_nanos(),
        })
    }

    /// One line for the text report.
    pub fn line(&self) -> String {
        let o = &self.overheads;
        let source = match self.measured_for {
            None => "given with --overheads".to_string(),
            Some(d) => format!("measured on {d} of the same run before this one"),
        };
        format!(
            "simulated with overheads {source} (out of sample): scheduling {}, context switch {}, migration {}{}\n",
            o.scheduling.median(),
            o.context_switch.median(),
            o.migration.median(),
            match (o.costs().iter()).any(|(_, c)| matches!(c, Cost::Measured(_))) {
                true => match self.cut_at {
                    Some(q) => format!(" (medians; each charge is drawn from its distribution, cut at its {q})"),
                    None => " (medians; each charge is drawn from its distribution)".into(),
                },
                false => String::new(),
            },
        )
    }
}
