//! The VM families of the guarantees study: hierarchical systems as RT-Xen 2.0 schedules them
//! (Xi, Xu, Lu, Phan, Gill, Sokolsky, Lee, "Real-Time Multi-Core Virtual Machine Scheduling in
//! Xen", EMSOFT 2014, sections II and IV): the study's periodic set split over two pEDF
//! domains, each domain's VCPUs servers that the VMM (rt-global or rt-partition, EDF, with
//! deferrable or periodic servers) schedules on the study's cores.
//!
//! A system is judged by the compositional analysis (`kairos_analysis::csa`: Shin & Lee's
//! periodic resource model per VCPU, RTSS 2003, and the VMM's test; what `kairos analyze VM`
//! runs) and by the same with the profile's overheads charged level by level
//! (`kairos_analysis::csa::overheads`, after Phan, Xu, Lee, Lee, Sokolsky, "Overhead-aware
//! compositional analysis of real-time systems", RTAS 2013). When either accepts, the system
//! runs on the VCPUs of the accepting analysis — the overhead-aware budgets when it accepts —
//! on kairos's user-space dispatcher (as `kairos run VM` runs it), or in the two-level
//! simulator charging the profile.

use super::family::Sets;
use super::set::{self, Counts, Execution, Judged, Kept, Setup};
use crate::run::Twins;
use crate::Failure;
use kairos_analysis::csa::{analyze, analyze_with_overheads, with_vcpus, CsaReport};
use kairos_analysis::overheads::Charges;
use kairos_model::vm::DEFAULT_WEIGHT;
use kairos_model::{
    Domain, Duration, GuestScheduler, ServerKind, ServerPriority, VmSystem, Vmm, VmmScheduler,
    Workload,
};
use kairos_policy::policies::hierarchical::VmPlan;
use kairos_rt::calibrate::Calibration;
use kairos_rt::dispatcher::{run_user, UserRunConfig};
use kairos_rt::watchdog::RunControl;
use kairos_sim::outages::Outages;
use kairos_sim::vm::{simulate_vm, vm_policy};
use kairos_sim::SimConfig;

/// Domains a set is split over (the RT-Xen real study's two on two cores).
const DOMAINS: usize = 2;

/// A VMM scheduler and the kind of its servers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct VmFamily {
    pub scheduler: VmmScheduler,
    pub server: ServerKind,
}

impl VmFamily {
    /// Every VM family, in the order the study reports them.
    pub const ALL: [VmFamily; 4] = [
        VmFamily::new(VmmScheduler::RtGlobal, ServerKind::Deferrable),
        VmFamily::new(VmmScheduler::RtGlobal, ServerKind::Periodic),
        VmFamily::new(VmmScheduler::RtPartition, ServerKind::Deferrable),
        VmFamily::new(VmmScheduler::RtPartition, ServerKind::Periodic),
    ];

    const fn new(scheduler: VmmScheduler, server: ServerKind) -> VmFamily {
        VmFamily { scheduler, server }
    }

