//! The hierarchical policy on hand-made views: VMM order and placement, the guests' queues,
//! deferrable and periodic VCPUs, the quantum, and the plans it refuses.

use super::*;
use crate::job::{JobId, JobView};
use crate::server::{ServerId, ServerView};
use kairos_model::{check_vm_source, Duration, Format, Part, VmSystem};

fn system(vmm: &str, domains: &str) -> VmSystem {
    let text = format!("cores = 2\n[vmm]\n{vmm}\n{domains}");
    let checked = check_vm_source(&text, Format::Toml);
    checked
        .system
        .unwrap_or_else(|| panic!("{text}\n{:?}", checked.diagnostics))
}

const MS: u64 = 1_000_000;

fn at(ms: u64) -> Instant {
    Instant::from_nanos(ms * MS)
}

fn job(task: usize, deadline_ms: u64, running_on: Option<usize>) -> JobView {
    JobView {
        id: JobId { task, number: 0 },
        release: at(0),
        absolute_deadline: at(deadline_ms),
        part: Part::Mandatory,
        budget: Duration::from_millis(1),
        executed: Duration::ZERO,
        running_on,
        last_core: running_on,
    }
}

fn server(id: usize, deadline_ms: u64, left_ms: u64, running_on: Option<usize>) -> ServerView {
    ServerView {
        id: ServerId(id),
        replenished_at: at(0),
        deadline: at(deadline_ms),
        budget_left: Duration::from_millis(left_ms),
        running_on,
        last_core: running_on,
    }
}

fn decide(
    policy: &mut Hierarchical,
    now: u64,
    jobs: &[JobView],
    servers: &[ServerView],
) -> Decision {
    let plan = policy.plan.clone();
    policy.prepare(&plan.workload).unwrap();
    let view = View {
        now: at(now),
        cores: 2,
        mode: 0,
        jobs,
        index: None,
        tasks: &plan.workload.tasks,
        servers,
    };
    policy.decide(&view)
}

fn policy_of(system: &VmSystem) -> Hierarchical {
    Hierarchical::new(VmPlan::new(system).unwrap()).unwrap()
}

/// Two gEDF domains of one task each, one VCPU each (budget 2ms every `period`).
fn two_domains(vmm: &str, periods: [u64; 2]) -> VmSystem {
    let mut domains = String::new();
    for (d, period) in periods.iter().enumerate() {
        domains.push_str(&format!(
            "[[domains]]\nname = \"d{d}\"\nguest = \"gedf\"\n[[domains.vcpus]]\nname = \"v\"\nbudget = \"2ms\"\nperiod = \"{period}ms\"\ncpus = [0]\n[[domains.tasks]]\nname = \"t\"\nwcet = \"1ms\"\nperiod = \"20ms\"\n"
        ));
    }
    system(vmm, &domains)
}

#[test]
fn the_vmm_runs_the_more_important_vcpu_on_a_shared_core() {
    let jobs = [job(0, 20, None), job(1, 20, None)];
    // DM: the shorter period wins whatever the deadlines.
    let mut dm = policy_of(&two_domains(
        "scheduler = \"rt-partition\"\npriority = \"dm\"",
        [10, 5],
    ));
    let d = decide(
        &mut dm,
        0,
        &jobs,
        &[server(0, 4, 2, None), server(1, 5, 2, None)],
    );
    assert_eq!(d.servers, [Some(ServerId(1)), None]);
    assert_eq!(d.cores, [Some(JobId { task: 1, number: 0 }), None]);
    // EDF: the earlier current deadline wins.
    let mut edf = policy_of(&two_domains(
        "scheduler = \"rt-partition\"\npriority = \"edf\"",
        [10, 5],
    ));
    let d = decide(
        &mut edf,
        0,
        &jobs,
        &[server(0, 4, 2, None), server(1, 5, 2, None)],
    );
    assert_eq!(d.servers, [Some(ServerId(0)), None]);
    // Out of budget, the winner gives way.
    let d = decide(
        &mut edf,
        0,
        &jobs,
        &[server(0, 4, 0, None), server(1, 5, 2, None)],
    );
    assert_eq!(d.servers, [Some(ServerId(1)), None]);
}

#[test]
fn an_idle_deferrable_vcpu_stays_off_and_an_idle_periodic_one_burns_its_core() {
    let jobs = [job(1, 20, None)];
    let servers = [server(0, 4, 2, None), server(1, 5, 2, None)];
    let deferrable = "scheduler = \"rt-partition\"\npriority = \"edf\"\nserver = \"deferrable\"";
    let d = decide(
        &mut policy_of(&two_domains(deferrable, [10, 5])),
        0,
        &jobs,
        &servers,
    );
    assert_eq!(
        d.servers,
        [Some(ServerId(1)), None],
        "d0 has no job: its VCPU waits"
    );
    let periodic = "scheduler = \"rt-partition\"\npriority = \"edf\"\nserver = \"periodic\"";
    let d = decide(
        &mut policy_of(&two_domains(periodic, [10, 5])),
        0,
        &jobs,
        &servers,
    );
    assert_eq!(d.servers, [Some(ServerId(0)), None], "d0's VCPU runs idle");
    assert_eq!(d.cores, [None, None]);
}

