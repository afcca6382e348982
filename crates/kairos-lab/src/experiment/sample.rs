//! One sample of a sweep: the task set of sample `k` at point `p`, generated from its own
//! seeded stream, and every method's verdict on it. The local run, the Dask shards and the RT-Xen
//! study draw their sets the same way, so where a sample runs never changes what it gives.

use super::config::{Config, Method, Workloads};
use super::mc;
use super::results::QualitySum;
use kairos_analysis::tasks_of;
use kairos_gen::{make_workload, seeded};
use kairos_policy::PriorityOrder;
use kairos_sim::{simulate, SimConfig, SimError};

/// Every sample's verdicts (one per method), or why the sample could not be run.
pub(super) type Outcomes = Vec<Result<Vec<Verdict>, String>>;

/// One method's answer on one sample.
#[derive(serde::Serialize, serde::Deserialize)]
pub(super) struct Verdict {
    pub accepted: bool,
    /// A simulation cut short by the cap with no miss: neither accepted nor rejected.
    pub inconclusive: bool,
    /// Table quality of an accepted MC-DAG system.
    pub quality: Option<QualitySum>,
    /// A simulation's QoS of imprecise tasks run by parts (optional time executed / requested).
    pub qos: Option<f64>,
}

impl Verdict {
    pub fn plain(accepted: bool) -> Verdict {
        Verdict {
            accepted,
            inconclusive: false,
            quality: None,
            qos: None,
        }
    }
}

/// The verdict of every method on sample `sample` of point `index`.
pub(super) fn run_sample(
    config: &Config,
    index: usize,
    sample: usize,
    utilization: f64,
) -> Result<Vec<Verdict>, String> {
    let seed = sample_seed(config.seed, index, sample);
    let generator = match &config.workloads {
        Workloads::Periodic(generator) => generator,
        Workloads::McDag(params) => return mc::run_sample(config, params, seed, utilization),
    };
    let mut rng = seeded(seed);
    let tasks = generator.generate(&mut rng, utilization)?;
    let workload = make_workload(None, config.cores, tasks);
    let analysis_tasks = tasks_of(&workload);
    config
        .methods
        .iter()
        .map(|method| match method {
            Method::Test(test) => Ok(Verdict::plain(
                test.run(&analysis_tasks, config.cores).schedulable,
            )),
            Method::Simulate(kind) => simulated(&workload, *kind, config.simulation_cap),
            Method::Synth(_) => Err("synthesis methods need an [mcdag] generator".to_string()),
        })
        .collect()
}

/// The simulation verdict: accepted only if the run covered the feasibility interval with no
/// miss, rejected on any miss, inconclusive when the cap (or an interval too long to name)
/// ended a run with no miss. G-RMWP, P-RMWP and P-RM run the set as analysed for them
/// (optional deadlines, partition); a set a partitioned policy cannot partition is rejected.
/// An impossible decision (a policy bug) stops the experiment rather than count as a miss.
fn simulated(
    workload: &kairos_model::Workload,
    kind: kairos_policy::PolicyKind,
    cap: kairos_model::Duration,
) -> Result<Verdict, String> {
    let Ok((workload, _notices)) = crate::imprecise::planned(kind, workload) else {
        return Ok(Verdict::plain(false));
    };
    let interval = workload.feasibility_interval();
    let complete = interval.is_some_and(|d| d <= cap);
    let mut policy = kind.build(PriorityOrder::RateMonotonic);
    let sim = SimConfig {
        duration: interval.map_or(cap, |d| d.min(cap)),
        ..SimConfig::default()
    };
    let metrics = match simulate(&workload, policy.as_mut(), &sim) {
        Ok(outcome) => outcome.metrics,
        Err(SimError::Unsupported { .. }) => return Ok(Verdict::plain(false)),
        Err(bug) => return Err(format!("{} (please report it)", bug)),
    };
    let no_miss = metrics.deadline_misses == 0;
    Ok(Verdict {
        accepted: no_miss && complete,
        inconclusive: no_miss && !complete,
        quality: None,
        qos: metrics.optional_qos,
    })
}

/// SplitMix64 of (seed, point, sample): independent streams per sample, so results do not
/// depend on the order in which samples run or on resumption.
pub(super) fn sample_seed(seed: u64, point: usize, sample: usize) -> u64 {
    let mut z = seed
        ^ (point as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (sample as u64).wrapping_mul(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

#[cfg(test)]
mod tests;
