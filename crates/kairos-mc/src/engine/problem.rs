//! What the table engine takes and gives: the jobs in engine time, their precedence as
//! compressed adjacency lists, the pieces of a filled table, and why a table could not be
//! filled (see the engine's module documentation for engine time).

use crate::bounds::UnitBounds;
use crate::Policy;

/// One job of the table being built, in engine time.
#[derive(Clone, Debug)]
pub(crate) struct EngineJob {
    pub release: u64,
    /// Every unit runs at a slot `< deadline`.
    pub deadline: u64,
    pub wcet: u64,
    pub bounds: UnitBounds,
}

/// Compressed adjacency lists: the items of node `i` are `items[start[i]..start[i + 1]]`.
#[derive(Clone, Debug, Default)]
pub(crate) struct Csr {
    start: Vec<u32>,
    items: Vec<u32>,
}

impl Csr {
    /// From `(from, to)` pairs over `nodes` nodes: the list of `from` holds every `to`.
    pub fn from_pairs(nodes: usize, pairs: &[(u32, u32)]) -> Csr {
        let mut start = vec![0u32; nodes + 1];
        for &(from, _) in pairs {
            start[from as usize + 1] += 1;
        }
        for i in 0..nodes {
            start[i + 1] += start[i];
        }
        let mut fill = start.clone();
        let mut items = vec![0u32; pairs.len()];
        for &(from, to) in pairs {
            items[fill[from as usize] as usize] = to;
            fill[from as usize] += 1;
        }
        Csr { start, items }
    }

    pub fn of(&self, node: u32) -> &[u32] {
        let node = node as usize;
        &self.items[self.start[node] as usize..self.start[node + 1] as usize]
    }
}

/// What the engine schedules: jobs, their precedence (in engine time), cores, horizon, policy.
pub(crate) struct Problem<'a> {
    pub jobs: &'a [EngineJob],
    /// `successors.of(j)`: jobs that may start only once `j` finished (engine time).
    pub successors: &'a Csr,
    pub cores: usize,
    pub horizon: u64,
    pub policy: Policy,
}

/// Job `job` runs on `core` over engine slots `[start, end)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Piece {
    pub job: u32,
    pub core: u32,
    pub start: u64,
    pub end: u64,
}

/// Why the engine stopped, in engine time and job indices (the caller names them).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) enum Stuck {
    TooManyUrgent {
        at: u64,
        jobs: Vec<u32>,
    },
    /// Laxity went negative: `unit_bound` tells whether a per-unit bound rather than the
    /// deadline is the one missed.
    Late {
        at: u64,
        job: u32,
        needed: u64,
        unit_bound: bool,
    },
    Unfinished {
        job: u32,
        missing: u64,
        waiting_for: Option<u32>,
    },
    /// The per-unit release bounds leave too little room before the deadline.
    UnsafeBounds {
        job: u32,
        unit: u64,
        earliest: u64,
    },
}

/// The pieces of a filled table in the two orders the callers need, so neither sorts them.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Schedule {
    /// In the order they were opened: by `(start, core)`.
    pub pieces: Vec<Piece>,
    /// Indices into `pieces` in the order they were closed: by `(end, core)`.
    pub closed: Vec<u32>,
}
