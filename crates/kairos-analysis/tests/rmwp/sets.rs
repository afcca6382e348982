//! Small imprecise task sets in integer nanoseconds, drawn from a seeded generator.

use kairos_model::{Arrival, CoreId, Duration, ImpreciseParts, Task, Workload};

/// An imprecise task (`D = T`), with an explicit optional deadline and core when given.
#[derive(Clone, Copy, Debug)]
pub struct Imp {
    pub m: u64,
    pub o: u64,
    pub w: u64,
    pub t: u64,
    pub offset: u64,
    pub od: Option<u64>,
    pub core: Option<usize>,
}

/// The seeded source of the cases (xorshift64): `next(n)` is in `[0, n)`.
pub struct Rng(u64);

impl Rng {
    pub fn new(seed: u64) -> Rng {
        Rng(seed.max(1))
    }
    pub fn next(&mut self, n: u64) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0 % n
    }
}

/// 1 to `most` tasks with periods from a small harmonic-ish set (short hyper-periods), parts of
/// a few units: `m >= 1`, `w >= 1`, `m + w <= T`, optional up to `T`.
pub fn random_set(rng: &mut Rng, most: u64) -> Vec<Imp> {
    const PERIODS: [u64; 6] = [4, 6, 8, 12, 16, 24];
    (0..1 + rng.next(most))
        .map(|_| {
            let t = PERIODS[rng.next(PERIODS.len() as u64) as usize];
            let m = 1 + rng.next(t / 3);
            let w = 1 + rng.next((t / 4).max(1));
            Imp {
                m,
                o: rng.next(t + 1),
                w: w.min(t - m),
                t,
                offset: 0,
                od: None,
                core: None,
            }
        })
        .filter(|i| i.w >= 1)
        .collect()
}

pub fn workload(tasks: &[Imp], cores: usize) -> Workload {
    let task = |(i, x): (usize, &Imp)| {
        let d = Duration::from_nanos;
        Task {
            name: format!("t{i}"),
            wcet: d(x.m + x.w),
            bcet: d(x.m + x.w),
            period: d(x.t),
            deadline: d(x.t),
            offset: d(x.offset),
            arrival: Arrival::Periodic,
            priority: None,
            core: x.core.map(CoreId),
            imprecise: Some(ImpreciseParts {
                mandatory: d(x.m),
                optional: d(x.o),
                windup: d(x.w),
                optional_deadline: x.od.map(d),
            }),
        }
    };
    Workload {
        name: None,
        cores,
        tasks: tasks.iter().enumerate().map(task).collect(),
        overheads: Default::default(),
    }
}

/// The feasibility interval (H, or max offset + 2H with offsets; Leung & Merrill 1980) and one
/// hyper-period more, so that jobs late at its end are seen finishing or missing.
pub fn horizon(tasks: &[Imp]) -> u64 {
    let w = workload(tasks, 1);
    w.feasibility_interval().expect("small periods").as_nanos()
        + w.hyperperiod().unwrap().as_nanos()
}
