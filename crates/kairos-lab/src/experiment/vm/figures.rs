//! The RT-Xen study's figures, as lines of values per utilization: the analysis's (the
//! paper's figures 4 and 6) and, for each kind of runs the study made (simulated; on real
//! cores), the runs' (figures 5, 7 and 8).

use super::point::{RunSums, StudyPoint};
use super::set::{combos, vmm_name, RT_VMMS};
use super::Study;

/// One figure: a value per point and line.
pub struct Figure {
    pub file: String,
    pub title: String,
    pub y_desc: &'static str,
    pub lines: Vec<(String, Vec<Option<f64>>)>,
}

type Lines = Vec<(String, Vec<Option<f64>>)>;

fn ratio(n: u64, d: u64) -> Option<f64> {
    (d > 0).then(|| n as f64 / d as f64)
}

/// The guest of the miss-ratio figures, as the combos index it (pEDF first, then gEDF).
fn guest_offset(study: &Study) -> usize {
    match study.setup.guest {
        kairos_model::GuestScheduler::Gedf => RT_VMMS.len(),
        _ => 0,
    }
}

/// One kind of runs of the study: the simulations, or the runs on real cores.
pub struct Kind {
    pub pick: fn(&StudyPoint) -> Option<&RunSums>,
    /// Appended to the file names of its figures.
    pub suffix: &'static str,
    /// Appended to the titles of its figures.
    pub place: &'static str,
    /// What "run" means in its text ("in simulation", "on real cores").
    pub doing: &'static str,
}

const SIMULATED: Kind = Kind {
    pick: |p| Some(&p.simulated),
    suffix: "",
    place: "",
    doing: "in simulation",
};

/// The simulations of a study on real cores: each run's twin, with its measured overheads.
const TWINS: Kind = Kind {
    doing: "in simulation with the runs' measured overheads",
    ..SIMULATED
};

const MEASURED: Kind = Kind {
    pick: |p| p.measured.as_ref(),
    suffix: "-real",
    place: ", on real cores",
    doing: "on real cores",
};

/// The kinds of runs the study has.
pub fn kinds(study: &Study) -> Vec<Kind> {
    match study.real {
        true => vec![TWINS, MEASURED],
        false => vec![SIMULATED],
    }
}

/// A line per combo, from each point's value for it.
fn per_combo(points: &[StudyPoint], f: &dyn Fn(&StudyPoint, usize) -> Option<f64>) -> Lines {
    (combos().iter().enumerate())
        .map(|(c, combo)| (combo.label(), points.iter().map(|p| f(p, c)).collect()))
        .collect()
}

fn line(
    label: &str,
    points: &[StudyPoint],
    f: &dyn Fn(&StudyPoint) -> Option<f64>,
) -> (String, Vec<Option<f64>>) {
    (label.to_string(), points.iter().map(f).collect())
}

/// The figures that do not depend on runs: the analysis's (4) and the interfaces' (6).
fn analysis_figures(points: &[StudyPoint]) -> Vec<Figure> {
    let bandwidth = |g: usize| {
        move |p: &StudyPoint| {
            (p.bandwidth_sets[g] > 0).then(|| p.bandwidth_sum[g] / p.bandwidth_sets[g] as f64)
        }
    };
    vec![
        Figure {
            file: "theory".into(),
            title: "schedulable in theory (CSA), the paper's figure 4".into(),
            y_desc: "fraction of sets schedulable",
            lines: per_combo(points, &|p, c| ratio(p.theory_accepted[c], p.samples)),
        },
        Figure {
            file: "bandwidth".into(),
            title: "total VCPU bandwidth of the interfaces, figure 6".into(),
            y_desc: "average total bandwidth (cores)",
            lines: vec![
                line("guest pEDF", points, &bandwidth(0)),
                line("guest gEDF", points, &bandwidth(1)),
            ],
        },
    ]
}

/// The figures of one kind of runs: schedulable sets (5), miss ratios (7), server kinds (8).
fn run_figures(study: &Study, points: &[StudyPoint], kind: &Kind) -> Vec<Figure> {
    let sums = |p: &StudyPoint| (kind.pick)(p).cloned().unwrap_or_default();
    let offset = guest_offset(study);
    let mut miss: Lines = (RT_VMMS.iter().enumerate())
        .map(|(k, &(s, p))| {
            line(&vmm_name(s, p), points, &|pt| {
                sums(pt).practice.get(offset + k)?.miss_ratio()
            })
        })
        .collect();
    miss.push(line("credit", points, &|p| sums(p).credit.miss_ratio()));
    // RT_VMMS has gEDF at 0 and pEDF at 2; the periodic runs are figure 7's.
    let deferrable = |k: usize| move |p: &StudyPoint| sums(p).deferrable.get(k)?.miss_ratio();
    let periodic = |k: usize| move |p: &StudyPoint| sums(p).practice.get(offset + k)?.miss_ratio();
    let servers = vec![
        line("gEDF, deferrable", points, &deferrable(0)),
        line("gEDF, periodic", points, &periodic(0)),
        line("pEDF, deferrable", points, &deferrable(2)),
        line("pEDF, periodic", points, &periodic(2)),
    ];
    let named = |file: &str, title: &str, y_desc, lines| Figure {
        file: format!("{file}{}", kind.suffix),
        title: format!("{title}{}", kind.place),
        y_desc,
        lines,
    };
    vec![
        named(
            "practice",
            "no miss on the interfaces (periodic servers), figure 5",
            "fraction of sets schedulable",
            per_combo(points, &|p, c| {
                ratio(*sums(p).practice_accepted.get(c)?, p.samples)
            }),
        ),
        named(
            "miss-ratio",
            "deadline miss ratio by VMM scheduler (periodic servers), figure 7",
            "deadline miss ratio",
            miss,
        ),
        named(
            "servers",
            "deferrable vs periodic servers, figure 8",
            "deadline miss ratio",
            servers,
        ),
    ]
}

/// Every figure, in the paper's order (4 to 8), the runs on real cores' last.
pub fn figures(study: &Study, points: &[StudyPoint]) -> Vec<Figure> {
    let mut all = analysis_figures(points);
    for (k, kind) in kinds(study).iter().enumerate() {
        let runs = run_figures(study, points, kind);
        match k {
            // The first kind's schedulability figure (5) goes between figures 4 and 6.
            0 => {
                let mut runs = runs.into_iter();
                all.insert(1, runs.next().expect("figure 5"));
                all.extend(runs);
            }
            _ => all.extend(runs),
        }
    }
    all
}