/// One gEDF domain of three tasks on two VCPUs that may run anywhere.
fn global_domain(vmm: &str) -> VmSystem {
    let mut domains = "[[domains]]\nname = \"g\"\nguest = \"gedf\"\n".to_string();
    for v in 0..2 {
        domains.push_str(&format!(
            "[[domains.vcpus]]\nname = \"v{v}\"\nbudget = \"4ms\"\nperiod = \"10ms\"\n"
        ));
    }
    for t in 0..3 {
        domains.push_str(&format!(
            "[[domains.tasks]]\nname = \"t{t}\"\nwcet = \"1ms\"\nperiod = \"20ms\"\n"
        ));
    }
    system(vmm, &domains)
}

#[test]
fn a_global_guest_runs_its_most_urgent_jobs_and_they_keep_their_cores() {
    let mut p = policy_of(&global_domain(
        "scheduler = \"rt-global\"\npriority = \"edf\"",
    ));
    // Jobs due at 9, 7 and 8: 7 and 8 run. VCPU v1 (deadline 8) outranks v0 (10).
    let jobs = [job(0, 9, None), job(1, 7, Some(1)), job(2, 8, None)];
    let servers = [server(0, 10, 4, Some(0)), server(1, 8, 4, Some(1))];
    let d = decide(&mut p, 0, &jobs, &servers);
    assert_eq!(
        d.servers,
        [Some(ServerId(0)), Some(ServerId(1))],
        "VCPUs stay"
    );
    let ran: Vec<usize> = d.cores.iter().flatten().map(|j| j.task).collect();
    assert_eq!(
        d.cores[1],
        Some(JobId { task: 1, number: 0 }),
        "the running job keeps core 1"
    );
    assert_eq!(ran.len(), 2);
    assert!(
        ran.contains(&2) && !ran.contains(&0),
        "the two earliest deadlines run: {ran:?}"
    );
}

#[test]
fn with_a_quantum_a_placed_vcpu_keeps_its_core_until_the_next_tick() {
    let vmm = "scheduler = \"rt-partition\"\npriority = \"edf\"\nquantum = \"1ms\"";
    let mut p = policy_of(&two_domains(vmm, [10, 5]));
    let jobs = [job(0, 20, Some(0)), job(1, 20, None)];
    // d1's VCPU (deadline 4) outranks d0's (deadline 9), which runs: between ticks it stays.
    let servers = [server(0, 9, 2, Some(0)), server(1, 4, 2, None)];
    let mid = View {
        now: Instant::from_nanos(MS / 2),
        cores: 2,
        mode: 0,
        jobs: &jobs,
        index: None,
        tasks: &p.plan.workload.tasks.clone(),
        servers: &servers,
    };
    p.prepare(&p.plan.workload.clone()).unwrap();
    let d = p.decide(&mid);
    assert_eq!(d.servers, [Some(ServerId(0)), None]);
    assert_eq!(
        d.actions,
        [Action::ArmTimer {
            timer: TICK,
            at: at(1)
        }]
    );
    // At the tick it is preempted.
    let d = decide(&mut p, 1, &jobs, &servers);
    assert_eq!(d.servers, [Some(ServerId(1)), None]);
    assert_eq!(
        d.actions,
        [Action::ArmTimer {
            timer: TICK,
            at: at(2)
        }]
    );
}

#[test]
fn plans_without_explicit_or_pinned_vcpus_are_refused() {
    let auto = system(
        "scheduler = \"rt-global\"",
        "[[domains]]\nname = \"a\"\nguest = \"gedf\"\n[[domains.tasks]]\nname = \"t\"\nwcet = \"1ms\"\nperiod = \"10ms\"\n",
    );
    let refusal = VmPlan::new(&auto).unwrap_err();
    assert!(refusal.0.contains("kairos interface"), "{}", refusal.0);
    let unpinned = global_domain("scheduler = \"rt-partition\"");
    let refusal = VmPlan::new(&unpinned).unwrap_err();
    assert!(refusal.0.contains("one core"), "{}", refusal.0);
    let credit = global_domain("scheduler = \"credit\"");
    assert!(Hierarchical::new(VmPlan::new(&credit).unwrap()).is_err());
}
