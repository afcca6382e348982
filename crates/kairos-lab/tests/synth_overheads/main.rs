//! Overhead-aware tables (`kairos synth --overheads`, the slot guard of
//! `kairos_analysis::overheads::tables`): a hand-worked system whose verdict the guard changes,
//! and, on random MC-DAG systems, tables that the independent validator accepts and that hold
//! every job's WCET when a run charges the same costs, mode changes included.

use kairos_analysis::overheads::tables::{guard, Guarded, SlotGuard};
use kairos_analysis::overheads::{Charges, Quantile};
use kairos_gen::mcdag::{generate_mcdag, McDagParams};
use kairos_lab::synth::{synthesize_tables, OverheadRequest, Request, Summary};
use kairos_mc::{synthesize, SynthOptions};
use kairos_model::{Cost, Dag, Duration, McSystem, McTask, Overheads, TableSet};
use kairos_validate::ViolationKind;
use proptest::prelude::*;
use std::collections::HashMap;

fn us(v: u64) -> Duration {
    Duration::from_micros(v)
}

/// A profile whose every cost is fixed: timer lateness `ev`, decision 5 us, switch 15 us,
/// migration 30 us, doorbell 8 us.
fn profile(ev: Duration) -> Overheads {
    Overheads {
        release_latency: Cost::Fixed(ev),
        scheduling: Cost::Fixed(us(5)),
        context_switch: Cost::Fixed(us(15)),
        migration: Cost::Fixed(us(30)),
        ipi: Cost::Fixed(us(8)),
        ..Overheads::default()
    }
}

/// One core, one DAG of period and deadline 6 ms: `a` (1 ms, 2 ms at HI) before `b` (2 ms,
/// LO only). Ideally LO needs 3 of its 6 slots, HI 2.
fn chain() -> McSystem {
    let task = |name: &str, wcet: &[u64]| McTask {
        name: name.into(),
        wcet: wcet.iter().map(|&w| us(w)).collect(),
    };
    McSystem {
        name: None,
        cores: 1,
        levels: vec!["LO".into(), "HI".into()],
        dags: vec![Dag {
            name: "g".into(),
            period: us(6000),
            deadline: us(6000),
            tasks: vec![task("a", &[1000, 2000]), task("b", &[2000])],
            edges: vec![(0, 1)],
        }],
    }
}

fn synth(system: &McSystem, overheads: Option<Overheads>) -> Summary {
    let request = Request {
        file: "chain".into(),
        policy: "gedzl".into(),
        cores: None,
        out: None,
        overheads: overheads.map(|profile| OverheadRequest {
            profile,
            quantile: Quantile::Max,
        }),
    };
    synthesize_tables(&request, system).unwrap().summary
}

/// Each job's total time in each level's table, by `task#job`.
fn totals(tables: &TableSet) -> Vec<HashMap<String, u64>> {
    (tables.tables.iter())
        .map(|table| {
            let mut sum = HashMap::new();
            for iv in &table.intervals {
                *sum.entry(format!("{}#{}", iv.task, iv.job)).or_default() += iv.end - iv.start;
            }
            sum
        })
        .collect()
}

