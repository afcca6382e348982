//! G-RMWP and P-RMWP driven by hand through the contract's callbacks.

use super::{Rmwp, Scope};
use crate::{Action, Decision, JobId, JobView, Policy, TimerId, View};
use kairos_model::{check_source, Duration, Format, Instant, Part, Workload};

fn at(ms: u64) -> Instant {
    Instant::ZERO + Duration::from_millis(ms)
}

/// `a` (T 10, OD 6) above `b` (T 20, OD 12); one core.
fn workload(cores: usize) -> Workload {
    let src = format!(
        "cores = {cores}\n\
         [[tasks]]\nname = \"a\"\nperiod = \"10ms\"\nmandatory = \"2ms\"\noptional = \"3ms\"\nwindup = \"1ms\"\noptional_deadline = \"6ms\"\n\
         [[tasks]]\nname = \"b\"\nperiod = \"20ms\"\nmandatory = \"2ms\"\noptional = \"5ms\"\nwindup = \"2ms\"\noptional_deadline = \"12ms\"\n"
    );
    check_source(&src, Format::Toml).workload.expect("valid")
}

fn job(task: usize, part: Part) -> JobView {
    JobView {
        id: JobId { task, number: 0 },
        release: at(0),
        absolute_deadline: at([10, 20][task]),
        part,
        budget: Duration::from_millis(1),
        executed: Duration::ZERO,
        running_on: None,
        last_core: None,
    }
}

fn decide(policy: &mut Rmwp, w: &Workload, now: u64, jobs: &[JobView]) -> Decision {
    let view = View {
        now: at(now),
        cores: w.cores,
        mode: 0,
        jobs,
        index: None,
        tasks: &w.tasks,
        servers: &[],
    };
    policy.decide(&view)
}

#[test]
fn optional_parts_run_below_every_real_time_part_and_are_cut_at_the_optional_deadline() {
    let w = workload(1);
    let mut p = Rmwp::new(Scope::Global);
    p.prepare(&w).unwrap();
    let (a, b) = (job(0, Part::Mandatory), job(1, Part::Mandatory));
    p.job_released(at(0), &a);
    p.job_released(at(0), &b);
    assert_eq!(
        decide(&mut p, &w, 0, &[a.clone(), b.clone()]).cores,
        vec![Some(a.id)]
    );
    // a's mandatory part ends at 2, before its optional deadline 6: its optional part waits
    // below b's mandatory part, and the timer is armed for a's optional deadline.
    let a_opt = job(0, Part::Optional);
    p.part_completed(at(2), &a_opt, Part::Mandatory);
    let d = decide(&mut p, &w, 2, &[a_opt.clone(), b.clone()]);
    assert_eq!(d.cores, vec![Some(b.id)]);
    assert_eq!(
        d.actions,
        vec![Action::ArmTimer {
            timer: TimerId(0),
            at: at(6)
        }]
    );
    // b's mandatory part ends at 4 (optional deadline 12): a's optional part runs first.
    let b_opt = job(1, Part::Optional);
    p.part_completed(at(4), &b_opt, Part::Mandatory);
    assert_eq!(
        decide(&mut p, &w, 4, &[a_opt.clone(), b_opt.clone()]).cores,
        vec![Some(a.id)]
    );
    // At 6 a's optional part is cut; its wind-up runs at once, above b's optional part.
    p.timer_fired(at(6), TimerId(0));
    let d = decide(&mut p, &w, 6, &[a_opt, b_opt.clone()]);
    assert_eq!(d.cores, vec![Some(a.id)]);
    assert_eq!(
        d.actions,
        vec![
            Action::CutOptional(a.id),
            Action::ArmTimer {
                timer: TimerId(0),
                at: at(12)
            }
        ]
    );
    // b's optional part completes at 9: its wind-up sleeps until 12, the core idles.
    let a_windup = job(0, Part::Windup);
    p.job_completed(at(7), &a_windup);
    let b_windup = job(1, Part::Windup);
    p.part_completed(at(9), &b_windup, Part::Optional);
    assert_eq!(
        decide(&mut p, &w, 9, std::slice::from_ref(&b_windup)).cores,
        vec![None]
    );
    p.timer_fired(at(12), TimerId(0));
    let d = decide(&mut p, &w, 12, &[b_windup]);
    // The timer fired, so nothing is left to cancel.
    assert_eq!((d.cores, d.actions), (vec![Some(b.id)], vec![]));
}

#[test]
fn a_mandatory_part_ending_at_its_optional_deadline_skips_the_optional_part() {
    let w = workload(1);
    let mut p = Rmwp::new(Scope::Partitioned);
    p.prepare(&w).unwrap();
    let a = job(0, Part::Mandatory);
    p.job_released(at(0), &a);
    let _ = decide(&mut p, &w, 0, std::slice::from_ref(&a));
    let a_opt = job(0, Part::Optional);
    p.part_completed(at(6), &a_opt, Part::Mandatory);
    let d = decide(&mut p, &w, 6, &[a_opt]);
    assert_eq!(
        (d.cores, d.actions),
        (vec![Some(a.id)], vec![Action::CutOptional(a.id)])
    );
}

#[test]
fn imprecise_tasks_need_optional_deadlines() {
    let mut w = workload(2);
    w.tasks[1].imprecise.as_mut().unwrap().optional_deadline = None;
    let refusal = Rmwp::new(Scope::Global).prepare(&w).unwrap_err();
    assert!(
        refusal.0.contains("`b` has no optional deadline"),
        "{}",
        refusal.0
    );
}

#[test]
fn p_rmwp_refuses_a_binding_to_a_missing_core() {
    let mut w = workload(2);
    w.tasks[1].core = Some(kairos_model::CoreId(5));
    let refusal = Rmwp::new(Scope::Partitioned).prepare(&w).unwrap_err();
    assert!(
        refusal.0.contains("`b` is bound to core 5"),
        "{}",
        refusal.0
    );
    assert_eq!(Rmwp::new(Scope::Global).prepare(&w), Ok(()));
}
