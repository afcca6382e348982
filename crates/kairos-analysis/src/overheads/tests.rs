//! The accounting against values worked by hand from the module doc's formulas (the quotients
//! rounded up to whole nanoseconds), and its limits.

use super::*;
use crate::{task_ns, test_rng};
use kairos_model::Cost;

pub(crate) fn us(v: u64) -> Duration {
    Duration::from_micros(v)
}

/// Δrel 10 us, Δev 20 us, Δsch 5 us, Δcxs 15 us, Δcpmd 30 us, Δipi 8 us, Δpart 3 us: the
/// hand-worked examples' charges, here and in [`super::tables`]'s tests.
pub(crate) fn charges() -> Charges {
    Charges {
        release: us(10),
        release_latency: us(20),
        scheduling: us(5),
        context_switch: us(15),
        migration: us(30),
        ipi: us(8),
        part_callback: us(3),
        ..Charges::default()
    }
}

/// Linux's default throttling: 950 ms of every 1 s.
pub(crate) fn throttled() -> Option<kairos_model::RtThrottle> {
    Some(kairos_model::RtThrottle {
        runtime: Duration::from_millis(950),
        period: Duration::from_millis(1000),
    })
}

fn wcets(inflation: &Inflation) -> Vec<u64> {
    inflation.tasks.iter().map(|t| t.wcet_ns()).collect()
}

/// (1 ms, 4 ms) and (2 ms, 10 ms): u_rel = 10/4000 + 10/10000 = 0.0035, s = 0.9965;
/// c_pre = (2 * 10000 + 20000 * 0.0035) / 0.9965 = 20140.49 -> 20141 ns.
fn two_tasks() -> [SporadicTask; 2] {
    [
        task_ns(1_000_000, 4_000_000, 4_000_000),
        task_ns(2_000_000, 10_000_000, 10_000_000),
    ]
}

#[test]
fn one_core_charges_switches_and_preemptions() {
    let inflation = inflate(&two_tasks(), Placement::Uniprocessor, &charges()).unwrap();
    assert!((inflation.scale - 0.9965).abs() < 1e-12);
    assert_eq!(inflation.preemption.as_nanos(), 20_141);
    // (1000000 + 2 * 20000) / 0.9965 = 1043652.78 -> 1043653, + 2 * 20141.
    // (2000000 + 40000) / 0.9965 = 2047165.08 -> 2047166, + 40282.
    assert_eq!(wcets(&inflation), vec![1_083_935, 2_087_448]);
    // Periods and deadlines lose the release latency, 20 us.
    let t = &inflation.tasks[0];
    assert_eq!((t.deadline_ns(), t.period_ns()), (3_980_000, 3_980_000));
}

#[test]
fn global_scheduling_adds_migration_and_the_doorbell() {
    let inflation = inflate(&two_tasks(), Placement::Global, &charges()).unwrap();
    // (1000000 + 40000 + 30000) / 0.9965 = 1073758.15 -> 1073759, + 40282 + 8000.
    // (2000000 + 70000) / 0.9965 = 2077270.45 -> 2077271, + 40282 + 8000.
    assert_eq!(wcets(&inflation), vec![1_122_041, 2_125_553]);
}

#[test]
fn partitioned_scheduling_adds_the_doorbell_only() {
    let inflation = inflate(&two_tasks(), Placement::Partitioned, &charges()).unwrap();
    assert_eq!(wcets(&inflation)[0], 1_083_935 + 8_000);
}

#[test]
fn an_imprecise_job_pays_two_part_boundaries() {
    // m = w = 1 ms, T = D = 10 ms alone, its release and its optional-deadline timer the two
    // interrupts: s = 1 - 2 * 10/10000 = 0.998;
    // c_pre = (2 * 10000 + 20000 * 0.002) / 0.998 = 20080.16 -> 20081.
    // A boundary is 3 + 5 + 15 = 23 us; C' = (2000000 + 40000 + 46000) / 0.998 = 2090180.36
    // -> 2090181, + 2 * 20081; w' = (1000000 + 23000) / 0.998 = 1025050.10 -> 1025051, + 20081.
    let task = SporadicTask::imprecise(
        Duration::from_millis(1),
        Duration::from_millis(1),
        Duration::from_millis(10),
        Duration::from_millis(10),
    );
    let inflation = inflate(&[task], Placement::Uniprocessor, &charges()).unwrap();
    let t = inflation.tasks[0];
    assert_eq!((t.wcet_ns(), t.windup_ns()), (2_130_343, 1_045_132));
}

