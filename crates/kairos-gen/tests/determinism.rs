//! Reproducibility: the same seed gives the same output, and pinned values of fixed seeds
//! catch any accidental change of an algorithm or of the random stream.
//!
//! The pinned floats are compared bit for bit: the crate computes them with correctly rounded
//! operations and its own `ln`/`exp`, so they must be identical on every machine. If a change
//! is intended, update the values here and say so in the changelog: every set a user has
//! generated from a seed changes with them.

use kairos_gen::rng::seeded;
use kairos_gen::{
    generate_rtxen, generate_until_cap, generate_with_uunifast, randfixedsum, uunifast,
    uunifast_discard, DeadlineDist, Discard, PeriodDist, RtXenConfig, UtilDist,
};
use kairos_model::{Duration, Task};

/// (C, T, D) in ns.
fn triples(tasks: &[Task]) -> Vec<(u64, u64, u64)> {
    tasks
        .iter()
        .map(|t| {
            (
                t.wcet.as_nanos(),
                t.period.as_nanos(),
                t.deadline.as_nanos(),
            )
        })
        .collect()
}

fn cap_set(seed: u64) -> Vec<Task> {
    generate_until_cap(
        &mut seeded(seed),
        2.0,
        UtilDist::BimoMedium,
        PeriodDist::LogUniModerate,
        DeadlineDist::UniConstrained,
        Duration::from_micros(1),
        true,
    )
    .unwrap()
}

#[test]
fn same_seed_same_output() {
    for seed in [0, 1, 42, u64::MAX] {
        assert_eq!(
            uunifast(&mut seeded(seed), 7, 3.3),
            uunifast(&mut seeded(seed), 7, 3.3)
        );
        let d = Discard::with_cap(0.6);
        assert_eq!(
            uunifast_discard(&mut seeded(seed), 7, 3.3, d),
            uunifast_discard(&mut seeded(seed), 7, 3.3, d)
        );
        assert_eq!(
            randfixedsum(&mut seeded(seed), 7, 3.3, 0.1, 0.9),
            randfixedsum(&mut seeded(seed), 7, 3.3, 0.1, 0.9)
        );
        assert_eq!(cap_set(seed), cap_set(seed));
        let config = RtXenConfig::new(2.5, UtilDist::BimoHeavy);
        assert_eq!(
            generate_rtxen(&mut seeded(seed), &config),
            generate_rtxen(&mut seeded(seed), &config)
        );
    }
    assert_ne!(cap_set(1), cap_set(2));
}

fn bits(v: &[f64]) -> Vec<u64> {
    v.iter().map(|x| x.to_bits()).collect()
}

#[test]
fn golden_values() {
    let show = std::env::var("KAIROS_GEN_PRINT_GOLDEN").is_ok();
    let u = uunifast(&mut seeded(42), 4, 1.0).unwrap();
    let d = uunifast_discard(&mut seeded(42), 4, 2.0, Discard::with_cap(0.7)).unwrap();
    let r = randfixedsum(&mut seeded(42), 4, 2.0, 0.2, 0.8).unwrap();
    let cap = triples(&cap_set(42)[..4]);
    let config = RtXenConfig::new(1.1, UtilDist::BimoLight);
    let rtxen = generate_rtxen(&mut seeded(42), &config).unwrap();
    let uuni_set = generate_with_uunifast(
        &mut seeded(42),
        3,
        1.5,
        PeriodDist::UniBroad,
        DeadlineDist::UniArbitrary,
        Duration::from_micros(100),
        1.0,
    )
    .unwrap();
    if show {
        println!("uunifast {u:?} {:#x?}", bits(&u));
        println!("discard {d:?} {:#x?}", bits(&d));
        println!("rfs {r:?} {:#x?}", bits(&r));
        println!("cap {cap:?}");
        println!(
            "rtxen {:?} {:?} {:?}",
            triples(&rtxen.tasks),
            rtxen.domain_of,
            rtxen.pad
        );
        println!("uuni_set {:?}", triples(&uuni_set));
    }
    // uunifast: 0.11981744820843043, 0.02216237577517688, 0.4912024767875466, 0.3668176992288461
    let want = [
        0x3fbeac5b358b9e30,
        0x3f96b1bbdc9fcae0,
        0x3fdf6fdc836111ce,
        0x3fd779f0f17209f8,
    ];
    assert_eq!(bits(&u), want, "UUniFast changed: {u:?}");
    // discard: 0.291704357449438, 0.674353615366373, 0.5768580599014415, 0.4570839672827476
    let want = [
        0x3fd2ab48c0d6255c,
        0x3fe5944e087e0390,
        0x3fe2759f08b6be0e,
        0x3fdd40dd1cc05768,
    ];
    assert_eq!(bits(&d), want, "UUniFast-discard changed: {d:?}");
    // rfs: 0.20505723218038055, 0.5554756628250691, 0.48541108652890064, 0.7540560184656495
    let want = [
        0x3fca3f50bd02f219,
        0x3fe1c674e5b1d7d1,
        0x3fdf10f9a9707a22,
        0x3fe8213a16552e96,
    ];
    assert_eq!(bits(&r), want, "RandFixedSum changed: {r:?}");
    let want = [
        (32_208_000, 48_000_000, 42_115_000),
        (2_940_000, 19_000_000, 15_850_000),
        (14_982_000, 59_000_000, 54_678_000),
        (33_185_000, 91_000_000, 43_542_000),
    ];
    assert_eq!(cap, want, "generate_until_cap changed");
    let want = [
        (463_666_000, 691_000_000, 691_000_000),
        (50_351_000, 664_000_000, 664_000_000),
        (165_633_000, 469_000_000, 469_000_000),
    ];
    assert_eq!(triples(&rtxen.tasks), want, "RT-Xen generator changed");
    assert_eq!((rtxen.domain_of, rtxen.pad), (vec![3, 2, 2], Some(2)));
    let want = [
        (150_100_000, 289_000_000, 191_800_000),
        (112_900_000, 309_000_000, 428_200_000),
        (475_000_000, 772_000_000, 616_700_000),
    ];
    assert_eq!(triples(&uuni_set), want, "generate_with_uunifast changed");
}
