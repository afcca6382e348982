//! The slot guard against values worked by hand from the module doc's formulas.

use super::*;
use kairos_model::{Dag, McTask};

// Δrel 10 us, Δev 20 us, Δsch 5 us, Δcxs 15 us, Δcpmd 30 us, Δipi 8 us, Δpart 3 us.
use crate::overheads::tests::{charges, us};

/// One DAG of period and deadline 4 ms: `a` (1 ms, 3 ms at HI) before `b` (2 ms, LO only).
fn system() -> McSystem {
    McSystem {
        name: None,
        cores: 1,
        levels: vec!["LO".into(), "HI".into()],
        dags: vec![Dag {
            name: "g".into(),
            period: us(4000),
            deadline: us(4000),
            tasks: vec![
                McTask {
                    name: "a".into(),
                    wcet: vec![us(1000), us(3000)],
                },
                McTask {
                    name: "b".into(),
                    wcet: vec![us(2000)],
                },
            ],
            edges: vec![(0, 1)],
        }],
    }
}

#[test]
fn the_guard_counts_each_cost_of_a_slot() {
    // One core: 2 x 20 + 5 + 15 = 60 us; a mode change 5 + 15 = 20 us.
    let one = SlotGuard::new(us(1000), 1, &charges());
    assert_eq!((one.guard, one.mode_change), (us(60), us(20)));
    assert_eq!(one.usable(), Some(us(940)));
    // Two cores add the migration 30 us and the doorbell pass 8 + 5 us: 103 us; 50 us.
    let two = SlotGuard::new(us(1000), 2, &charges());
    assert_eq!((two.guard, two.mode_change), (us(103), us(50)));
    // Three cores: two other cores may ring at a boundary, 2 x 13 us: 116 us.
    let three = SlotGuard::new(us(1000), 3, &charges());
    assert_eq!((three.guard, three.mode_change), (us(116), us(50)));
}

#[test]
fn a_throttled_machine_keeps_its_part_of_every_slot() {
    // (1 - 0.95) x 1000 us = 50 us more: 110 us on one core, 153 us on two.
    let c = Charges {
        rt_throttle: crate::overheads::tests::throttled(),
        ..charges()
    };
    assert_eq!(SlotGuard::new(us(1000), 1, &c).guard, us(110));
    assert_eq!(SlotGuard::new(us(1000), 2, &c).guard, us(153));
    // A 3 % execution loss besides: in ns, 1,000,000 - floor(950,000 x 0.97) = 1,000,000 -
    // 921,500 = 78,500; the loss alone keeps 30 us.
    let loss = kairos_model::ExecutionLoss::from_ppm(30_000).unwrap();
    let lossy = Charges {
        execution_loss: loss,
        ..c
    };
    let guard = SlotGuard::new(us(1000), 1, &lossy).guard;
    assert_eq!(guard, us(60) + Duration::from_nanos(78_500));
    let alone = Charges {
        execution_loss: loss,
        ..charges()
    };
    assert_eq!(SlotGuard::new(us(1000), 1, &alone).guard, us(90));
}

#[test]
fn wcets_become_whole_slots_of_usable_time() {
    let g = SlotGuard::new(us(1000), 1, &charges());
    // 1000 / 940 -> 2 slots; exactly 940 us -> 1 slot.
    assert_eq!(g.inflate(us(1000), 0), Some(us(2000)));
    assert_eq!(g.inflate(us(940), 0), Some(us(1000)));
    // Level 1 pays one mode change: (3000 + 20) / 940 = 3.2 -> 4 slots.
    assert_eq!(g.inflate(us(3000), 1), Some(us(4000)));
    // Level 2 pays two: (2000 + 40) / 940 = 2.2 -> 3 slots; 1840 + 40 = 1880 -> 2.
    assert_eq!(g.inflate(us(2000), 2), Some(us(3000)));
    assert_eq!(g.inflate(us(1840), 2), Some(us(2000)));
}

#[test]
fn the_system_is_inflated_task_by_task() {
    let guarded = guard(&system(), 1, &charges()).unwrap();
    // The slot is gcd(4000, 1000, 3000, 2000) = 1 ms: a 1 -> 2 ms, 3 -> 4 ms; b 2000 / 940 -> 3 ms.
    assert_eq!(guarded.guard.slot, us(1000));
    let a = &guarded.tasks[0];
    assert_eq!(
        (a.task.as_str(), a.inflated_wcet.clone()),
        ("g/a", vec![us(2000), us(4000)])
    );
    assert_eq!(a.wcet, vec![us(1000), us(3000)]);
    assert_eq!(guarded.system.dags[0].tasks[1].wcet, vec![us(3000)]);
    assert_eq!(guarded.system.dags[0].edges, system().dags[0].edges);
}

#[test]
fn a_guard_that_fills_the_slot_or_a_task_too_long_is_refused() {
    let mut big = charges();
    big.release_latency = us(470); // 940 + 5 + 15 = 960 us: 40 us usable
    let refused = guard(&system(), 1, &big).unwrap_err();
    // a at LO: 1000 / 40 = 25 slots = 25 ms > 4 ms.
    let text = refused.to_string();
    assert!(matches!(refused, Refusal::TooLong { .. }), "{text}");
    assert!(text.contains("g/a") && text.contains("25ms"), "{text}");
    big.release_latency = us(490); // 980 + 20 = 1000 us: nothing left
    let refused = guard(&system(), 1, &big).unwrap_err();
    assert!(matches!(refused, Refusal::GuardFillsSlot(g) if g.guard == us(1000)));
    assert!(
        refused.to_string().contains("no slot keeps any time"),
        "{refused}"
    );
}
