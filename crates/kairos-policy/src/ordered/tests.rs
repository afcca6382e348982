//! The hybrid map against the standard B-tree map, operation by operation, across both
//! conversions.

use super::{Ordered, TREE_FROM, VECTOR_BELOW};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use std::collections::BTreeMap;
use std::ops::Bound::{self, Excluded, Included, Unbounded};

fn bound(rng: &mut ChaCha8Rng) -> Bound<u32> {
    match rng.random_range(0..3) {
        0 => Included(rng.random_range(0..200)),
        1 => Excluded(rng.random_range(0..200)),
        _ => Unbounded,
    }
}

/// Grows past the tree bound and shrinks below the vector bound several times, comparing
/// every answer and every range with the reference.
#[test]
fn answers_as_a_btree_map_through_growth_and_shrinking() {
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let mut ours = Ordered::default();
    let mut reference = BTreeMap::new();
    let (mut grown, mut shrunk) = (0, 0);
    for round in 0..8 {
        // Even rounds mostly insert, odd rounds mostly remove.
        let insert_odds = if round % 2 == 0 { 0.8 } else { 0.05 };
        for _ in 0..400 {
            let was_tree = ours.is_tree();
            let key: u32 = rng.random_range(0..200);
            if rng.random_bool(insert_odds) {
                let value: u8 = rng.random();
                assert_eq!(
                    ours.insert(key, value),
                    reference.insert(key, value).is_none()
                );
            } else if rng.random_bool(0.1) {
                assert_eq!(ours.pop_first(), reference.pop_first());
            } else {
                assert_eq!(ours.remove(&key), reference.remove(&key).is_some());
            }
            assert_eq!(ours.len(), reference.len());
            grown += usize::from(!was_tree && ours.is_tree());
            shrunk += usize::from(was_tree && !ours.is_tree());
            assert_eq!(
                ours.first(),
                reference.first_key_value().map(|(k, v)| (*k, *v))
            );
            let (from, to) = (bound(&mut rng), bound(&mut rng));
            if let (Included(a) | Excluded(a), Included(b) | Excluded(b)) = (from, to) {
                let both_excluded = matches!((from, to), (Excluded(_), Excluded(_)));
                if a > b || (a == b && both_excluded) {
                    continue; // a range the standard map refuses
                }
            }
            let got: Vec<_> = ours.range((from, to)).collect();
            let want: Vec<_> = reference.range((from, to)).map(|(k, v)| (*k, *v)).collect();
            assert_eq!(got, want, "range {from:?}..{to:?}");
        }
        let all: Vec<_> = ours.iter().collect();
        assert_eq!(
            all,
            reference.iter().map(|(k, v)| (*k, *v)).collect::<Vec<_>>()
        );
    }
    assert!(
        grown >= 2 && shrunk >= 2,
        "converted {grown} and {shrunk} times"
    );
}

#[test]
fn converts_at_its_bounds() {
    let mut map = Ordered::default();
    for key in 0..TREE_FROM - 1 {
        map.insert(key, ());
    }
    assert!(!map.is_tree());
    map.insert(TREE_FROM, ());
    assert!(map.is_tree());
    for key in 0..=TREE_FROM - VECTOR_BELOW {
        map.remove(&key);
    }
    assert_eq!(map.len(), VECTOR_BELOW - 1);
    assert!(!map.is_tree());
    assert_eq!(map.iter().next(), Some((TREE_FROM - VECTOR_BELOW + 1, ())));
}
