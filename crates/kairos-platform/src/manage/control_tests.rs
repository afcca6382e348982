use super::*;
use crate::manage::model::{InterferenceModel, Prior};

const MS: u64 = 1_000_000;

fn config(execution: Execution, caps: &[u64], rt_core: Option<usize>) -> ControlConfig {
    ControlConfig {
        execution,
        period: Duration::from_millis(10),
        target: Duration::from_millis(5),
        expected: Duration::from_millis(4),
        caps: caps.iter().map(|c| Duration::from_nanos(c * MS)).collect(),
        rt_core,
        rt_max: Duration::from_nanos(9_500_000),
        hold: Duration::from_millis(100),
        probe: Duration::ZERO,
    }
}

fn model(slopes: &[f64]) -> InterferenceModel {
    let priors: Vec<Prior> = slopes
        .iter()
        .map(|s| Prior {
            slope_ns: *s,
            spread_ns: 1.0,
        })
        .collect();
    let intercept = Prior {
        slope_ns: 0.0,
        spread_ns: 1.0,
    };
    InterferenceModel::new(intercept, &priors, 1.0)
}

fn initial(caps: &[u64]) -> Shares {
    Shares {
        be: caps.iter().map(|c| Duration::from_nanos(c * MS)).collect(),
        rt: Duration::from_millis(10),
    }
}

/// The brute-force twin: the most total share on a grid of 1 % steps whose prediction stays
/// within the target; the floors when none does (the kernel's smallest quota is the least a
/// core can get).
fn brute_force(slopes: &[f64; 2], caps: [f64; 2], budget: f64) -> f64 {
    let floor: f64 = 0.1;
    let mut best: f64 = floor.min(caps[0]) + floor.min(caps[1]);
    for a in 0..=100 {
        for b in 0..=100 {
            let u = [a as f64 / 100.0, b as f64 / 100.0];
            if u[0] < floor.min(caps[0])
                || u[1] < floor.min(caps[1])
                || u[0] > caps[0]
                || u[1] > caps[1]
            {
                continue;
            }
            if slopes[0] * u[0] + slopes[1] * u[1] <= budget + 1e-6 {
                best = best.max(u[0] + u[1]);
            }
        }
    }
    best
}

#[test]
fn free_shares_match_a_brute_force_search() {
    for slopes in [[2e6, 5e5], [1e5, 3e6], [0.0, 4e6], [8e6, 9e6], [-1e5, 1e6]] {
        let caps = [10, 8];
        let controller = Controller::new(config(Execution::Free, &caps, None), initial(&caps));
        let shares = controller.desired(&model(&slopes));
        let total: f64 = controller.fractions(&shares).iter().sum();
        let best = brute_force(&slopes, [1.0, 0.8], 1e6);
        // The grid is 1 % and the shares are rounded down to microseconds.
        assert!(
            (total - best).abs() <= 0.021,
            "{slopes:?}: {total} vs {best}"
        );
        let predicted = controller.predicted(&model(&slopes), &shares);
        assert!(
            predicted <= Duration::from_millis(5) || total <= 0.2 + 1e-9,
            "{slopes:?}: {predicted}"
        );
    }
}

#[test]
fn changes_wait_for_the_hold_time_and_a_visible_step() {
    let caps = [10];
    let mut controller = Controller::new(config(Execution::Free, &caps, None), initial(&caps));
    let heavy = model(&[4e6]);
    let first = controller
        .step(&heavy, 1, Duration::from_millis(10))
        .expect("a reduction");
    assert!(first.to.be[0] < first.from.be[0], "{first:?}");
    assert!(
        first.reason.contains("less best-effort time"),
        "{}",
        first.reason
    );
    let light = model(&[1e5]);
    assert!(
        controller
            .step(&light, 2, Duration::from_millis(50))
            .is_none(),
        "held"
    );
    let back = controller
        .step(&light, 3, Duration::from_millis(120))
        .expect("a restore");
    assert_eq!(back.to.be[0], Duration::from_millis(10));
    assert!(back.reason.contains("within the target"), "{}", back.reason);
    assert!(
        controller
            .step(&light, 4, Duration::from_millis(400))
            .is_none(),
        "nothing to change"
    );
}

