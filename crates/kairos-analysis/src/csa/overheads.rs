//! Overhead-aware compositional analysis: the interfaces and the VMM verdict with the costs
//! kairos's dispatcher measured charged where they arise, level by level.
//!
//! Phan, Xu, Lee, Lee and Sokolsky, "Overhead-aware compositional analysis of real-time
//! systems" (RTAS 2013), show why adding a constant to each budget, or to each task's WCET,
//! is unsafe or wasteful: overheads accumulate across the levels, and how many a job pays
//! depends on how many VCPU periods it spans. kairos follows that principle with its own
//! accounting (not the paper's formulation), safe for its dispatcher:
//! 1. **Inside a component** each guest task is inflated by the preemption-centric accounting
//!    of [`crate::overheads`] (Brandenburg), with the interrupt load of every release the
//!    dispatcher handles — every guest task of every domain and every VCPU's replenishment,
//!    since any of them may interrupt a core holding this task's VCPU — and with one more
//!    decision and context switch for each VCPU period a job can span, `⌈D'/Π⌉ + 1`: the VCPU
//!    may run out of budget or be preempted there, and the guest job resumes after it. Under
//!    rt-global a VCPU resumes on any core: every guest is charged as global, and each switch
//!    with a migration.
//! 2. **A VCPU loses supply** each period: its replenishment is handled up to `Δev` late, it is
//!    switched in and out (`2 (Δsch + Δcxs)`), and on more than one core a doorbell (`Δipi`)
//!    asks for it. With that loss `δ`, a VCPU of budget `Θ + δ` still gives its guest `Θ`
//!    per period, anywhere in the period as the periodic resource model assumes; the budget
//!    is also scaled by the interrupt share `1 / s`, because budgets are charged in wall time
//!    (`s = σ (1 - ℓ) - u_rel`, `σ` the share of a core the kernel's real-time throttling
//!    leaves and `ℓ` the measured execution loss, as in [`crate::overheads`]; guest tasks are
//!    not charged `σ` or `ℓ` again).
//!    A computed interface gets the least `Θ` for the inflated tasks, then `Θ' = (Θ + δ) / s`;
//!    a file's own VCPUs are checked with `Θ s - δ` left to their guests.
//! 3. **The VMM** is checked, unchanged, on the VCPUs with the budgets of step 2, which already
//!    hold their switches.
//!
//! A budget that no longer fits its period, or a task that no longer fits its deadline, leaves
//! the domain unschedulable with a note saying which.

use super::system::{interfaces, with_interfaces, CsaReport, DomainInterface};
use crate::overheads::{inflate_among, Charges, Placement, ROUND_UP};
use crate::SporadicTask;
use kairos_model::{Domain, Duration, GuestScheduler, VmSystem, VmmScheduler};

/// The report of `system` with the overheads `c` charged (module doc).
pub fn analyze_with_overheads(system: &VmSystem, c: &Charges) -> CsaReport {
    let population = interrupt_periods(system);
    let scale = c.work_share() - population.iter().map(|t| share(c.release, *t)).sum::<f64>();
    let loss = supply_loss(system, c);
    let mut inflated = system.clone();
    let mut notes: Vec<Option<String>> = vec![None; system.domains.len()];
    if scale <= 0.0 {
        // Release interrupts (with the throttling's share) leave a core nothing for VCPUs.
        let note = "with overheads, release interrupts alone fill a core".to_string();
        notes.iter_mut().for_each(|n| *n = Some(note.clone()));
    }
    for (d, domain) in inflated.domains.iter_mut().enumerate() {
        let failed = inflate_domain(domain, system, c, &population).err();
        notes[d] = notes[d].take().or(failed);
        if let Some(vcpus) = &mut domain.vcpus {
            for v in vcpus.iter_mut() {
                v.budget = left_to_guest(v.budget, scale, loss);
            }
        }
    }
    let mut computed = interfaces(&inflated);
    for ((interface, note), domain) in computed.iter_mut().zip(notes).zip(&system.domains) {
        match note {
            Some(note) => unschedulable(interface, note),
            None => charge_vcpus(interface, domain, scale, loss),
        }
    }
    with_interfaces(system, computed)
}

/// The periods of every release the dispatcher handles: guest jobs and VCPU replenishments.
fn interrupt_periods(system: &VmSystem) -> Vec<Duration> {
    let tasks = system
        .domains
        .iter()
        .flat_map(|d| d.tasks.iter().map(|t| t.period));
    let vcpus = system.domains.iter().flat_map(|d| match &d.vcpus {
        Some(given) => given.iter().map(|v| v.period).collect::<Vec<_>>(),
        // At most one VCPU per core for a computed interface.
        None => vec![system.vmm.vcpu_period; system.cores],
    });
    tasks.chain(vcpus).collect()
}

