//! One generated set of the RT-Xen study under every configuration the paper compares (Xi et
//! al., EMSOFT 2014, section IV): the compositional analysis's verdict (figure 4), simulations
//! on the interfaces' VCPUs and the interfaces' total bandwidth (figure 6). As in the paper,
//! the VCPUs are periodic servers in the schedulability (figure 5) and miss-ratio (figure 7)
//! experiments, and deferrable ones in the comparison of server kinds (figure 8) and the
//! back-to-back count (Table I). When the study runs on real cores ([`super::real`]), each
//! configuration also runs for real and its simulation is that run's twin.

use kairos_analysis::csa::{interfaces, with_interfaces, with_vcpus, CsaReport, DomainInterface};
use kairos_gen::RtXenSet;
use kairos_model::{
    Domain, Duration, GuestScheduler, ServerKind, ServerPriority, VmSystem, Vmm, VmmScheduler,
};
use kairos_policy::policies::hierarchical::VmPlan;
use kairos_sim::vm::simulate_vm;
use kairos_sim::SimConfig;

/// A guest scheduler under a VMM scheduler and priority: one line of figures 4 and 5.
#[derive(Clone, Copy, Debug)]
pub struct Combo {
    pub guest: GuestScheduler,
    pub scheduler: VmmScheduler,
    pub priority: ServerPriority,
}

impl Combo {
    /// "guest pEDF, VMM gDM".
    pub fn label(&self) -> String {
        format!(
            "guest {}, VMM {}",
            paper_name(self.guest.name()),
            vmm_name(self.scheduler, self.priority)
        )
    }
}

fn paper_name(name: &str) -> String {
    let (scope, order) = name.split_at(1);
    format!("{scope}{}", order.to_uppercase())
}

pub fn vmm_name(scheduler: VmmScheduler, priority: ServerPriority) -> String {
    let scope = match scheduler {
        VmmScheduler::RtGlobal => "g",
        VmmScheduler::RtPartition => "p",
        VmmScheduler::Credit => return "credit".into(),
    };
    let order = match priority {
        ServerPriority::Edf => "EDF",
        ServerPriority::Dm => "DM",
    };
    format!("{scope}{order}")
}

/// The four RT-Xen VMM schedulers, in the paper's order of figure 7.
pub const RT_VMMS: [(VmmScheduler, ServerPriority); 4] = [
    (VmmScheduler::RtGlobal, ServerPriority::Edf),
    (VmmScheduler::RtGlobal, ServerPriority::Dm),
    (VmmScheduler::RtPartition, ServerPriority::Edf),
    (VmmScheduler::RtPartition, ServerPriority::Dm),
];

/// Guest pEDF and gEDF under each RT VMM: figures 4 and 5.
pub fn combos() -> Vec<Combo> {
    [GuestScheduler::Pedf, GuestScheduler::Gedf]
        .into_iter()
        .flat_map(|guest| {
            RT_VMMS.map(|(scheduler, priority)| Combo {
                guest,
                scheduler,
                priority,
            })
        })
        .collect()
}

/// How the study runs each set.
pub struct Setup {
    pub cores: usize,
    pub domains: usize,
    pub vcpu_period: Duration,
    pub quantum: Option<Duration>,
    pub duration: Duration,
    /// The guest of the miss-ratio figures (7 and 8).
    pub guest: GuestScheduler,
    pub seed: u64,
    /// Run every configuration on real cores too (the scaled-down real-run version).
    pub real: Option<super::real::Real>,
}

/// A simulation's counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counts {
    pub released: u64,
    pub misses: u64,
    pub back_to_back: u64,
    pub replenishments: u64,
}

/// The runs of one set, simulated or measured; None where some domain has no interface.
#[derive(Debug, Default)]
pub struct Runs {
    /// Per combo: on its interfaces' VCPUs as periodic servers.
    pub practice: Vec<Option<Counts>>,
    /// The miss-ratio figures' guest under credit, and under each RT VMM ([`RT_VMMS`]) with
    /// deferrable servers.
    pub credit: Option<Counts>,
    pub deferrable: Vec<Option<Counts>>,
}

/// Everything one set gives.
#[derive(Debug, Default)]
pub struct SetResult {
    /// Per combo: the analysis accepts the system.
    pub theory: Vec<bool>,
    /// Per guest (pEDF, gEDF): total VCPU bandwidth of the interfaces, when all exist.
    pub bandwidth: Vec<Option<f64>>,
    pub simulated: Runs,
    /// On real cores, when the study runs there.
    pub measured: Option<Runs>,
}

/// What running one configuration gives: the simulation and, on real cores, the measurement.
type Outcome = Option<(Counts, Option<Counts>)>;

impl SetResult {
    fn push(&mut self, outcome: Outcome, to: fn(&mut Runs) -> &mut Vec<Option<Counts>>) {
        to(&mut self.simulated).push(outcome.map(|(s, _)| s));
        if let Some(measured) = &mut self.measured {
            to(measured).push(outcome.and_then(|(_, m)| m));
        }
    }
}

/// The study's VM system for `set` under `vmm` with every domain's guest `guest`.
fn system(set: &RtXenSet, setup: &Setup, vmm: Vmm, guest: GuestScheduler) -> VmSystem {
    let domains = (0..setup.domains)
        .filter(|&d| set.domain_of.contains(&d))
        .map(|d| Domain {
            name: format!("d{d}"),
            guest,
            tasks: (set.tasks.iter().zip(&set.domain_of))
                .filter(|(_, &of)| of == d)
                .map(|(t, _)| t.clone())
                .collect(),
            vcpus: None,
            weight: kairos_model::vm::DEFAULT_WEIGHT,
            cap: 0,
        })
        .collect();
    VmSystem {
        name: None,
        cores: setup.cores,
        vmm,
        domains,
    }
}

