//! Whole task sets: caps, squeezing, grid rounding, UUniFast sets and RT-Xen sets.

use kairos_gen::rng::seeded;
use kairos_gen::{
    draw_task, generate_rtxen, generate_until_cap, generate_with_randfixedsum,
    generate_with_uunifast, make_workload, rtxen_targets, DeadlineDist, PeriodDist, RtXenConfig,
    UtilDist,
};
use kairos_model::{Arrival, Duration, Task};

fn total(tasks: &[Task]) -> f64 {
    tasks.iter().map(Task::utilization).sum()
}

/// Every combination the cap tests sweep, with grids from 1 ns to 1 ms.
fn combos() -> Vec<(UtilDist, PeriodDist, DeadlineDist, Duration)> {
    let grids = [
        Duration::from_nanos(1),
        Duration::from_micros(10),
        Duration::from_millis(1),
    ];
    let mut out = Vec::new();
    for (i, util) in UtilDist::ALL.into_iter().enumerate() {
        for (j, period) in PeriodDist::NAMED.into_iter().enumerate() {
            let deadline = DeadlineDist::ALL[(i + j) % 3];
            out.push((util, period, deadline, grids[(i * 7 + j) % 3]));
        }
    }
    out
}

/// The shape every generated task must have.
fn assert_well_formed(tasks: &[Task], grid: Duration, deadline: DeadlineDist) {
    let g = grid.as_nanos();
    for (i, t) in tasks.iter().enumerate() {
        assert_eq!(t.name, format!("T{}", i + 1));
        let (c, d, p) = (
            t.wcet.as_nanos(),
            t.deadline.as_nanos(),
            t.period.as_nanos(),
        );
        assert!(c >= g, "{}: C = {c} below one grid unit {g}", t.name);
        assert_eq!(
            (c % g, d % g, p % g),
            (0, 0, 0),
            "{}: off the grid {g}",
            t.name
        );
        assert!(c <= d, "{}: C = {c} > D = {d}", t.name);
        match deadline {
            DeadlineDist::Implicit => assert_eq!(d, p),
            DeadlineDist::UniConstrained => assert!(d <= p, "{}: D = {d} > T = {p}", t.name),
            DeadlineDist::UniArbitrary => assert!(d - c <= 2 * (p - c)),
        }
        assert_eq!(t.bcet, t.wcet);
        assert_eq!(t.arrival, Arrival::Periodic);
        assert!(t.offset.is_zero() && t.priority.is_none() && t.core.is_none());
    }
}

#[test]
fn until_cap_stops_right_before_overshooting() {
    for (k, (util, period, deadline, grid)) in combos().into_iter().enumerate() {
        for seed in 0..8u64 {
            let cap = 0.5 + (seed as f64) * 0.45;
            let rng = &mut seeded(seed * 100 + k as u64);
            let tasks = generate_until_cap(rng, cap, util, period, deadline, grid, false).unwrap();
            assert!(total(&tasks) <= cap, "total {} > cap {cap}", total(&tasks));
            assert_well_formed(&tasks, grid, deadline);
            // Replay with the one-task twin: same tasks, and the next one overshoots.
            let replay = &mut seeded(seed * 100 + k as u64);
            let mut sum = 0.0;
            for (i, t) in tasks.iter().enumerate() {
                let again = draw_task(replay, i + 1, util, period, deadline, grid).unwrap();
                assert_eq!(&again, t);
                sum += t.utilization();
            }
            let next = draw_task(replay, tasks.len() + 1, util, period, deadline, grid).unwrap();
            assert!(
                sum + next.utilization() > cap,
                "{util}/{period}: stopped too early"
            );
        }
    }
}

#[test]
fn squeeze_fills_the_cap_to_the_grid() {
    for (k, (util, period, deadline, grid)) in combos().into_iter().enumerate() {
        for seed in 0..8u64 {
            let cap = 0.7 + (seed as f64) * 0.61;
            let seed = seed * 1000 + k as u64;
            let squeezed =
                generate_until_cap(&mut seeded(seed), cap, util, period, deadline, grid, true)
                    .unwrap();
            assert_well_formed(&squeezed, grid, deadline);
            // Squeezing changes only the overshooting task: the rest is the dropping run.
            let dropped =
                generate_until_cap(&mut seeded(seed), cap, util, period, deadline, grid, false)
                    .unwrap();
            let over = over_after(seed, dropped.len(), util, period, deadline, grid);
            assert_eq!(squeezed[..dropped.len()], dropped[..]);
            assert!(squeezed.len() <= dropped.len() + 1);
            if let Some(last) = squeezed.get(dropped.len()) {
                assert_eq!(last.period, over.period);
                assert!(last.wcet < over.wcet, "the squeezed task did not shrink");
            }
            let sum = total(&squeezed);
            let resolution = grid.as_nanos() as f64 / over.period.as_nanos() as f64;
            assert!(sum <= cap, "squeezed total {sum} > cap {cap}");
            assert!(
                cap - sum < resolution,
                "{util}/{period}: {sum} short of {cap}"
            );
        }
    }
}