#[test]
fn a_throttled_core_leaves_its_share_to_the_tasks() {
    // No cost but the throttling: s = 0.95 - 0 = 0.95, and nothing else is charged.
    let c = Charges {
        rt_throttle: throttled(),
        ..Charges::default()
    };
    // 9.4 ms / 0.95 = 9894736.84 -> 9894737 ns fits in 10 ms; 9.6 ms / 0.95 = 10.105 ms
    // does not: a core 96 % busy would be throttled.
    let fits = inflate(
        &[task_ns(9_400_000, 10_000_000, 10_000_000)],
        Placement::Uniprocessor,
        &c,
    );
    let fits = fits.unwrap();
    assert!((fits.scale - 0.95).abs() < 1e-12);
    assert_eq!(wcets(&fits), vec![9_894_737]);
    assert_eq!(
        inflate(
            &[task_ns(9_600_000, 10_000_000, 10_000_000)],
            Placement::Uniprocessor,
            &c
        ),
        Err(Overload::Task(0))
    );
    // With the release charges too: s = 0.95 - 0.0035 = 0.9465.
    let both = Charges {
        rt_throttle: throttled(),
        ..charges()
    };
    let inflation = inflate(&two_tasks(), Placement::Uniprocessor, &both).unwrap();
    assert!((inflation.scale - 0.9465).abs() < 1e-12);
}

#[test]
fn the_execution_loss_shrinks_the_share_left_to_jobs() {
    // A 3 % loss on a throttled core: s = 0.95 * 0.97 = 0.9215. 9.2 ms / 0.9215 =
    // 9983722.19 -> 9983723 ns fits in 10 ms; 9.3 ms does not, though it fits 0.95 alone.
    let loss = kairos_model::ExecutionLoss::from_ppm(30_000).unwrap();
    let c = Charges {
        rt_throttle: throttled(),
        execution_loss: loss,
        ..Charges::default()
    };
    let one = |wcet| [task_ns(wcet, 10_000_000, 10_000_000)];
    let fits = inflate(&one(9_200_000), Placement::Uniprocessor, &c).unwrap();
    assert!((fits.scale - 0.9215).abs() < 1e-12);
    assert_eq!(wcets(&fits), vec![9_983_723]);
    assert_eq!(
        inflate(&one(9_300_000), Placement::Uniprocessor, &c),
        Err(Overload::Task(0))
    );
    let throttle_alone = Charges {
        execution_loss: Default::default(),
        ..c
    };
    assert!(inflate(&one(9_300_000), Placement::Uniprocessor, &throttle_alone).is_ok());
    // Without throttling the loss alone: s = 0.97.
    let unthrottled = Charges {
        execution_loss: loss,
        ..Charges::default()
    };
    let alone = inflate(&one(9_200_000), Placement::Uniprocessor, &unthrottled).unwrap();
    assert!((alone.scale - 0.97).abs() < 1e-12);
}

#[test]
fn release_interrupts_that_fill_a_core_are_an_overload() {
    let c = Charges {
        release: us(500),
        ..Charges::default()
    };
    let tasks = [task_ns(1, 1_000_000, 1_000_000); 2];
    assert_eq!(
        inflate(&tasks, Placement::Global, &c),
        Err(Overload::Interrupts)
    );
}

#[test]
fn a_task_that_cannot_fit_is_named() {
    // The release latency reaches the second task's deadline.
    let c = Charges {
        release_latency: us(50),
        ..Charges::default()
    };
    let tasks = [
        task_ns(1_000, 100_000, 100_000),
        task_ns(10, 50_000, 100_000),
    ];
    assert_eq!(
        inflate(&tasks, Placement::Uniprocessor, &c),
        Err(Overload::Task(1))
    );
    // The switches push the first task's density above 1.
    let c = Charges {
        context_switch: us(10),
        ..Charges::default()
    };
    let tasks = [task_ns(90_000, 100_000, 100_000)];
    assert_eq!(
        inflate(&tasks, Placement::Uniprocessor, &c),
        Err(Overload::Task(0))
    );
}

#[test]
fn zero_charges_change_nothing() {
    let mut next = test_rng(0x5eed);
    for _ in 0..200 {
        let tasks: Vec<SporadicTask> = (0..1 + next(8))
            .map(|_| {
                let period = 1_000 + next(1_000_000);
                let deadline = 1 + next(period);
                task_ns(1 + next(deadline), deadline, period)
            })
            .collect();
        for placement in [Placement::Global, Placement::Partitioned] {
            let inflation = inflate(&tasks, placement, &Charges::default()).unwrap();
            assert_eq!(inflation.tasks, tasks);
            assert_eq!(inflation.preemption, Duration::ZERO);
        }
    }
}

