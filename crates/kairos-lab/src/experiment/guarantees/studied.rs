//! What the study judges: a policy family ([`super::family`]) or a VM family ([`super::vm`]).

use super::family::{Family, Sets};
use super::set::{self, Judged, Setup};
use super::vm::VmFamily;
use kairos_model::Workload;

/// A family of the study.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Studied {
    Policy(Family),
    Vm(VmFamily),
}

impl Studied {
    /// Every family, in the order the study reports them: the policies, then the VMs.
    pub fn all() -> Vec<Studied> {
        let policies = Family::ALL.into_iter().map(Studied::Policy);
        policies.chain(VmFamily::ALL.map(Studied::Vm)).collect()
    }

    /// The family's name, as configs write it.
    pub fn name(self) -> &'static str {
        match self {
            Studied::Policy(f) => f.name(),
            Studied::Vm(f) => f.name(),
        }
    }

    /// The family called `name`, if any.
    pub fn from_name(name: &str) -> Option<Studied> {
        Studied::all().into_iter().find(|f| f.name() == name)
    }

    /// The analysis that speaks for the family.
    pub fn tests(self) -> &'static str {
        match self {
            Studied::Policy(f) => f.tests(),
            Studied::Vm(f) => f.tests(),
        }
    }

    /// Imprecise sets rather than periodic ones (a VM family splits a periodic set).
    pub fn imprecise(self) -> bool {
        matches!(self, Studied::Policy(f) if f.imprecise())
    }

    /// `workload` (drawn from `seed` by `sets`) judged and, when accepted, run.
    pub fn judge(
        self,
        workload: &Workload,
        sets: &Sets,
        seed: u64,
        setup: &Setup,
    ) -> Result<Judged, String> {
        match self {
            Studied::Policy(f) => set::judge(f, workload, seed, setup),
            Studied::Vm(f) => f.judge(workload, sets, seed, setup),
        }
    }
}
