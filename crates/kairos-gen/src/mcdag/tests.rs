//! Tests of the parent module (`mcdag.rs`).

use super::*;

#[test]
fn apportion_sums_and_follows_weights() {
    assert_eq!(apportion(10, &[1.0, 1.0, 2.0]), vec![3, 2, 5]);
    assert_eq!(apportion(0, &[1.0, 3.0]), vec![0, 0]);
    assert_eq!(apportion(7, &[0.0, 1.0]), vec![0, 7]);
}

#[test]
fn counts_give_every_level_a_task() {
    assert_eq!(split_counts(5, &[1.0, 1.0, 1.0]), vec![2, 2, 1]);
    assert_eq!(split_counts(4, &[0.0, 1.0]), vec![1, 3]);
    assert_eq!(split_counts(2, &[1.0, 1.0]), vec![1, 1]);
}

#[test]
fn divisors_are_sorted_and_complete() {
    assert_eq!(divisors(12), vec![1, 2, 3, 4, 6, 12]);
    assert_eq!(divisors(1), vec![1]);
    assert_eq!(divisors(3600).len(), 45);
}

#[test]
fn bad_parameters_are_errors() {
    let bad = [
        McDagParams {
            dags: 0,
            ..Default::default()
        },
        McDagParams {
            tasks: 1,
            ..Default::default()
        },
        McDagParams {
            utilization: -1.0,
            ..Default::default()
        },
        McDagParams {
            edge_probability: 1.5,
            ..Default::default()
        },
        McDagParams {
            reduction: 0.5,
            ..Default::default()
        },
        McDagParams {
            level_fractions: vec![1.0],
            ..Default::default()
        },
        McDagParams {
            level_fractions: vec![0.0, 0.0],
            ..Default::default()
        },
        McDagParams {
            hyperperiod_base: Some(0),
            ..Default::default()
        },
    ];
    for params in bad {
        let err = generate_mcdag(&params).unwrap_err();
        assert!(matches!(err, GenError::InvalidParameter { .. }), "{err}");
    }
}