#[test]
fn quantiles_pick_their_point_and_fixed_costs_stay() {
    let measured = kairos_model::Quantiles::from_values([us(1), us(2), us(3), us(4), us(9)]);
    let overheads = kairos_model::Overheads {
        scheduling: Cost::Measured(measured.unwrap()),
        context_switch: Cost::Fixed(us(6)),
        ..Default::default()
    };
    let p99 = Charges::at(&overheads, Quantile::P99);
    let max = Charges::at(&overheads, Quantile::Max);
    assert_eq!((p99.scheduling, max.scheduling), (us(4), us(9)));
    assert_eq!((p99.context_switch, max.context_switch), (us(6), us(6)));
    assert_eq!(Quantile::parse("p99"), Ok(Quantile::P99));
    assert!(Quantile::parse("p50").is_err());
    // p999 where the distribution has it (7 us), its max where it has none.
    let with = measured.unwrap().with_p999(us(7)).unwrap();
    let both = kairos_model::Overheads {
        migration: Cost::Measured(with),
        ..overheads
    };
    let p999 = Charges::at(&both, Quantile::parse("p999").unwrap());
    assert_eq!((p999.migration, p999.scheduling), (us(7), us(9)));
    assert_eq!(Quantile::P999.profile_key(), Some("p999"));
    assert_eq!(Quantile::Max.profile_key(), None);
}

#[test]
fn a_profile_capped_at_a_quantile_draws_nothing_above_its_charge() {
    let measured = kairos_model::Quantiles::from_values([us(1), us(2), us(3), us(4), us(9)])
        .and_then(|q| q.with_p999(us(7)))
        .unwrap();
    let overheads = kairos_model::Overheads {
        scheduling: Cost::Measured(measured),
        context_switch: Cost::Fixed(us(6)),
        ..Default::default()
    };
    let lossy = kairos_model::Overheads {
        execution_loss: kairos_model::ExecutionLoss::from_ppm(30_000).unwrap(),
        ..overheads
    };
    // The shares are no distributions: the cut and the charges carry them as they are.
    assert_eq!(Quantile::P99.cap(&lossy).execution_loss.ppm(), 30_000);
    assert_eq!(
        Charges::at(&lossy, Quantile::P99).execution_loss.ppm(),
        30_000
    );
    let capped = Quantile::P99.cap(&overheads);
    let Cost::Measured(q) = capped.scheduling else {
        panic!("a measured cost stays measured: {capped:?}");
    };
    // The points up to p99 stay; p999 and max come down to the 4 us charged.
    assert_eq!(q.values(), [us(1), us(2), us(3), us(4), us(4)]);
    assert_eq!(q.p999, Some(us(4)));
    assert!((0..=1000).all(|k| q.at(k as f64 / 1000.0) <= us(4)));
    assert_eq!(capped.context_switch, Cost::Fixed(us(6)));
    // The charges themselves are unchanged, at every quantile the cap keeps.
    assert_eq!(
        Charges::at(&capped, Quantile::P99),
        Charges::at(&overheads, Quantile::P99)
    );
    let p999 = Quantile::P999.cap(&overheads);
    assert_eq!(
        Charges::at(&p999, Quantile::P999),
        Charges::at(&overheads, Quantile::P999)
    );
    assert_eq!(Quantile::Max.cap(&overheads), overheads);
}

/// EDZL counts three interrupts per period (a release and two moved wake-ups):
/// u_rel = 3 * (10/4000 + 10/10000) = 0.0105, s = 0.9895, n = 6 interrupts;
/// c_pre = (6 * 10000 + 20000 * 0.0105) / 0.9895 = 60848.91 -> 60849.
#[test]
fn edzl_charges_its_reorder_wake_ups_as_interrupts() {
    let inflated = edzl::inflate(&two_tasks(), Placement::Global, &charges())
        .unwrap()
        .tasks;
    // (1000000 + 40000 + 30000) / 0.9895 = 1081354.22 -> 1081355, + 2 * 60849 + 8000.
    // (2000000 + 70000) / 0.9895 = 2091965.64 -> 2091966, + 2 * 60849 + 8000.
    let wcets: Vec<u64> = inflated.iter().map(|t| t.wcet_ns()).collect();
    assert_eq!(wcets, vec![1_211_053, 2_221_664]);
    assert_eq!(inflated[0].deadline_ns(), 3_980_000);
}

/// The inflated densities, 1211053 / 3980000 = 0.3043 and 2221664 / 9980000 = 0.2226, sum to
/// 0.527 <= 2 - 0.3043 (GFB on two cores): accepted. A first task of 3.9 ms inflates to
/// (3900000 + 70000) / 0.9895 + 129698 > 3.98 ms: refused, naming it.
#[test]
fn edzl_with_overheads_is_the_g_edf_verdict_on_the_inflated_set() {
    let test = (crate::registry::all().iter())
        .find(|t| t.name == "gedzl")
        .expect("registered");
    assert!(verdict(test, &two_tasks(), 2, None, &charges()).schedulable);
    let tight = [task_ns(3_900_000, 4_000_000, 4_000_000), two_tasks()[1]];
    let refused = verdict(test, &tight, 2, None, &charges());
    assert_eq!(
        (refused.schedulable, refused.failing_task),
        (false, Some(0))
    );
}
