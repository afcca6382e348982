//! Overheads given as measured distributions: each switch-in draws its charge from the
//! distribution's quantile function with the run's seed, inside [min, max], averaging the
//! distribution's mean; a fixed cost is charged as it is.

use kairos_model::{check_source, Cost, Duration, Format, Overheads, Quantiles, Workload};
use kairos_policy::{PolicyKind, PriorityOrder};
use kairos_sim::{simulate, SimConfig};

/// Two tasks on one core under EDF: a switch-in every few milliseconds, a preemption now and
/// then, overheads of microseconds (rarely cut short by a preemption).
fn workload() -> Workload {
    let source = r#"
name = "overheads"
cores = 1
[[tasks]]
name = "fast"
wcet = "1ms"
period = "3ms"
[[tasks]]
name = "slow"
wcet = "4ms"
period = "11ms"
"#;
    check_source(source, Format::Toml).workload.unwrap()
}

fn us(v: u64) -> Duration {
    Duration::from_micros(v)
}

/// Mean of the quantile function through (0, 1), (0.5, 2), (0.9, 4), (0.99, 10), (1, 50) us.
const MEAN_NS: f64 = 0.5 * 1500.0 + 0.4 * 3000.0 + 0.09 * 7000.0 + 0.01 * 30000.0;

fn run(overheads: Overheads, seed: u64) -> (u64, u64) {
    let config = SimConfig {
        duration: Duration::from_secs(2),
        overheads,
        seed,
        ..SimConfig::default()
    };
    let mut edf = PolicyKind::GlobalEdf.build(PriorityOrder::Auto);
    let m = simulate(&workload(), edf.as_mut(), &config)
        .unwrap()
        .metrics;
    let charged = m.core_usage.iter().map(|u| u.overhead_ns).sum();
    (charged, m.context_switches)
}

#[test]
fn measured_overheads_are_drawn_per_switch_in() {
    let distribution = Quantiles::from_values([us(1), us(2), us(4), us(10), us(50)]).unwrap();
    let measured = Overheads {
        context_switch: Cost::Measured(distribution),
        ..Overheads::default()
    };
    let (charged, switches) = run(measured, 1);
    assert!(switches > 800, "{switches} switch-ins");
    let mean = charged as f64 / switches as f64;
    assert!(
        (0.9 * MEAN_NS..=1.1 * MEAN_NS).contains(&mean),
        "mean charge {mean} ns, distribution mean {MEAN_NS} ns"
    );
    assert_eq!(run(measured, 1), (charged, switches), "same seed, same run");
    assert_ne!(
        run(measured, 2).0,
        charged,
        "another seed draws other charges"
    );
    // A fixed cost at the median charges exactly the median at every switch-in.
    let (fixed, fixed_switches) = run(Overheads::fixed(us(0), us(2), us(0)), 1);
    assert_eq!(fixed, fixed_switches * 2_000);
}

/// A job run by parts pays a switch at each part it ends by execution (the runtime hands it
/// back to its dispatcher there), not at a cut. Alone on its core under G-RMWP, mandatory
/// 10 us, optional 5 us, wind-up 5 us (released at the optional deadline), overheads 1 + 1 us.
#[test]
fn a_job_run_by_parts_pays_a_switch_at_each_part_it_ends() {
    let source = |od: &str| {
        format!(
            "cores = 1\n[[tasks]]\nname = \"t\"\nmandatory = \"10us\"\noptional = \"5us\"\n\
             windup = \"5us\"\nperiod = \"1ms\"\noptional_deadline = \"{od}\"\n"
        )
    };
    let completion = |od: &str, overheads: Overheads| {
        let w = check_source(&source(od), Format::Toml).workload.unwrap();
        let config = SimConfig {
            duration: Duration::from_micros(990),
            overheads,
            ..SimConfig::default()
        };
        let mut rmwp = PolicyKind::GlobalRmwp.build(PriorityOrder::Auto);
        let m = simulate(&w, rmwp.as_mut(), &config).unwrap().metrics;
        (m.tasks[0].response_max_ns, m.core_usage[0].overhead_ns)
    };
    let switch = Overheads::fixed(us(1), us(1), Duration::ZERO);
    assert_eq!(
        completion("900us", Overheads::default()),
        (Some(905_000), 0)
    );
    // 2 (first start) + 10 + 2 (mandatory ended) + 5: the optional part completes at 19 us,
    // the job sleeps (its unpaid switch dropped) until the wind-up at 900 us: 2 + 5 more.
    assert_eq!(completion("900us", switch), (Some(907_000), 6_000));
    // The optional part, begun at 14 us (2 + 10 + 2), is cut at 15 us after 1 us of work: the
    // wind-up goes on at once, with no switch.
    assert_eq!(completion("15us", switch), (Some(20_000), 4_000));
}