fn vmm(
    scheduler: VmmScheduler,
    priority: ServerPriority,
    server: ServerKind,
    setup: &Setup,
) -> Vmm {
    Vmm {
        scheduler,
        priority,
        server,
        quantum: setup.quantum,
        vcpu_period: setup.vcpu_period,
    }
}

/// Runs `system` on the VCPUs of its analysis `report`, if every domain has some: simulated,
/// or on real cores and simulated as that run's twin.
fn execute(system: &VmSystem, report: &CsaReport, setup: &Setup) -> Result<Outcome, String> {
    let Ok(resolved) = with_vcpus(system, report) else {
        return Ok(None);
    };
    let plan = VmPlan::new(&resolved).map_err(|r| r.0)?;
    if let Some(real) = &setup.real {
        let (measured, simulated) = real.run(&plan, setup)?;
        return Ok(Some((simulated, Some(measured))));
    }
    let config = SimConfig {
        duration: setup.duration,
        seed: setup.seed,
        ..SimConfig::default()
    };
    Ok(Some((simulate(&plan, &config)?, None)))
}

/// The counts of `plan` simulated under `config`.
pub fn simulate(plan: &VmPlan, config: &SimConfig) -> Result<Counts, String> {
    let (_, m) = simulate_vm(plan, config).map_err(|e| e.to_string())?;
    Ok(Counts {
        released: m.totals.jobs_released,
        misses: m.totals.deadline_misses,
        back_to_back: m.vcpus.iter().map(|v| v.server.back_to_back).sum(),
        replenishments: m.vcpus.iter().map(|v| v.server.replenishments).sum(),
    })
}

/// Total bandwidth of the interfaces' VCPUs, if every domain has some.
fn bandwidth(report: &CsaReport) -> Option<f64> {
    (report.interfaces.iter())
        .map(|i| {
            (!i.vcpus.is_empty()).then(|| {
                i.vcpus
                    .iter()
                    .map(|v| v.budget.as_nanos() as f64 / v.period.as_nanos() as f64)
                    .sum::<f64>()
            })
        })
        .sum()
}

/// Runs one set under every configuration.
pub fn run(set: &RtXenSet, setup: &Setup) -> Result<SetResult, String> {
    let mut out = SetResult {
        measured: setup.real.as_ref().map(|_| Runs::default()),
        ..SetResult::default()
    };
    let guests = Interfaces::new(set, setup);
    for combo in combos() {
        let server = ServerKind::Periodic;
        let system = system(
            set,
            setup,
            vmm(combo.scheduler, combo.priority, server, setup),
            combo.guest,
        );
        let report = with_interfaces(&system, guests.of(combo.guest));
        out.theory.push(report.schedulable == Some(true));
        out.push(execute(&system, &report, setup)?, |r| &mut r.practice);
        if combo.scheduler == VmmScheduler::RtPartition && combo.priority == ServerPriority::Edf {
            out.bandwidth.push(bandwidth(&report));
        }
    }
    let credit = credit(set, setup, guests.of(setup.guest))?;
    out.simulated.credit = credit.map(|(s, _)| s);
    if let Some(measured) = &mut out.measured {
        measured.credit = credit.and_then(|(_, m)| m);
    }
    for (scheduler, priority) in RT_VMMS {
        let vmm = vmm(scheduler, priority, ServerKind::Deferrable, setup);
        let system = system(set, setup, vmm, setup.guest);
        let report = with_interfaces(&system, guests.of(setup.guest));
        out.push(execute(&system, &report, setup)?, |r| &mut r.deferrable);
    }
    Ok(out)
}

/// Each guest's domain interfaces for the set, computed once: they do not depend on the VMM.
struct Interfaces {
    pedf: Vec<DomainInterface>,
    gedf: Vec<DomainInterface>,
}

impl Interfaces {
    fn new(set: &RtXenSet, setup: &Setup) -> Interfaces {
        let of = |guest| {
            let vmm = vmm(
                VmmScheduler::RtGlobal,
                ServerPriority::Edf,
                ServerKind::Periodic,
                setup,
            );
            interfaces(&system(set, setup, vmm, guest))
        };
        Interfaces {
            pedf: of(GuestScheduler::Pedf),
            gedf: of(GuestScheduler::Gedf),
        }
    }

    fn of(&self, guest: GuestScheduler) -> Vec<DomainInterface> {
        match guest {
            GuestScheduler::Gedf => self.gedf.clone(),
            _ => self.pedf.clone(),
        }
    }
}

/// The chosen guest under Xen's credit scheduler, each domain's weight and cap its VCPUs'
/// total bandwidth (the paper's setting), every VCPU free to run on every core.
fn credit(
    set: &RtXenSet,
    setup: &Setup,
    interfaces: Vec<DomainInterface>,
) -> Result<Outcome, String> {
    let vmm = vmm(
        VmmScheduler::Credit,
        ServerPriority::Edf,
        ServerKind::Deferrable,
        setup,
    );
    let mut system = system(set, setup, vmm, setup.guest);
    let report = with_interfaces(&system, interfaces);
    for (domain, interface) in system.domains.iter_mut().zip(&report.interfaces) {
        let share: f64 = (interface.vcpus.iter())
            .map(|v| v.budget.as_nanos() as f64 / v.period.as_nanos() as f64)
            .sum();
        domain.weight = ((share * 100.0).round() as u32).max(1);
        domain.cap = ((share * 100.0).ceil() as u32).max(1);
    }
    execute(&system, &report, setup)
}