    /// `vm-global-deferrable`: the `[vmm]` scheduler (`rt-global`, `rt-partition`) and
    /// `server` of a VM file.
    pub fn name(self) -> &'static str {
        match (self.scheduler, self.server) {
            (VmmScheduler::RtGlobal, ServerKind::Deferrable) => "vm-global-deferrable",
            (VmmScheduler::RtGlobal, ServerKind::Periodic) => "vm-global-periodic",
            (VmmScheduler::RtPartition, ServerKind::Deferrable) => "vm-partition-deferrable",
            (VmmScheduler::RtPartition, ServerKind::Periodic) => "vm-partition-periodic",
            (VmmScheduler::Credit, _) => unreachable!("credit has no analysis"),
        }
    }

    /// The analysis, as the study's tables name it.
    pub fn tests(self) -> &'static str {
        match self.scheduler {
            VmmScheduler::RtGlobal => "csa: pEDF domains on PRM VCPUs under rt-global EDF",
            _ => "csa: pEDF domains on PRM VCPUs under rt-partition EDF",
        }
    }

    /// `workload`'s tasks dealt round-robin over [`DOMAINS`] pEDF domains (the draw already
    /// shuffles them), every domain's VCPUs computed by the analysis with a period of half the
    /// shortest period `sets` draws: a PRM VCPU's blackout, up to twice its period, must fit in
    /// the shortest deadline.
    pub fn system(self, workload: &Workload, sets: &Sets) -> VmSystem {
        let domains = (0..DOMAINS)
            .map(|d| Domain {
                name: format!("d{d}"),
                guest: GuestScheduler::Pedf,
                tasks: (workload.tasks.iter().skip(d).step_by(DOMAINS).cloned()).collect(),
                vcpus: None,
                weight: DEFAULT_WEIGHT,
                cap: 0,
            })
            .filter(|d| !d.tasks.is_empty())
            .collect();
        let vcpu_period = Duration::from_micros(sets.periods_ms.0 * 500);
        VmSystem {
            name: None,
            cores: sets.cores,
            vmm: Vmm {
                scheduler: self.scheduler,
                priority: ServerPriority::Edf,
                server: self.server,
                quantum: None,
                vcpu_period,
            },
            domains,
        }
    }

    /// `workload` (drawn from `seed`) as a VM system, judged and, when accepted, run.
    pub fn judge(
        self,
        workload: &Workload,
        sets: &Sets,
        seed: u64,
        setup: &Setup,
    ) -> Result<Judged, String> {
        let system = self.system(workload, sets);
        let accepts = |r: &CsaReport| r.schedulable == Some(true);
        let ideal = analyze(&system);
        let charges = Charges::at(&setup.profile, setup.quantile);
        let aware = analyze_with_overheads(&system, &charges);
        let judged = Judged {
            ideal: accepts(&ideal),
            aware: accepts(&aware),
            ..Judged::default()
        };
        // The overhead-aware budgets when that analysis accepts: its guarantee is put to the test.
        let report = match (judged.aware, judged.ideal) {
            (true, _) => aware,
            (false, true) => ideal,
            (false, false) => return Ok(judged),
        };
        let budgeted = with_vcpus(&system, &report)?;
        let plan = VmPlan::new(&budgeted).map_err(|r| r.0)?;
        let (counts, evidence) = match &setup.execution {
            Execution::Real(calibration) => on_cores(&plan, seed, setup, calibration)?,
            Execution::Simulated => (simulated(&plan, seed, setup)?, String::new()),
        };
        let real = matches!(setup.execution, Execution::Real(_));
        Ok(judged.with_run(counts, real, || Kept {
            files: vec![
                (".toml", kairos_model::vm_load::to_toml(&budgeted)),
                (set::EVIDENCE, evidence),
            ],
            run_args: format!(
                "--duration {} --seed {seed} --compare --overheads {{profile}} --overhead-quantile {}",
                setup.duration,
                setup.quantile.name(),
            ),
        }))
    }
}

/// A run of `plan` on the dispatcher (the VMM and guest policies over one dispatcher thread
/// and SCHED_FIFO workers per calibrated core, VCPU budgets enforced, as `kairos run VM`
/// runs), its misses attributed against its twins, the two-level simulation of the same run
/// charging the profile and, when a miss is left with the schedule, the same with the run's
/// stalls as outages (as `kairos run VM --compare --overheads PROFILE` attributes them); with
/// the attribution's text.
fn on_cores(
    plan: &VmPlan,
    seed: u64,
    setup: &Setup,
    calibration: &Calibration,
) -> Result<(Counts, String), String> {
    set::stopped()?;
    let mut config = UserRunConfig::new(setup.duration.as_nanos());
    // The calibrated CPUs, named: what the first online CPUs are can change during a study.
    config.cpus = Some(calibration.per_core.iter().map(|c| c.cpu).collect());
    config.calibration = Some(calibration.clone());
    config.control = Some(RunControl::new());
    config.seed = seed;
    let policy = vm_policy(plan).map_err(|r| r.0)?;
    let mut run = run_user(&plan.workload, policy, &config).map_err(|e| e.to_string())?;
    set::stopped()?;
    let ran = Duration::from_nanos(run.result.ran_ns.max(1));
    let same = move |overheads, outages| {
        let twin = SimConfig {
            duration: ran,
            execution_times: config.execution_times,
            seed,
            record_trace: true,
            overheads,
            outages,
            ..SimConfig::default()
        };
        let (outcome, _) =
            simulate_vm(plan, &twin).map_err(|e| Failure::bad_input(e.to_string()))?;
        (outcome.trace).ok_or_else(|| Failure::environment("the simulation kept no trace"))
    };
    let largest = setup.profile.fixed_at_largest();
    let plain_is_calm = largest == setup.profile;
    let twins = Twins {
        plain: same(setup.profile, Outages::default()).map_err(|f| f.message)?,
        charged: None,
        fixed: Some(Box::new(move |outages| same(largest, outages))),
        plain_is_calm,
    };
    crate::run::weigh(&mut run.result, twins);
    Ok((Counts::of(&run.result), crate::run::lost_time(&run.result)))
}

/// The same run in the two-level simulator, every switch charged a draw of the profile.
fn simulated(plan: &VmPlan, seed: u64, setup: &Setup) -> Result<Counts, String> {
    let config = SimConfig {
        duration: setup.duration,
        seed,
        overheads: setup.profile,
        ..SimConfig::default()
    };
    let (outcome, _) = simulate_vm(plan, &config).map_err(|e| e.to_string())?;
    let m = &outcome.metrics;
    Ok(Counts {
        jobs: m.jobs_released,
        misses: m.deadline_misses,
        schedule: m.deadline_misses,
        host: 0,
        host_stalled_twin: 0,
        stopped: false,
    })
}