fn share(cost: Duration, period: Duration) -> f64 {
    cost.as_nanos() as f64 / period.as_nanos() as f64
}

/// `δ`: what a VCPU loses each period to its replenishment and its own switches.
fn supply_loss(system: &VmSystem, c: &Charges) -> u64 {
    let switch = c.scheduling.as_nanos() + c.context_switch.as_nanos();
    let ipi = if system.cores > 1 {
        c.ipi.as_nanos()
    } else {
        0
    };
    c.release_latency.as_nanos() + 2 * switch + ipi
}

/// The domain's tasks inflated in place; the reason when one cannot fit.
fn inflate_domain(
    domain: &mut Domain,
    system: &VmSystem,
    c: &Charges,
    population: &[Duration],
) -> Result<(), String> {
    let tasks: Vec<SporadicTask> = (domain.tasks.iter())
        .map(|t| SporadicTask::new(t.wcet, t.deadline, t.period))
        .collect();
    // The shortest VCPU period bounds how many periods a job spans.
    let vcpu_period = match &domain.vcpus {
        Some(given) => given.iter().map(|v| v.period).min(),
        None => Some(system.vmm.vcpu_period),
    };
    let vcpu_period = vcpu_period.map_or(1, |p| p.as_nanos().max(1));
    let resumes: Vec<u64> = (tasks.iter())
        .map(|t| t.deadline.as_nanos().div_ceil(vcpu_period) + 1)
        .collect();
    // Under rt-global a VCPU resumes on any core, so even a partitioned guest's jobs migrate,
    // and each resumption after a VCPU period may land on another core.
    let vmm_global = system.vmm.scheduler == VmmScheduler::RtGlobal;
    let placement = match (domain.guest, vmm_global) {
        (GuestScheduler::Gedf | GuestScheduler::Gdm, _) | (_, true) => Placement::Global,
        _ => Placement::Partitioned,
    };
    // The kernel's throttling caps a physical core, and the execution loss is wall time a VCPU
    // holds its core without its guest working: each is charged once, to the VCPUs.
    let c = &Charges {
        context_switch: match vmm_global {
            true => c.context_switch + c.migration,
            false => c.context_switch,
        },
        rt_throttle: None,
        execution_loss: Default::default(),
        ..*c
    };
    let inflation =
        inflate_among(&tasks, placement, c, population, &resumes).map_err(|o| match o {
            crate::overheads::Overload::Interrupts => {
                "with overheads, release interrupts alone fill a core".to_string()
            }
            crate::overheads::Overload::Task(k) => format!(
                "with overheads, task `{}` no longer fits its deadline",
                domain.tasks[k].name
            ),
        })?;
    for (task, t) in domain.tasks.iter_mut().zip(inflation.tasks) {
        (task.wcet, task.deadline, task.period) = (t.wcet, t.deadline, t.period);
        task.bcet = task.bcet.min(t.wcet);
    }
    Ok(())
}

/// What a VCPU of budget `budget` leaves its guest: `Θ s - δ`, at least 0.
fn left_to_guest(budget: Duration, scale: f64, loss: u64) -> Duration {
    let kept = (budget.as_nanos() as f64 * scale).floor() as u64;
    Duration::from_nanos(kept.saturating_sub(loss))
}

/// Step 2 on a computed interface: each VCPU's budget becomes `(Θ + δ) / s`; a file's own
/// VCPUs keep the budgets the file gives.
fn charge_vcpus(interface: &mut DomainInterface, domain: &Domain, scale: f64, loss: u64) {
    if let Some(given) = &domain.vcpus {
        for (v, g) in interface.vcpus.iter_mut().zip(given) {
            v.budget = g.budget;
        }
        interface.budget = given.iter().fold(Duration::ZERO, |s, v| s + v.budget);
        return;
    }
    let mut total = Duration::ZERO;
    for v in interface.vcpus.iter_mut() {
        let needed = v.budget.as_nanos() + loss;
        // Without release charges nothing is scaled, exactly.
        let charged = match scale == 1.0 {
            true => needed,
            false => (needed as f64 / scale * ROUND_UP).ceil() as u64,
        };
        if charged > v.period.as_nanos() {
            let note = format!(
                "with overheads, VCPU {} needs {} every {}",
                v.name,
                Duration::from_nanos(charged),
                v.period
            );
            return unschedulable(interface, note);
        }
        v.budget = Duration::from_nanos(charged);
        total += v.budget;
    }
    interface.budget = total;
}

fn unschedulable(interface: &mut DomainInterface, note: String) {
    interface.schedulable = Some(false);
    interface.vcpus.clear();
    interface.budget = Duration::ZERO;
    interface.note = Some(note);
}

#[cfg(test)]
mod tests {
    use super::*;
    use kairos_model::vm_load::check_vm_source;

