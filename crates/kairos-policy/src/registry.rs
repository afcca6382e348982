//! Every policy kairos offers, in one list: its name, what it is, which inputs it runs and how
//! it is built. The command line's value lists and help, the Python package, the report and
//! the experiment configs all read this list, and the default policy of an input is chosen
//! here.
//!
//! A VM system has no policy to choose: its `[vmm]` names the VMM scheduler and each domain its
//! guest scheduler (`policies::hierarchical`).

use crate::policies::PolicyKind;
use kairos_model::input::InputKind;
use kairos_model::Workload;

/// What a policy runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Runs {
    /// Periodic and sporadic tasks; imprecise ones as plain tasks with `C = m + w`.
    Tasks,
    /// Periodic and sporadic tasks, imprecise ones by parts (mandatory, optional, wind-up).
    ImpreciseParts,
    /// The scheduling tables of a mixed-criticality DAG system.
    Tables,
}

impl Runs {
    /// The input kinds a policy of this sort runs.
    pub fn kinds(self) -> &'static [InputKind] {
        match self {
            Runs::Tasks | Runs::ImpreciseParts => &[InputKind::Workload, InputKind::SimsoXml],
            Runs::Tables => &[InputKind::McDag, InputKind::McDagXml],
        }
    }
}

/// One policy of the list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PolicyInfo {
    /// Its name on the command line, in configs and in Python.
    pub name: &'static str,
    /// One line on what it is.
    pub summary: &'static str,
    pub runs: Runs,
    /// How a policy of tasks is built (a table policy is built from its tables).
    pub kind: Option<PolicyKind>,
}

impl PolicyInfo {
    /// Whether the policy runs input of `kind`.
    pub fn takes(&self, kind: InputKind) -> bool {
        self.runs.kinds().contains(&kind)
    }
}

const fn tasks(name: &'static str, summary: &'static str, kind: PolicyKind) -> PolicyInfo {
    PolicyInfo {
        name,
        summary,
        runs: Runs::Tasks,
        kind: Some(kind),
    }
}

/// Every policy, in the order the command line lists them.
pub const POLICIES: [PolicyInfo; 10] = [
    tasks(
        "gedf",
        "global EDF: the m earliest deadlines run",
        PolicyKind::GlobalEdf,
    ),
    tasks(
        "pedf",
        "partitioned EDF: tasks bound to cores (the file's `core`, else first-fit decreasing)",
        PolicyKind::PartitionedEdf,
    ),
    tasks(
        "gfp",
        "global fixed priority (the file's priorities, else rate monotonic; --priorities)",
        PolicyKind::GlobalFp,
    ),
    tasks(
        "pfp",
        "partitioned fixed priority, tasks bound to cores as pedf binds them",
        PolicyKind::PartitionedFp,
    ),
    tasks(
        "edzl",
        "global EDF until zero laxity, then the zero-laxity job first",
        PolicyKind::GlobalEdzl,
    ),
    PolicyInfo {
        name: "grmwp",
        summary: "G-RMWP: imprecise tasks by parts, optional parts cut at their optional deadlines",
        runs: Runs::ImpreciseParts,
        kind: Some(PolicyKind::GlobalRmwp),
    },
    PolicyInfo {
        name: "prmwp",
        summary: "P-RMWP: G-RMWP's rules on cores the RMWP partitioning chose",
        runs: Runs::ImpreciseParts,
        kind: Some(PolicyKind::PartitionedRmwp),
    },
    tasks(
        "grm",
        "global rate monotonic, G-RMWP's baseline: imprecise tasks whole (C = m + w)",
        PolicyKind::GlobalRm,
    ),
    tasks(
        "prm",
        "partitioned rate monotonic, P-RMWP's baseline",
        PolicyKind::PartitionedRm,
    ),
    PolicyInfo {
        name: "table",
        summary: "an MC-DAG system's scheduling tables (G-RES, G-MCRES with mode changes)",
        runs: Runs::Tables,
        kind: None,
    },
];

/// The policy named `name`.
pub fn find(name: &str) -> Option<&'static PolicyInfo> {
    POLICIES.iter().find(|p| p.name == name)
}

