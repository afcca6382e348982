//! The RT-Xen study's config file (`study = "rt-xen"`), read like every experiment config
//! ([`crate::experiment::decode`]): every problem at once, each with its `line:column`, field
//! path and a hint. Every key but `study` and `distribution` defaults to the value of Xi et
//! al.'s evaluation (EMSOFT 2014, section VI), resolved into the [`Study`] the run follows.

use super::set::Setup;
use crate::experiment::config::UtilizationRange;
use crate::experiment::decode::study::check_with;
use crate::experiment::decode::Reader;
use kairos_gen::{PeriodDist, RtXenConfig, UtilDist};
use kairos_model::decode::ZeroAllowed;
use kairos_model::document::Node;
use kairos_model::{Diagnostics, Duration, GuestScheduler};

const KEYS: [&str; 15] = [
    "study",
    "name",
    "seed",
    "cores",
    "samples",
    "distribution",
    "domains",
    "duration",
    "execution",
    "periods",
    "vcpu_period",
    "quantum",
    "guest",
    "utilization",
    "table_utilization",
];

/// A resolved study.
pub struct Study {
    pub name: String,
    pub seed: u64,
    pub samples: usize,
    pub distribution: UtilDist,
    pub periods: PeriodDist,
    pub points: Vec<f64>,
    pub setup: Setup,
    pub table_utilization: f64,
    /// Every configuration runs on real cores too.
    pub real: bool,
}

/// What `kairos check` says of a study.
pub fn describe(study: &Study) -> String {
    let runs = match study.real {
        true => "simulated and run on real cores",
        false => "simulated",
    };
    format!(
        "RT-Xen study {}: {} point(s) of {} set(s), {} core(s), {runs}",
        study.name,
        study.points.len(),
        study.samples,
        study.setup.cores
    )
}

/// Reads the config `source` (the file `path`): the study when there is no error, and every
/// problem with its position.
pub fn check(source: &str) -> (Option<Study>, Diagnostics) {
    check_with(source, read)
}

/// The study as far as it reads; its problems are in `r`'s diagnostics.
fn read(r: &mut Reader, root: &Node) -> Option<Study> {
    let entries = r.0.table(root, "")?;
    r.0.reject_unknown_keys(entries, &KEYS, "");
    let study = r.required(
        entries,
        "study",
        root.position,
        "study = \"rt-xen\"",
        |r, n, p| {
            let hint = "the studies are \"rt-xen\" and \"guarantees\"";
            r.choice(n, p, &["rt-xen"], hint)
        },
    );
    let hint = "distribution = \"bimo-light\", \"bimo-medium\" or \"bimo-heavy\"";
    let distribution = r.required(entries, "distribution", root.position, hint, |r, n, p| {
        let text = r.0.string(n, p)?;
        (text.parse::<UtilDist>())
            .map_err(|e| r.report(n, p, &e.to_string(), Some(hint)))
            .ok()
    });
    let name = r.folder_name(entries);
    let seed = r.top(entries, "seed", |r, n, p| r.whole(n, p));
    let cores = r.top(entries, "cores", |r, n, p| r.positive(n, p));
    let samples = r.top(entries, "samples", |r, n, p| r.positive(n, p));
    let domains = r.top(entries, "domains", |r, n, p| r.positive(n, p));
    let positive = |r: &mut Reader, n: &Node, p: &str| r.0.duration(n, p, ZeroAllowed::No);
    let duration = r.top(entries, "duration", positive);
    let vcpu_period = r.top(entries, "vcpu_period", positive);
    let quantum = r.top(entries, "quantum", positive);
    let execution = r.top(entries, "execution", |r, n, p| {
        let hint = "execution = \"simulated\" or \"real\"";
        r.choice(n, p, &["simulated", "real"], hint)
    });
    let guest = r.top(entries, "guest", |r, n, p| {
        let guest = r.choice(n, p, &["gedf", "pedf"], "guest = \"gedf\" or \"pedf\"")?;
        Some(match guest.as_str() {
            "pedf" => GuestScheduler::Pedf,
            _ => GuestScheduler::Gedf,
        })
    });
    let periods = r.top(entries, "periods", |r, n, p| {
        let (min_ms, max_ms) = r.period_range(n, p, "periods = [\"70ms\", \"170ms\"]")?;
        Some(PeriodDist::Uniform { min_ms, max_ms })
    });
    let points = r.top(entries, "utilization", |r, n, p| {
        let range = r.utilization(n, p)?;
        (range.points()).map_err(|e| r.report(n, p, &e, None)).ok()
    });
    let table_utilization = r.top(entries, "table_utilization", |r, n, p| r.number(n, p));
    study?;
    let distribution = distribution?;
    let seed = seed.unwrap_or(0);
    let default_points = UtilizationRange {
        from: 1.1,
        to: 4.9,
        step: 0.2,
    };
    Some(Study {
        name: name.unwrap_or_else(|| format!("rtxen-{}", distribution.name())),
        seed,
        samples: samples.unwrap_or(25) as usize,
        distribution,
        periods: periods.unwrap_or(RtXenConfig::PERIODS),
        points: points.unwrap_or_else(|| default_points.points().expect("valid")),
        setup: Setup {
            cores: cores.unwrap_or(5) as usize,
            domains: domains.unwrap_or(4) as usize,
            vcpu_period: vcpu_period.unwrap_or(Duration::from_millis(10)),
            quantum,
            duration: duration.unwrap_or(Duration::from_secs(10)),
            guest: guest.unwrap_or(GuestScheduler::Gedf),
            seed,
            real: None,
        },
        real: execution.is_some_and(|e| e == "real"),
        table_utilization: table_utilization.unwrap_or(3.1),
    })
}