    /// One pEDF domain, one task of 1 ms every 10 ms, VCPUs of period 5 ms on one core.
    fn system(vcpus: &str) -> VmSystem {
        let text = format!(
            "cores = 1\n[vmm]\nscheduler = \"rt-partition\"\npriority = \"edf\"\n\
             vcpu_period = \"5ms\"\n[[domains]]\nname = \"d\"\nguest = \"pedf\"\n{vcpus}\n\
             [[domains.tasks]]\nname = \"t\"\nwcet = \"1ms\"\nperiod = \"10ms\"\ncore = 0\n"
        );
        let checked = check_vm_source(&text, kairos_model::Format::Toml);
        checked.system.expect("a valid system")
    }

    fn switches(context_switch_us: u64) -> Charges {
        Charges {
            context_switch: Duration::from_micros(context_switch_us),
            ..Charges::default()
        }
    }

    fn budget(report: &CsaReport) -> u64 {
        report.interfaces[0].budget.as_nanos()
    }

    #[test]
    fn a_computed_vcpu_carries_its_guests_switches_and_its_own() {
        // Ideal: the PRM (5 ms, Θ) supplies Θ + max(0, 10 - 2 (5 - Θ) - 5) by 10 ms, so
        // Θ = 1 ms. With 10 us switches: the job pays 2 + (⌈10/5⌉ + 1) = 5 switches, C' =
        // 1.05 ms, so Θ = 1.05 ms; the VCPU loses 2 switches a period: 1.07 ms.
        let s = system("vcpus = \"auto\"");
        assert_eq!(budget(&crate::csa::analyze(&s)), 1_000_000);
        let charged = analyze_with_overheads(&s, &switches(10));
        assert_eq!(budget(&charged), 1_070_000);
        assert_eq!(charged.schedulable, Some(true));
        assert_eq!(
            budget(&analyze_with_overheads(&s, &Charges::default())),
            1_000_000
        );
    }

    #[test]
    fn the_throttling_scales_the_vcpus_once_and_a_core_without_share_accepts_nothing() {
        // σ = 0.95 and nothing else: the guest keeps Θ = 1 ms (no throttle charged to it) and
        // the VCPU asks 1 ms / 0.95 = 1052631.58 -> 1052632 ns.
        let throttle = |runtime_ms| {
            Some(kairos_model::RtThrottle {
                runtime: Duration::from_millis(runtime_ms),
                period: Duration::from_millis(1000),
            })
        };
        let s = system("vcpus = \"auto\"");
        let c = Charges {
            rt_throttle: throttle(950),
            ..Charges::default()
        };
        let charged = analyze_with_overheads(&s, &c);
        assert_eq!(budget(&charged), 1_052_632);
        assert_eq!(charged.schedulable, Some(true));
        // A kernel that leaves real-time threads nothing: no VCPU can run.
        let none = Charges {
            rt_throttle: throttle(0),
            ..Charges::default()
        };
        assert_eq!(analyze_with_overheads(&s, &none).schedulable, Some(false));
        // A 3 % execution loss as well, charged once, to the VCPU: 1 ms / (0.95 x 0.97) =
        // 1085187.19 -> 1085188 ns (charged to the guest too, the guest's 1 ms would first
        // become 1 ms / 0.97, and the VCPU ask about 1.119 ms).
        let lossy = Charges {
            execution_loss: kairos_model::ExecutionLoss::from_ppm(30_000).unwrap(),
            ..c
        };
        assert_eq!(budget(&analyze_with_overheads(&s, &lossy)), 1_085_188);
    }

    #[test]
    fn a_files_own_vcpu_leaves_its_guest_less() {
        // 1.06 ms leaves 1.04 ms after the VCPU's two switches, below the 1.05 ms needed.
        let vcpu = |b: &str| {
            format!("[[domains.vcpus]]\nname = \"v\"\nbudget = \"{b}\"\nperiod = \"5ms\"")
        };
        let tight = system(&vcpu("1.06ms"));
        assert_eq!(crate::csa::analyze(&tight).schedulable, Some(true));
        let charged = analyze_with_overheads(&tight, &switches(10));
        assert_eq!(charged.schedulable, Some(false));
        assert_eq!(
            budget(&charged),
            1_060_000,
            "the file's budget is what the VMM runs"
        );
        let enough = system(&vcpu("1.07ms"));
        assert_eq!(
            analyze_with_overheads(&enough, &switches(10)).schedulable,
            Some(true)
        );
    }

    #[test]
    fn a_domain_that_no_longer_fits_says_why() {
        let charged = analyze_with_overheads(&system("vcpus = \"auto\""), &switches(2_000));
        assert_eq!(charged.schedulable, Some(false));
        let note = charged.interfaces[0].note.as_deref().unwrap_or_default();
        assert!(note.contains("with overheads"), "{note}");
    }
}
