//! Sums of many interference terms at rising points, for [`super::least_fixed_point`].
//!
//! A response-time recurrence sums one term per interfering task, and the search evaluates the
//! sum at a rising sequence of points. Each term's [`Piece`] says how far it stays linear, so
//! between two evaluations most terms need no recomputation: [`LazySum`] keeps every term's
//! piece as a line ([`CachedPiece`]) and re-evaluates only the terms whose piece has ended. A
//! term whose piece reaches the search's limit is folded into a settled part and never looked
//! at again. [`CappedLevels`] sums terms known to be `min(level, x - base + 1)` throughout
//! without evaluating anything.
//!
//! With thousands of tasks this replaces (steps x tasks) workload evaluations, each with
//! divisions, by about one evaluation per task and per breakpoint crossed, plus one addition per
//! live term and step. The sums are exact, so the search finds the same least fixed point.

use super::Piece;

/// A piece kept as the line `intercept + slope x` on `[from, end]`, so that it can be read at
/// any later point it covers without evaluating the term again.
#[derive(Clone, Copy, Debug)]
pub(crate) struct CachedPiece {
    intercept: i128,
    slope: i128,
    from: u64,
    end: u64,
}

impl CachedPiece {
    // The products below are of a slope (at most the number of tasks) and a point (below
    // 2^64): far inside i128, and the overflow-checked 128-bit multiplication the release
    // profile would otherwise call is most of the cost of reading a cached piece.
    pub(crate) fn new(x: u64, piece: Piece) -> CachedPiece {
        CachedPiece {
            intercept: piece.value - piece.slope.wrapping_mul(i128::from(x)),
            slope: piece.slope,
            from: x,
            end: x.saturating_add(piece.len),
        }
    }

    /// The piece at `x`, `None` outside `[from, end)` (at `end` itself the piece would have
    /// length 0: evaluating afresh there gives a longer one).
    pub(crate) fn at(&self, x: u64) -> Option<Piece> {
        (self.from <= x && x < self.end).then(|| Piece {
            value: self.intercept + self.slope.wrapping_mul(i128::from(x)),
            slope: self.slope,
            len: self.end - x,
        })
    }
}

/// Terms summed lazily at rising points up to a limit (see the module doc). Kept between
/// searches to reuse its buffer.
#[derive(Debug, Default)]
pub(crate) struct LazySum {
    /// The terms not settled, with their piece (`None` before the first evaluation).
    live: Vec<(usize, Option<CachedPiece>)>,
    /// The sum of the settled terms' lines (intercept, slope), and where the first of them
    /// ends (at or after the limit).
    settled: (i128, i128),
    settled_end: u64,
    limit: u64,
}

impl LazySum {
    /// Starts a sum over `terms`, to be evaluated at rising points up to `limit`.
    pub(crate) fn reset(&mut self, terms: impl IntoIterator<Item = usize>, limit: u64) {
        self.live.clear();
        self.live.extend(terms.into_iter().map(|term| (term, None)));
        self.settled = (0, 0);
        self.settled_end = u64::MAX;
        self.limit = limit;
    }

    /// The sum's piece at `x`, where `piece(term, x)` is a term's piece at `x`. Points must not
    /// decrease from one call to the next and must not exceed the limit (the search's order):
    /// a settled term is never evaluated again.
    pub(crate) fn at(&mut self, x: u64, mut piece: impl FnMut(usize, u64) -> Piece) -> Piece {
        debug_assert!(x <= self.limit);
        let (mut sum, mut i) = (Piece::constant(0), 0);
        while i < self.live.len() {
            let (term, cached) = self.live[i];
            let p = match cached.and_then(|c| c.at(x)) {
                Some(p) => p,
                None => {
                    let p = piece(term, x);
                    let cached = CachedPiece::new(x, p);
                    if cached.end >= self.limit {
                        self.settled.0 += cached.intercept;
                        self.settled.1 += cached.slope;
                        self.settled_end = self.settled_end.min(cached.end);
                        self.live.swap_remove(i);
                        continue;
                    }
                    self.live[i].1 = Some(cached);
                    p
                }
            };
            sum = sum.add(p);
            i += 1;
        }
        let settled = Piece {
            value: self.settled.0 + self.settled.1.wrapping_mul(i128::from(x)),
            slope: self.settled.1,
            len: self.settled_end - x,
        };
        sum.add(settled)
    }
}