#[test]
fn the_guard_changes_the_slot_count_and_the_verdict() {
    let system = chain();
    assert!(matches!(synth(&system, None), Summary::Schedulable(_)));
    // Δev 20 us: g = 2 x 20 + 5 + 15 = 60 us of each 1 ms slot, Δmc = 5 + 15 = 20 us.
    // a: 1000 / 940 -> 2 slots at LO, (2000 + 20) / 940 -> 3 at HI; b: 2000 / 940 -> 3.
    // LO needs 2 + 3 = 5 of 6 slots: still schedulable.
    let Summary::Schedulable(small) = synth(&system, Some(profile(us(20)))) else {
        panic!("5 of 6 slots fit")
    };
    let charged = small.overheads.unwrap();
    assert_eq!(charged.slot_guard.guard, us(60));
    assert_eq!(charged.usable_ns, 940_000);
    let inflated: Vec<_> = charged
        .tasks
        .iter()
        .map(|t| t.inflated_wcet.clone())
        .collect();
    assert_eq!(inflated, vec![vec![us(2000), us(3000)], vec![us(3000)]]);
    let request = Request {
        file: "chain".into(),
        policy: "gedzl".into(),
        cores: None,
        out: None,
        overheads: Some(OverheadRequest {
            profile: profile(us(20)),
            quantile: Quantile::Max,
        }),
    };
    let tables = synthesize_tables(&request, &system)
        .unwrap()
        .synthesis
        .unwrap()
        .tables;
    let [lo, hi] = &totals(&tables)[..] else {
        panic!("two levels")
    };
    assert_eq!(
        (lo["g/a#0"], lo["g/b#0"], hi["g/a#0"]),
        (2_000_000, 3_000_000, 3_000_000)
    );
    // Δev 260 us: g = 540 us, 460 us usable: a 1000 / 460 -> 3 slots, b 2000 / 460 -> 5;
    // 8 slots at LO in a 6 ms window: no table.
    let Summary::NotSchedulable(big) = synth(&system, Some(profile(us(260)))) else {
        panic!("8 slots cannot fit in 6")
    };
    let charged = big.overheads.unwrap();
    assert_eq!(
        (charged.slot_guard.guard, charged.usable_ns),
        (us(540), 460_000)
    );
    assert!(big.reason.contains("level LO"), "{}", big.reason);
    // Δev 500 us: g = 1020 us, more than the slot: refused before synthesis.
    let Summary::NotSchedulable(full) = synth(&system, Some(profile(us(500)))) else {
        panic!("no usable time")
    };
    assert!(
        full.reason.contains("no slot keeps any time"),
        "{}",
        full.reason
    );
    assert_eq!(full.overheads.unwrap().usable_ns, 0);
}

/// A job's intervals in each level's table, by `(task, job)`, in time order.
type JobIntervals = HashMap<(String, u64), Vec<Vec<(u64, u64)>>>;

fn job_intervals(tables: &TableSet) -> JobIntervals {
    let levels = tables.tables.len();
    let mut jobs: JobIntervals = HashMap::new();
    for (level, table) in tables.tables.iter().enumerate() {
        for iv in &table.intervals {
            let entry = jobs.entry((iv.task.clone(), iv.job));
            entry.or_insert_with(|| vec![Vec::new(); levels])[level].push((iv.start, iv.end));
        }
    }
    for per_level in jobs.values_mut() {
        per_level.iter_mut().for_each(|ivs| ivs.sort_unstable());
    }
    jobs
}

/// A run of one job that charges the costs itself: every slot of the original grid that the
/// job holds gives `S - g` of execution, every mode change it lives through costs `Δmc`. The
/// system's mode rises at the instants `changes` (sorted) and whenever the job is unfinished
/// at the end of its last interval in a mode below its task's level. The job asks `demand`
/// (its WCET at level `asks`); it must finish by the end of its last interval in every mode
/// `>= asks`, or be discarded when the mode exceeds `top`, its task's level.
struct JobRun<'a> {
    intervals: &'a [Vec<(u64, u64)>],
    top: usize,
    asks: usize,
    demand: u64,
    guard: &'a SlotGuard,
}

impl JobRun<'_> {
    fn check(&self, changes: &[u64]) -> Result<(), String> {
        let (s, g) = (self.guard.slot.as_nanos(), self.guard.guard.as_nanos());
        let mc = i128::from(self.guard.mode_change.as_nanos());
        let (mut mode, mut now, mut work) = (0usize, 0u64, 0i128);
        loop {
            let rise = changes.get(mode).copied().unwrap_or(u64::MAX).max(now);
            let ivs = &self.intervals[mode];
            let held = ivs
                .iter()
                .flat_map(|&(start, end)| (start..end).step_by(s as usize));
            for _ in held.filter(|&x| x >= now && x < rise) {
                work += i128::from(s - g);
                if work >= i128::from(self.demand) {
                    return Ok(());
                }
            }
            let last_end = ivs.last().map_or(0, |iv| iv.1);
            if last_end <= rise {
                if mode >= self.asks {
                    return Err(format!(
                        "unfinished ({work} of {} ns) at the end of its level-{mode} table",
                        self.demand
                    ));
                }
                now = now.max(last_end);
            } else {
                now = rise;
            }
            mode += 1;
            work -= mc;
            if mode > self.top {
                return Ok(());
            }
        }
    }
}