#[test]
fn constrained_reservations_supply_the_predicted_demand() {
    let caps = [6, 10];
    let mut config = config(Execution::Constrained, &caps, Some(0));
    config.target = Duration::from_millis(20);
    let controller = Controller::new(config, initial(&caps));
    let slopes = [5e5, 2e6];
    let m = model(&slopes);
    let shares = controller.desired(&m);
    // Two periods fit the target: S_RT supplies half the demand, charged with the RT core's
    // own best-effort work at its cap.
    let mut charged = shares.clone();
    charged.be[0] = Duration::from_millis(6);
    let demand = controller.predicted(&m, &charged);
    assert!(
        shares.rt.as_nanos() * 2 >= demand.as_nanos(),
        "{shares:?} {demand}"
    );
    assert!(shares.rt.as_nanos() * 2 < demand.as_nanos() + 4_000);
    assert_eq!(
        shares.be[1],
        Duration::from_millis(10),
        "room for the other core"
    );
    assert_eq!(
        shares.be[0],
        Duration::from_millis(6).min(Duration::from_millis(10) - shares.rt)
    );
}

#[test]
fn a_reservation_also_supplies_the_work_a_late_job_carried_over() {
    let caps = [10];
    let mut config = config(Execution::Constrained, &caps, None);
    config.target = Duration::from_millis(30);
    let mut controller = Controller::new(config, initial(&caps));
    let m = model(&[0.0]);
    let on_time = controller.desired(&m).rt;
    // Three periods in the target, T_expected 4 ms: a third each, rounded up to a microsecond.
    assert_eq!(on_time, Duration::from_nanos(1_334_000));
    controller.carry(Duration::from_millis(3));
    let late = controller.desired(&m).rt;
    assert_eq!(late, Duration::from_nanos(2_334_000), "a third of 7 ms");
    let change = controller
        .step(&m, 1, Duration::from_millis(40))
        .expect("a larger reservation");
    assert_eq!(change.to.rt, late);
    assert!(change.reason.contains("carried over"), "{}", change.reason);
    // Once the backlog is worked off the reservation returns to the demand alone.
    controller.carry(Duration::ZERO);
    let back = controller
        .step(&m, 2, Duration::from_millis(400))
        .expect("back to the demand");
    assert_eq!(back.to.rt, on_time);
}

#[test]
fn a_quiet_manager_probes_a_share_below_its_cap_and_an_unreachable_target_keeps_cheap_shares() {
    let caps = [10];
    let mut probing = config(Execution::Free, &caps, None);
    probing.probe = Duration::from_millis(500);
    let mut controller = Controller::new(probing, initial(&caps));
    let heavy = model(&[4e6]);
    let cut = controller
        .step(&heavy, 1, Duration::from_millis(10))
        .expect("a reduction");
    assert!(
        controller
            .step(&heavy, 2, Duration::from_millis(300))
            .is_none(),
        "nothing to change yet"
    );
    let probe = controller
        .step(&heavy, 3, Duration::from_millis(600))
        .expect("a probe");
    assert!(probe.reason.starts_with("probe:"), "{}", probe.reason);
    assert_eq!(
        probe.to.be[0],
        cut.to.be[0] + Duration::from_nanos(2_500_000)
    );
    // An intercept above the whole budget and a slope too small to matter: the target is out
    // of reach and cutting buys nothing visible, so the share stays at its cap.
    let unreachable = InterferenceModel::new(
        Prior {
            slope_ns: 2e6,
            spread_ns: 1.0,
        },
        &[Prior {
            slope_ns: 1e5,
            spread_ns: 1.0,
        }],
        1.0,
    );
    let fresh = Controller::new(config(Execution::Free, &caps, None), initial(&caps));
    assert_eq!(fresh.desired(&unreachable).be[0], Duration::from_millis(10));
}