/// `sum_i min(level_i, x - base + 1)`: terms that are the cap `x - base + 1` until it reaches
/// a constant level, then that level for good. In the G-EDF RTA these are the tasks whose
/// workload already reaches their EDF bound `I_i^k` where the search starts, most of them: one
/// pass over the levels not reached yet per evaluation, and no workload evaluated at all.
#[derive(Debug, Default)]
pub(crate) struct CappedLevels {
    rising: Vec<u128>,
    reached: u128,
    base: u64,
}

impl CappedLevels {
    pub(crate) fn reset(&mut self, base: u64) {
        self.rising.clear();
        self.reached = 0;
        self.base = base;
    }

    pub(crate) fn push(&mut self, level: u128) {
        self.rising.push(level);
    }

    /// The sum's piece at `x >= base`; points must not decrease from one call to the next (a
    /// level once reached is dropped).
    pub(crate) fn at(&mut self, x: u64) -> Piece {
        let cap = u128::from(x - self.base) + 1;
        let (mut reached, mut next) = (self.reached, u128::MAX);
        self.rising.retain(|&level| {
            if level <= cap {
                reached += level;
            } else {
                next = next.min(level);
            }
            level > cap
        });
        self.reached = reached;
        let rising = self.rising.len() as i128;
        Piece {
            value: reached as i128 + rising * cap as i128,
            slope: rising,
            len: u64::try_from(next - cap).unwrap_or(u64::MAX),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::sawtooth;
    use super::*;

    /// `min(W(x + offset), e, x - base + 1)`: the shape of a G-EDF RTA term.
    fn term((offset, c, t, e): (u64, u64, u64, i128), base: u64, x: u64) -> Piece {
        let cap = Piece::ramp(i128::from(x) - i128::from(base) + 1);
        let workload = sawtooth(u128::from(x) + u128::from(offset), c, t);
        workload.min_rising(Piece::constant(e)).min_rising(cap)
    }

    /// At rising points the lazy sum's piece is the sum of fresh pieces wherever it claims to
    /// be linear (checked point by point against fresh evaluations).
    #[test]
    fn lazy_sums_match_fresh_sums() {
        let mut next = crate::test_rng(0x2545f4914f6cdd1d);
        let mut lazy = LazySum::default();
        for _ in 0..300 {
            let base = 1 + next(20);
            let terms: Vec<(u64, u64, u64, i128)> = (0..1 + next(12))
                .map(|_| {
                    let t = 1 + next(40);
                    (next(60), 1 + next(t), t, next(80) as i128)
                })
                .collect();
            let fresh = |x: u64| {
                terms
                    .iter()
                    .map(|&tm| term(tm, base, x).value)
                    .sum::<i128>()
            };
            let limit = base + next(300);
            lazy.reset(0..terms.len(), limit);
            let mut x = base;
            while x <= limit {
                let p = lazy.at(x, |i, x| term(terms[i], base, x));
                for dt in 0..=p.len.min(limit - x).min(60) {
                    let expect = fresh(x + dt);
                    assert_eq!(
                        p.value + p.slope * i128::from(dt),
                        expect,
                        "{terms:?} x={x}"
                    );
                }
                x += 1 + next(25);
            }
        }
    }

    /// The capped levels against the sum written out, where the piece claims to be linear.
    #[test]
    fn capped_levels_match_their_sum() {
        let mut next = crate::test_rng(0x6a09e667f3bcc909);
        let mut levels = CappedLevels::default();
        for _ in 0..300 {
            let base = next(20);
            let all: Vec<u128> = (0..next(15)).map(|_| u128::from(next(100))).collect();
            let sum = |x: u64| {
                let cap = u128::from(x - base) + 1;
                all.iter().map(|&l| l.min(cap)).sum::<u128>() as i128
            };
            levels.reset(base);
            all.iter().for_each(|&l| levels.push(l));
            let mut x = base;
            while x < base + 150 {
                let p = levels.at(x);
                for dt in 0..=p.len.min(60) {
                    assert_eq!(
                        p.value + p.slope * i128::from(dt),
                        sum(x + dt),
                        "{all:?} x={x}"
                    );
                }
                x += 1 + next(20);
            }
        }
    }
}
