//! What the study judges: a policy family ([`super::family`]), a VM family ([`super::vm`]) or
//! the mixed-criticality tables ([`super::mc`]).

use super::family::{Family, Sets};
use super::mc;
use super::set::{self, Judged, Setup};
use super::vm::VmFamily;

/// A family of the study.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Studied {
    Policy(Family),
    Vm(VmFamily),
    /// Mixed-criticality DAG systems and their tables.
    Mc,
}

impl Studied {
    /// Every family, in the order the study reports them: the policies, the VMs, the tables.
    pub fn all() -> Vec<Studied> {
        let policies = Family::ALL.into_iter().map(Studied::Policy);
        let vms = VmFamily::ALL.map(Studied::Vm);
        policies.chain(vms).chain([Studied::Mc]).collect()
    }

    /// Whether the family can be studied in the simulator: tables cannot, their simulator
    /// charges no overheads.
    pub fn simulates(self) -> bool {
        self != Studied::Mc
    }

    /// Whether the kernel schedules its runs (`kairos run --dispatch kernel`).
    pub fn kernel(self) -> bool {
        matches!(self, Studied::Policy(f) if f.kernel().is_some())
    }

    /// Whether a config without `families` studies it: every family but those the kernel
    /// schedules, which a study names (`examples/experiments/guarantees-kernel.toml`).
    pub fn by_default(self) -> bool {
        !self.kernel()
    }

    /// The family's name, as configs write it.
    pub fn name(self) -> &'static str {
        match self {
            Studied::Policy(f) => f.name(),
            Studied::Vm(f) => f.name(),
            Studied::Mc => mc::NAME,
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
            Studied::Mc => mc::TESTS,
        }
    }

    /// Imprecise sets rather than periodic ones (a VM family splits a periodic set).
    pub fn imprecise(self) -> bool {
        matches!(self, Studied::Policy(f) if f.imprecise())
    }

    /// The set of sample `seed` at `utilization`, judged and, when accepted, run. The policy
    /// families judge one periodic set per seed and so do the VM families (split over domains);
    /// the imprecise families share one imprecise set; the tables draw an MC-DAG system.
    pub fn judge(
        self,
        sets: &Sets,
        seed: u64,
        utilization: f64,
        setup: &Setup,
    ) -> Result<Judged, String> {
        match self {
            Studied::Policy(f) => {
                let workload = sets.draw(f.imprecise(), seed, utilization)?;
                set::judge(f, &workload, seed, setup)
            }
            Studied::Vm(f) => {
                let workload = sets.draw(false, seed, utilization)?;
                f.judge(&workload, sets, seed, setup)
            }
            Studied::Mc => mc::judge(sets, seed, utilization, setup),
        }
    }
}
