use super::*;

fn ns(t: u64) -> Duration {
    Duration::from_nanos(t)
}

/// The least supply in a window of length `t` over every placement of Θ per period on at most
/// m' processors and every window start: each period the window meets gives at least what m'
/// processors cannot fit outside the window.
fn brute_sbf(pi: u64, theta: u64, m: u64, t: u64) -> u64 {
    (0..pi)
        .map(|start| {
            let end = start + t;
            (0..end.div_ceil(pi))
                .map(|j| {
                    let inside = end.min((j + 1) * pi) - start.max(j * pi);
                    theta.saturating_sub(m * (pi - inside))
                })
                .sum::<u64>()
        })
        .min()
        .expect("a period has a start")
}

fn small_resources() -> impl Iterator<Item = (u64, u64, u64)> {
    (1..=9u64)
        .flat_map(|pi| (1..=3u64).flat_map(move |m| (0..=m * pi).map(move |theta| (pi, theta, m))))
}

fn mpr(pi: u64, theta: u64, m: u64) -> Mpr {
    Mpr::new(ns(pi), ns(theta), m).unwrap()
}

fn prm(pi: u64, theta: u64) -> Prm {
    Prm::new(ns(pi), ns(theta)).unwrap()
}

#[test]
fn the_mpr_sbf_is_the_worst_case_supply_on_small_integers() {
    let mut cases = 0;
    for (pi, theta, m) in small_resources() {
        let r = mpr(pi, theta, m);
        for t in 0..=5 * pi {
            assert_eq!(r.sbf(ns(t)), ns(brute_sbf(pi, theta, m, t)), "{r:?} t={t}");
            cases += 1;
        }
    }
    assert!(cases > 5000);
}

#[test]
fn the_prm_sbf_is_the_worst_case_supply_and_the_mpr_one_on_one_processor() {
    for pi in 1..=12 {
        for theta in 0..=pi {
            let (one, as_mpr) = (prm(pi, theta), mpr(pi, theta, 1));
            for t in 0..=5 * pi {
                let sbf = one.sbf(ns(t));
                assert_eq!(
                    sbf,
                    ns(brute_sbf(pi, theta, 1, t)),
                    "Π={pi} Θ={theta} t={t}"
                );
                assert_eq!(sbf, as_mpr.sbf(ns(t)), "Π={pi} Θ={theta} t={t}");
            }
            assert_eq!(one.linear_intercept(), as_mpr.linear_intercept());
        }
    }
}

/// Γ = (5 ms, 2 ms) by Shin and Lee's formula: the blackout is 2(Π - Θ) = 6 ms, then the
/// supply rises by Θ = 2 ms, stays flat for Π - Θ = 3 ms, and rises again.
/// - t = 6: n = ⌊(6 - 3)/5⌋ = 0, 0 + max(0, 6 - 6) = 0.
/// - t = 7: n = 0, max(0, 7 - 6) = 1. t = 8: 2.
/// - t = 11: n = ⌊8/5⌋ = 1, 2 + max(0, 11 - 6 - 5) = 2.
/// - t = 12: n = 1, 2 + max(0, 12 - 11) = 3. t = 13: n = 2, 4 + max(0, 13 - 6 - 10) = 4.
#[test]
fn the_prm_sbf_on_hand_computed_points() {
    let r = Prm::new(Duration::from_millis(5), Duration::from_millis(2)).unwrap();
    let ms = Duration::from_millis;
    for (t, sbf) in [(0, 0), (6, 0), (7, 1), (8, 2), (11, 2), (12, 3), (13, 4)] {
        assert_eq!(r.sbf(ms(t)), ms(sbf), "t = {t} ms");
    }
}

/// μ = ⟨10, 14, 2⟩ (Θ/m' = 7 whole): the worst window starts when both processors end an
/// earliest supply [0, 7) and waits for a latest one [13, 20): 6 units of blackout, then 2
/// per unit up to Θ = 14 at t = 13, flat until the next latest supply [23, 30) begins at
/// t = 16. μ = ⟨10, 5, 2⟩ (α = 2, β = 1): earliest supply one processor over [0, 1) and both
/// over [1, 3), latest both over [18, 20) after one over [17, 18); from start 3 the blackout
/// lasts 14, from start 2 it gets the one unit at [2, 3) and then only [17, 19): 1 + 1 + 2.
#[test]
fn the_mpr_sbf_on_hand_computed_points() {
    let whole = mpr(10, 14, 2);
    for (t, sbf) in [(6, 0), (7, 2), (8, 4), (13, 14), (16, 14), (17, 16)] {
        assert_eq!(whole.sbf(ns(t)), ns(sbf), "⟨10, 14, 2⟩ t = {t}");
    }
    let split = mpr(10, 5, 2);
    for (t, sbf) in [(14, 0), (15, 1), (16, 2), (17, 4)] {
        assert_eq!(split.sbf(ns(t)), ns(sbf), "⟨10, 5, 2⟩ t = {t}");
    }
}

#[test]
fn the_linear_bounds_stay_below_the_supply() {
    let below = |r: &dyn Supply, t: u64| {
        let lsbf = r.bandwidth() * (t as f64 - r.linear_intercept());
        lsbf <= r.sbf(ns(t)).as_nanos() as f64 + 1e-9
    };
    for (pi, theta, m) in small_resources() {
        let r = mpr(pi, theta, m);
        assert!((0..=6 * pi).all(|t| below(&r, t)), "{r:?}");
        if m == 1 {
            assert!(
                (0..=6 * pi).all(|t| below(&prm(pi, theta), t)),
                "Π={pi} Θ={theta}"
            );
        }
    }
}

/// Between two consecutive kinks the sbf is linear on integers: its second difference is
/// zero at every instant that is not a kink.
#[test]
fn the_sbf_is_linear_between_its_kinks() {
    for (pi, theta, m) in small_resources() {
        let r = mpr(pi, theta, m);
        let mut kinks = Vec::new();
        r.visit_kinks(ns(0), ns(5 * pi), &mut |t| {
            kinks.push(t.as_nanos());
            true
        });
        let at = |t: u64| r.sbf(ns(t)).as_nanos() as i64;
        for t in 1..5 * pi {
            let bend = at(t + 1) - 2 * at(t) + at(t - 1);
            assert!(bend == 0 || kinks.contains(&t), "{r:?} bends at t={t}");
        }
    }
}

#[test]
fn a_resource_cannot_hold_more_than_its_processors() {
    assert!(Mpr::new(ns(10), ns(21), 2).is_none());
    assert!(Mpr::new(ns(0), ns(0), 1).is_none());
    assert!(Mpr::new(ns(10), ns(5), 0).is_none());
    assert!(Prm::new(ns(10), ns(11)).is_none());
    assert!(Prm::new(ns(0), ns(0)).is_none());
    assert_eq!(mpr(10, 20, 2).sbf(ns(7)), ns(14));
}