/// Charges of `per_mille` thousandths of `slot` each: Δev, Δsch, Δcxs, Δcpmd, Δipi.
fn charges_for(slot: Duration, per_mille: [u64; 5]) -> Charges {
    let part = |p: u64| Duration::from_nanos(slot.as_nanos() * p / 1000);
    Charges {
        release_latency: part(per_mille[0]),
        scheduling: part(per_mille[1]),
        context_switch: part(per_mille[2]),
        migration: part(per_mille[3]),
        ipi: part(per_mille[4]),
        ..Charges::default()
    }
}

/// Synthesizes the guarded system and checks its tables; whether there were tables.
fn check_guarded(system: &McSystem, guarded: &Guarded, changes_seed: &[u64]) -> bool {
    let Ok(out) = synthesize(&guarded.system, &SynthOptions::default()) else {
        return false;
    };
    let report = kairos_validate::validate(&guarded.system, &out.tables);
    assert!(
        report.is_valid(),
        "inflated system: {:?}",
        report.violations
    );
    // Against the original WCETs only the budgets differ: every job receives more.
    let original = kairos_validate::validate(system, &out.tables);
    for v in &original.violations {
        assert_eq!(v.kind, ViolationKind::Budget, "{v}");
    }
    let h = out.tables.hyperperiod;
    let s = guarded.guard.slot.as_nanos();
    let changes: Vec<u64> = {
        let mut c: Vec<u64> = changes_seed.iter().map(|r| r % (h / s + 1) * s).collect();
        c.sort_unstable();
        c
    };
    let wcets: HashMap<String, &Vec<Duration>> = guarded
        .tasks
        .iter()
        .map(|t| (t.task.clone(), &t.wcet))
        .collect();
    for ((task, job), intervals) in job_intervals(&out.tables) {
        let wcet = wcets[&task];
        for asks in 0..wcet.len() {
            let run = JobRun {
                intervals: &intervals,
                top: wcet.len() - 1,
                asks,
                demand: wcet[asks].as_nanos(),
                guard: &guarded.guard,
            };
            let verdict = run.check(&changes[..system.levels.len() - 1]);
            assert!(
                verdict.is_ok(),
                "{task}#{job} asking level {asks}, mode changes at {changes:?}: {verdict:?}"
            );
        }
    }
    true
}

fn generated(seed: u64, levels: usize, tasks: usize, load: f64, cores: usize) -> Option<McSystem> {
    let params = McDagParams {
        dags: 1,
        tasks: tasks.max(levels),
        levels,
        utilization: load * cores as f64,
        cores,
        hyperperiod_base: Some(120),
        seed,
        ..McDagParams::default()
    };
    generate_mcdag(&params).ok()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(96))]

    /// Every table synthesized with the guard is valid for the inflated system, differs from
    /// the original only by larger budgets, and holds each job's WCET in every mode it can
    /// run in when the run charges the guard per slot and the mode change's cost.
    #[test]
    fn guarded_tables_hold_every_wcet(seed in any::<u64>(), levels in 2usize..=3,
                                      tasks in 4usize..=10, tenths in 1u32..=5,
                                      cores in 1usize..=3,
                                      per_mille in prop::array::uniform5(0u64..=60),
                                      changes in prop::collection::vec(any::<u64>(), 3)) {
        let Some(system) = generated(seed, levels, tasks, f64::from(tenths) / 10.0, cores) else {
            return Ok(());
        };
        let slot = system.slot().unwrap();
        if let Ok(guarded) = guard(&system, cores, &charges_for(slot, per_mille)) {
            check_guarded(&system, &guarded, &changes);
        }
    }
}

/// The property above is not vacuous: light generated systems keep tables with a guard of
/// about a fifth of the slot.
#[test]
fn light_systems_keep_tables_with_a_guard() {
    let mut accepted = 0;
    for seed in 0..20 {
        let Some(system) = generated(seed, 2, 5, 0.15, 2) else {
            continue;
        };
        let charges = charges_for(system.slot().unwrap(), [40, 20, 20, 20, 20]);
        let guarded = guard(&system, 2, &charges).unwrap();
        assert!(guarded.guard.guard > Duration::ZERO);
        accepted += usize::from(check_guarded(&system, &guarded, &[7, 19]));
    }
    assert!(
        accepted >= 5,
        "only {accepted}/20 light systems kept tables"
    );
}
