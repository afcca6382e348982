//! The accelerated fixed-point searches against the plain iterations written out as slow twins.

use super::*;

/// SchedCAT's `RTAGedf` written out with the plain fixed-point iteration: the slow obvious twin
/// of `global_edf::rta`. Response times if schedulable within 25 rounds.
fn plain_gedf_rta(tasks: &[SporadicTask], m: usize) -> Option<Vec<u64>> {
    let n = tasks.len();
    let mut slack = vec![0u64; n];
    let mut response = vec![0u64; n];
    let (mut updated, mut schedulable, mut round) = (true, n == 0, 0);
    while updated && !schedulable && round < 25 {
        round += 1;
        schedulable = true;
        updated = false;
        for k in 0..n {
            let tk = tasks[k];
            let estimate = |r: u64, slack: &[u64]| {
                let mut work = 0u64;
                for (i, ti) in tasks.iter().enumerate().filter(|&(i, _)| i != k) {
                    let jobs = tk.deadline.as_nanos() / ti.period.as_nanos();
                    let rest = tk.deadline.as_nanos() % ti.period.as_nanos();
                    let edf = jobs * ti.wcet.as_nanos()
                        + ti.wcet.as_nanos().min(rest.saturating_sub(slack[i]));
                    let span = r + ti.deadline.as_nanos() - ti.wcet.as_nanos() - slack[i];
                    let wl = span / ti.period.as_nanos() * ti.wcet.as_nanos()
                        + ti.wcet.as_nanos().min(span % ti.period.as_nanos());
                    work += edf.min(wl).min(r - tk.wcet.as_nanos() + 1);
                }
                tk.wcet.as_nanos() + work / m as u64
            };
            let mut last = tk.wcet.as_nanos();
            let mut r = estimate(last, &slack);
            while last != r && r <= tk.deadline.as_nanos() {
                last = r;
                r = estimate(last, &slack);
            }
            if r <= tk.deadline.as_nanos() {
                response[k] = r;
                if tk.deadline.as_nanos() - r != slack[k] {
                    slack[k] = tk.deadline.as_nanos() - r;
                    updated = true;
                }
            } else {
                schedulable = false;
            }
        }
    }
    schedulable.then_some(response)
}

/// Bertogna-Cirinei G-FP in RM order with the plain iteration, capped or not: the slow twin of
/// `global_fp::bertogna_cirinei`.
fn plain_gfp_bc(tasks: &[SporadicTask], m: usize, cap: bool) -> Option<Vec<u64>> {
    let order = rate_monotonic_order(tasks);
    let mut response = vec![0u64; tasks.len()];
    for (rank, &k) in order.iter().enumerate() {
        let tk = tasks[k];
        let mut x = tk.wcet.as_nanos();
        if rank >= m {
            loop {
                let work: u64 = order[..rank]
                    .iter()
                    .map(|&i| {
                        let ti = tasks[i];
                        let span = x + response[i] - ti.wcet.as_nanos();
                        let wl = span / ti.period.as_nanos() * ti.wcet.as_nanos()
                            + ti.wcet.as_nanos().min(span % ti.period.as_nanos());
                        if cap {
                            wl.min(x - tk.wcet.as_nanos() + 1)
                        } else {
                            wl
                        }
                    })
                    .sum();
                let next = tk.wcet.as_nanos() + work / m as u64;
                if next > tk.deadline.as_nanos() {
                    return None;
                }
                if next == x {
                    break;
                }
                x = next;
            }
        }
        response[k] = x;
    }
    Some(response)
}

/// Response times as the plain twins compute them, in nanoseconds.
fn nanos(times: Vec<Duration>) -> Vec<u64> {
    times.iter().map(|r| r.as_nanos()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: 2000,
        failure_persistence: None,
        ..ProptestConfig::default()
    })]

    /// The accelerated fixed-point searches give exactly what the plain iterations give.
    #[test]
    fn response_time_analyses_match_their_plain_twins(case in arb_case()) {
        let (tasks, m) = (&case.tasks, case.m);
        prop_assume!(utilization_at_most(tasks, m));
        let ours = kairos_analysis::global_edf::rta::is_schedulable(tasks, m).response_times.map(nanos);
        prop_assert_eq!(ours, plain_gedf_rta(tasks, m), "G-EDF RTA on {:?}", case);
        let paper = bertogna_cirinei::is_schedulable(tasks, m).response_times.map(nanos);
        prop_assert_eq!(paper, plain_gfp_bc(tasks, m, true), "G-FP BC on {:?}", case);
        let schedcat = bertogna_cirinei::is_schedulable_schedcat_rm(tasks, m).response_times.map(nanos);
        let plain = plain_gfp_bc(tasks, m, false);
        prop_assert_eq!(schedcat, plain, "G-FP BC (SchedCAT) on {:?}", case);
    }
}
