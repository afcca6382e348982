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
                    let jobs = tk.deadline / ti.period;
                    let rest = tk.deadline % ti.period;
                    let edf = jobs * ti.wcet + ti.wcet.min(rest.saturating_sub(slack[i]));
                    let span = r + ti.deadline - ti.wcet - slack[i];
                    let wl = span / ti.period * ti.wcet + ti.wcet.min(span % ti.period);
                    work += edf.min(wl).min(r - tk.wcet + 1);
                }
                tk.wcet + work / m as u64
            };
            let mut last = tk.wcet;
            let mut r = estimate(last, &slack);
            while last != r && r <= tk.deadline {
                last = r;
                r = estimate(last, &slack);
            }
            if r <= tk.deadline {
                response[k] = r;
                if tk.deadline - r != slack[k] {
                    slack[k] = tk.deadline - r;
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
        let mut x = tk.wcet;
        if rank >= m {
            loop {
                let work: u64 = order[..rank]
                    .iter()
                    .map(|&i| {
                        let ti = tasks[i];
                        let span = x + response[i] - ti.wcet;
                        let wl = span / ti.period * ti.wcet + ti.wcet.min(span % ti.period);
                        if cap {
                            wl.min(x - tk.wcet + 1)
                        } else {
                            wl
                        }
                    })
                    .sum();
                let next = tk.wcet + work / m as u64;
                if next > tk.deadline {
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
        let ours = kairos_analysis::global_edf::rta::is_schedulable(tasks, m).response_times;
        prop_assert_eq!(ours, plain_gedf_rta(tasks, m), "G-EDF RTA on {:?}", case);
        let paper = bertogna_cirinei::is_schedulable(tasks, m).response_times;
        prop_assert_eq!(paper, plain_gfp_bc(tasks, m, true), "G-FP BC on {:?}", case);
        let schedcat = bertogna_cirinei::is_schedulable_schedcat_rm(tasks, m).response_times;
        let plain = plain_gfp_bc(tasks, m, false);
        prop_assert_eq!(schedcat, plain, "G-FP BC (SchedCAT) on {:?}", case);
    }
}