/// The task a run from `seed` draws after its first `n` tasks: the one that overshoots.
fn over_after(
    seed: u64,
    n: usize,
    util: UtilDist,
    period: PeriodDist,
    deadline: DeadlineDist,
    grid: Duration,
) -> Task {
    let rng = &mut seeded(seed);
    for i in 1..=n {
        draw_task(rng, i, util, period, deadline, grid).unwrap();
    }
    draw_task(rng, n + 1, util, period, deadline, grid).unwrap()
}

#[test]
fn uunifast_sets_have_n_tasks_and_the_total_to_the_grid() {
    let grid = Duration::from_micros(1);
    for seed in 0..200u64 {
        let rng = &mut seeded(seed);
        let n = 2 + (seed % 15) as usize;
        let total_u = 0.2 + (seed % 40) as f64 * 0.1;
        let total_u = total_u.min(n as f64 * 0.9 * 0.6);
        let deadline = DeadlineDist::ALL[(seed % 3) as usize];
        let period = PeriodDist::NAMED[(seed % 7) as usize];
        let tasks = if seed % 2 == 0 {
            generate_with_uunifast(rng, n, total_u, period, deadline, grid, 0.9)
        } else {
            generate_with_randfixedsum(rng, n, total_u, 0.9, period, deadline, grid)
        }
        .unwrap();
        assert_eq!(tasks.len(), n);
        assert_well_formed(&tasks, grid, deadline);
        // Each C moves by at most half a grid unit, or up to one unit when raised to the minimum.
        let slack: f64 = tasks.iter().map(|t| 1e3 / t.period.as_nanos() as f64).sum();
        assert!(
            (total(&tasks) - total_u).abs() <= slack,
            "seed {seed}: {}",
            total(&tasks)
        );
        let cap_slack = |t: &Task| 0.9 + 1e3 / t.period.as_nanos() as f64;
        assert!(tasks.iter().all(|t| t.utilization() <= cap_slack(t)));
    }
}

#[test]
fn rtxen_sets_hit_the_target_exactly() {
    let utils = [
        UtilDist::BimoLight,
        UtilDist::BimoMedium,
        UtilDist::BimoHeavy,
    ];
    for (k, target) in rtxen_targets().into_iter().enumerate() {
        for (m, util) in utils.into_iter().enumerate() {
            let config = RtXenConfig::new(target, util);
            let set = generate_rtxen(&mut seeded((k * 3 + m) as u64), &config).unwrap();
            assert_well_formed(&set.tasks, config.grid, DeadlineDist::Implicit);
            for t in &set.tasks {
                let ms = t.period.as_nanos() / 1_000_000;
                assert!((350..=850).contains(&ms) && t.period.as_nanos() % 1_000_000 == 0);
            }
            let pad = set.pad.expect("a pad task");
            assert_eq!(pad, set.tasks.len() - 1);
            let resolution = 1e3 / set.tasks[pad].period.as_nanos() as f64;
            let sum = total(&set.tasks);
            assert!(
                (sum - target).abs() <= resolution / 2.0 + 1e-12,
                "{util}: {sum} vs {target}"
            );
            assert_eq!(set.domain_of.len(), set.tasks.len());
            assert!(set.domain_of.iter().all(|&d| d < 4));
        }
    }
}

#[test]
fn rtxen_domains_are_uniform() {
    let mut counts = [0usize; 4];
    for seed in 0..300 {
        let set = generate_rtxen(
            &mut seeded(seed),
            &RtXenConfig::new(3.1, UtilDist::BimoLight),
        )
        .unwrap();
        set.domain_of.iter().for_each(|&d| counts[d] += 1);
    }
    let n: usize = counts.iter().sum();
    let chi2: f64 = counts
        .iter()
        .map(|&c| (c as f64 - n as f64 / 4.0).powi(2) / (n as f64 / 4.0))
        .sum();
    assert!(
        chi2 < 16.27,
        "domain counts {counts:?}: chi^2 = {chi2} (3 dof, alpha 1e-3)"
    );
}

#[test]
fn workload_helper_wraps_the_tasks() {
    let rng = &mut seeded(3);
    let (u, p, d) = (
        UtilDist::UniMedium,
        PeriodDist::UniShort,
        DeadlineDist::Implicit,
    );
    let tasks = generate_until_cap(rng, 1.5, u, p, d, Duration::from_micros(1), false).unwrap();
    let w = make_workload(Some("gen".into()), 2, tasks.clone());
    assert_eq!(
        (w.name.as_deref(), w.cores, w.tasks),
        (Some("gen"), 2, tasks)
    );
    assert!(w.overheads.is_zero());
}