/// The policy of periodic tasks named `name`, or why there is none (with every name there is).
pub fn of_tasks(name: &str) -> Result<PolicyKind, String> {
    find(name).and_then(|p| p.kind).ok_or_else(|| {
        format!(
            "unknown policy `{name}`: the policies of periodic tasks are {}",
            names_for(InputKind::Workload).join(", ")
        )
    })
}

/// The names of the policies that run input of `kind`, in list order.
pub fn names_for(kind: InputKind) -> Vec<&'static str> {
    (POLICIES.iter())
        .filter(|p| p.takes(kind))
        .map(|p| p.name)
        .collect()
}

/// Every name, in list order.
pub fn names() -> Vec<&'static str> {
    POLICIES.iter().map(|p| p.name).collect()
}

/// The policy a command runs when none is named: an MC-DAG system's tables; for a workload with
/// imprecise tasks G-RMWP, which runs them by parts; else partitioned fixed priority, what a
/// real-time system on real cores most often runs (and `kairos run` delegates to the kernel).
/// `workload` is the workload when the input holds one. A VM system has none (`None`).
pub fn default_for(kind: InputKind, workload: Option<&Workload>) -> Option<&'static str> {
    match kind {
        InputKind::McDag | InputKind::McDagXml => Some("table"),
        InputKind::Workload | InputKind::SimsoXml => {
            let imprecise = workload.is_some_and(Workload::has_imprecise_tasks);
            Some(if imprecise { "grmwp" } else { "pfp" })
        }
        _ => None,
    }
}

/// The policies a report compares when none are named: the RMWP family for a workload with
/// imprecise tasks, else the five policies of plain tasks.
pub fn compared_for(workload: &Workload) -> Vec<&'static str> {
    let imprecise = workload.has_imprecise_tasks();
    let family = |p: &&PolicyInfo| match imprecise {
        true => matches!(p.name, "grmwp" | "prmwp" | "grm" | "prm"),
        false => p.runs == Runs::Tasks && !matches!(p.name, "grm" | "prm"),
    };
    POLICIES.iter().filter(family).map(|p| p.name).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_policy_of_tasks_builds_under_its_own_name() {
        for info in POLICIES.iter().filter(|p| p.runs != Runs::Tables) {
            let kind = info.kind.expect("a policy of tasks has a builder");
            assert_eq!(kind.cli_name(), info.name);
            let built = kind.build(crate::PriorityOrder::Auto);
            assert_eq!(built.name(), info.name);
            assert_eq!(built.runs_parts(), info.runs == Runs::ImpreciseParts);
        }
        let mut names = names();
        names.sort_unstable();
        names.dedup();
        assert_eq!(names.len(), POLICIES.len(), "names are unique");
    }

    #[test]
    fn the_defaults_follow_the_input() {
        let plain = kairos_model::check_source(
            "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"1ms\"\nperiod = \"4ms\"\n",
            kairos_model::Format::Toml,
        )
        .workload
        .unwrap();
        let mut imprecise = plain.clone();
        imprecise.tasks[0].imprecise = Some(kairos_model::ImpreciseParts {
            mandatory: kairos_model::Duration::from_micros(500),
            optional: kairos_model::Duration::from_micros(500),
            windup: kairos_model::Duration::from_micros(500),
            optional_deadline: None,
        });
        assert_eq!(default_for(InputKind::Workload, Some(&plain)), Some("pfp"));
        assert_eq!(
            default_for(InputKind::Workload, Some(&imprecise)),
            Some("grmwp")
        );
        assert_eq!(default_for(InputKind::McDagXml, None), Some("table"));
        assert_eq!(default_for(InputKind::Vm, None), None);
        assert_eq!(compared_for(&plain), ["gedf", "pedf", "gfp", "pfp", "edzl"]);
        assert_eq!(compared_for(&imprecise), ["grmwp", "prmwp", "grm", "prm"]);
        assert_eq!(names_for(InputKind::McDag), ["table"]);
        assert_eq!(names_for(InputKind::SimsoXml).len(), 9);
    }
}
