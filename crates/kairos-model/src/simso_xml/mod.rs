//! SimSo's XML configuration (the file SimSo's `Configuration.save` writes: `<simulation>`
//! with `<sched>`, `<processors>` and `<tasks>`) read into a kairos workload. Times are in
//! milliseconds, written as decimal numbers; they convert exactly (as the duration text
//! "7.3ms" does). What kairos cannot carry is refused or reported:
//! - sporadic and aperiodic tasks with explicit activation lists: refused (kairos's sporadic
//!   tasks have a minimum inter-arrival, not a list);
//! - processor speeds other than 1, cache models, execution-time models other than the WCET:
//!   reported as notes, since kairos's cores are identical and its jobs run their WCET unless
//!   a `bcet` says otherwise.
//!
//! Every problem is reported at once, at the line and column of its element or attribute in
//! the XML, the workload's own rules included ([`check_simso`]); times must be finite numbers,
//! not negative, and SimSo's `cycles_per_ms` greater than zero.
//!
//! The scheduler's class (`simso.schedulers.EDF`, or a file path) maps to the kairos policy
//! with the same rules where there is one ([`policy_of`]).

mod read;

pub use read::{check_simso, SimsoChecked};

use crate::time::Duration;

/// What a SimSo configuration holds, in kairos terms.
#[derive(Clone, Debug, PartialEq)]
pub struct SimsoImport {
    pub cores: usize,
    /// The simulated time (`duration` cycles over `cycles_per_ms`).
    pub duration: Duration,
    /// SimSo's scheduler class, as written.
    pub scheduler: String,
    /// The kairos policy with the same rules, if any.
    pub policy: Option<&'static str>,
    pub tasks: Vec<SimsoTask>,
    pub notes: Vec<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct SimsoTask {
    pub name: String,
    pub period: Duration,
    pub deadline: Duration,
    pub wcet: Duration,
    pub offset: Duration,
}

/// The kairos policy for a SimSo scheduler class (its last dotted or path component): EDF is
/// global EDF; RM global fixed priority in rate-monotonic order (kairos's default order, which
/// is RM for implicit deadlines); EDZL is EDZL; P_EDF and P_RM partition first as SimSo does
/// (decreasing utilization, first fit), then schedule each core.
pub fn policy_of(class: &str) -> Option<&'static str> {
    let stem = class
        .rsplit(['.', '/'])
        .find(|part| !part.is_empty() && *part != "py")
        .unwrap_or(class);
    match stem {
        "EDF" | "EDF2" => Some("gedf"),
        "RM" => Some("gfp"),
        "EDZL" => Some("edzl"),
        "P_EDF" => Some("pedf"),
        "P_RM" => Some("pfp"),
        _ => None,
    }
}

/// The import as a kairos workload file (TOML), with the run SimSo would make in a comment.
pub fn to_toml(import: &SimsoImport, name: &str) -> String {
    let mut out = format!("# Imported from SimSo: scheduler {}", import.scheduler);
    match import.policy {
        Some(p) => out.push_str(&format!(", kairos policy {p}")),
        None => out.push_str(" (no kairos policy with the same rules)"),
    }
    out.push_str(&format!(", simulated for {}\n", import.duration));
    for note in &import.notes {
        out.push_str(&format!("# note: {note}\n"));
    }
    out.push_str(&format!("name = {name:?}\ncores = {}\n", import.cores));
    for t in &import.tasks {
        out.push_str(&format!(
            "\n[[tasks]]\nname = {:?}\nwcet = \"{}\"\nperiod = \"{}\"\n",
            t.name, t.wcet, t.period
        ));
        if t.deadline != t.period {
            out.push_str(&format!("deadline = \"{}\"\n", t.deadline));
        }
        if !t.offset.is_zero() {
            out.push_str(&format!("offset = \"{}\"\n", t.offset));
        }
    }
    out
}

#[cfg(test)]
mod tests;
