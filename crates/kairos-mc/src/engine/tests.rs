//! The engine, advancing by whole stretches, against its slot-by-slot twin.

use super::*;
use crate::bounds::UnitBounds;
use proptest::prelude::*;

/// Disjoint ascending `[start, end)` pieces from `(gap, len)` pairs.
fn pieces(shape: &[(u64, u64)]) -> Vec<(u64, u64)> {
    let mut t = 0;
    shape
        .iter()
        .map(|&(gap, len)| {
            let start = t + gap;
            t = start + len;
            (start, t)
        })
        .collect()
}

fn job(release: u64, wcet: u64, slack: u64, kind: u8, shape: &[(u64, u64)]) -> EngineJob {
    let adjacent = pieces(shape);
    let units: u64 = adjacent.iter().map(|(s, e)| e - s).sum();
    let bounds = match kind {
        1 if units >= wcet => UnitBounds::release(adjacent.into_iter(), units - wcet, wcet),
        2 if units >= wcet => UnitBounds::deadline(adjacent.into_iter(), wcet),
        _ => UnitBounds::Free,
    };
    EngineJob {
        release,
        deadline: release + wcet + slack,
        wcet,
        bounds,
    }
}

fn sorted(result: Result<Schedule, Stuck>) -> Result<Vec<Piece>, Stuck> {
    result.map(|s| {
        // Both orders are as documented, and list every piece once.
        assert!(s.pieces.is_sorted_by_key(|p| (p.start, p.core)));
        assert!(s.closed.iter().is_sorted_by_key(|&i| {
            let p = s.pieces[i as usize];
            (p.end, p.core)
        }));
        let mut seen = s.closed.clone();
        seen.sort_unstable();
        assert!(seen.iter().copied().eq(0..s.pieces.len() as u32));
        let mut p = s.pieces;
        p.sort_by_key(|p| (p.start, p.core));
        p
    })
}

proptest! {
    /// Advancing by stretches makes exactly the decisions of the slot-by-slot twin.
    #[test]
    fn stretches_match_slot_by_slot(
        specs in prop::collection::vec(
            (0u64..30, 1u64..6, 0u64..12, 0u8..3,
             prop::collection::vec((0u64..4, 1u64..4), 1..4)),
            1..12),
        edges in prop::collection::vec((0usize..12, 0usize..12), 0..10),
        cores in 1usize..4,
        policy in prop::sample::select(Policy::ALL.to_vec()),
    ) {
        let jobs: Vec<EngineJob> = specs
            .iter()
            .map(|(r, c, s, k, shape)| job(*r, *c, *s, *k, shape))
            .collect();
        let n = jobs.len();
        let pairs: Vec<(u32, u32)> = edges
            .iter()
            .filter(|&&(a, b)| a < b && b < n)
            .map(|&(a, b)| (a as u32, b as u32))
            .collect();
        let successors = Csr::from_pairs(n, &pairs);
        let horizon = jobs.iter().map(|j| j.deadline).max().unwrap_or(0) + 1;
        let problem = Problem { jobs: &jobs, successors: &successors, cores, horizon, policy };
        let fast = sorted(run_engine(&problem, true));
        let slow = sorted(run_engine(&problem, false));
        prop_assert_eq!(fast, slow);
    }
}
