use super::*;
use std::path::PathBuf;

/// A config path inside the repository's `examples/experiments` (the file itself need not
/// exist: the text is given), so that relative profile paths resolve there.
fn config_path() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/experiments/study.toml")
}

fn rendered(text: &str) -> Vec<String> {
    let (study, diagnostics) = check(&config_path(), text);
    assert!(study.is_none(), "a config with errors gives no study");
    diagnostics.iter().map(|d| d.render("c.toml")).collect()
}

#[test]
fn the_study_key_alone_gives_the_default_study() {
    let (study, diagnostics) = check(&config_path(), "study = \"guarantees\"\n");
    assert!(!diagnostics.has_errors(), "{diagnostics:?}");
    let study = study.expect("valid");
    assert_eq!(study.name, "study", "the file's stem");
    assert_eq!((study.sets.cores, study.samples, study.seed), (2, 3, 0));
    let names: Vec<&str> = study.families.iter().map(|f| f.name()).collect();
    let policies = ["gedf", "pedf", "gfp", "edzl", "grmwp", "prmwp"];
    let vms = [
        "vm-global-deferrable",
        "vm-global-periodic",
        "vm-partition-deferrable",
        "vm-partition-periodic",
    ];
    assert_eq!(names, [&policies[..], &vms[..], &["mc-tables"]].concat());
    // 0.3, 0.5, ..., 1.9: nine points.
    assert_eq!(study.points.len(), 9);
    assert_eq!((study.points[0], study.points[8]), (0.3, 1.9));
    assert_eq!(study.sets.periods_ms, (5, 50));
    assert_eq!(study.sets.tasks, 8);
    assert_eq!(study.duration, Duration::from_secs(2));
    assert_eq!(study.quantile, Quantile::Max);
    assert!(study.real && matches!(study.profile, Profile::Measured));
}

#[test]
fn every_key_is_read() {
    let text = "study = \"guarantees\"\nname = \"tiny\"\nexecution = \"simulated\"\nseed = 7\n\
                cores = 1\nsamples = 2\nfamilies = [\"prmwp\", \"vm-global-periodic\", \"gedf\", \"gfp-kernel\"]\ntasks = 3\n\
                periods = [\"10ms\", \"20ms\"]\nduration = \"300ms\"\n\
                overheads = \"../overheads/example-profile.toml\"\nquantile = \"p99\"\n\
                [utilization]\nfrom = 0.5\nto = 0.9\nstep = 0.4\n";
    let (study, diagnostics) = check(&config_path(), text);
    assert!(!diagnostics.has_errors(), "{diagnostics:?}");
    let study = study.expect("valid");
    assert_eq!(study.name, "tiny");
    assert!(!study.real);
    assert_eq!((study.seed, study.sets.cores, study.samples), (7, 1, 2));
    let names: Vec<&str> = study.families.iter().map(|f| f.name()).collect();
    assert_eq!(names, ["prmwp", "vm-global-periodic", "gedf", "gfp-kernel"]);
    assert_eq!((study.sets.tasks, study.sets.periods_ms), (3, (10, 20)));
    assert_eq!(study.duration, Duration::from_millis(300));
    assert_eq!(study.quantile, Quantile::P99);
    assert_eq!(study.points, vec![0.5, 0.9]);
    let Profile::Given { path, overheads } = &study.profile else {
        panic!("a given profile")
    };
    assert!(path.ends_with("examples/experiments/../overheads/example-profile.toml"));
    // The example profile's largest scheduling cost, as its file writes it.
    let max = match overheads.scheduling {
        kairos_model::Cost::Measured(q) => q.max,
        kairos_model::Cost::Fixed(d) => d,
    };
    assert_eq!(max, Duration::from_micros(60));
}

#[test]
fn every_problem_is_reported_at_once_and_located() {
    let text = "study = \"guarantees\"\n\
                familes = [\"gedf\"]\n\
                families = [\"gedf\", \"llf\", \"gedf\"]\n\
                periods = [\"5.5ms\", \"50ms\"]\n\
                duration = \"90s\"\n\
                quantile = \"p95\"\n\
                execution = \"virtual\"\n\
                samples = 0\n\
                overheads = \"no-such-profile.toml\"\n\
                [utilization]\nfrom = 1.0\nto = 0.5\nstep = 0.1\n";
    let got = rendered(text);
    let want = [
        (
            "c.toml:2:1: error: familes: unknown key `familes`",
            "did you mean `families`?",
        ),
        (
            "c.toml:3:21: error: families[1]: unknown family \"llf\"",
            "one or more of gedf, pedf, gfp, edzl, grmwp, prmwp",
        ),
        ("c.toml:3:28: error: families[2]: named twice", ""),
        (
            "c.toml:4:12: error: periods[0]: a whole number of milliseconds",
            "",
        ),
        (
            "c.toml:5:12: error: duration: 90s is longer than the 60s a real run may take",
            "",
        ),
        (
            "c.toml:6:12: error: quantile: unknown overhead quantile \"p95\"",
            "",
        ),
        (
            "c.toml:7:13: error: execution: unknown value \"virtual\"",
            "execution = \"real\" or \"simulated\"",
        ),
        ("c.toml:8:11: error: samples: must be at least 1", ""),
        (
            "c.toml:9:13: error: overheads: cannot read",
            "relative to the config's folder",
        ),
        (
            "c.toml:10:1: error: utilization: need 0 < from <= to and step > 0",
            "",
        ),
    ];
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for (line, (start, hint)) in got.iter().zip(want) {
        assert!(
            line.starts_with(start),
            "{line}\n  expected to start with {start}"
        );
        assert!(line.contains(hint), "{line}\n  expected the hint {hint}");
    }
}

#[test]
fn wrong_types_and_a_missing_study_are_refused() {
    let got = rendered("study = 3\nfamilies = \"gedf\"\nperiods = [\"5ms\"]\n");
    assert_eq!(got.len(), 3, "{got:#?}");
    assert!(
        got[0].starts_with("c.toml:1:9: error: study: expected a string"),
        "{}",
        got[0]
    );
    assert!(got[1].starts_with("c.toml:2:12: error: families: expected an array of family names"));
    assert!(got[2].starts_with("c.toml:3:11: error: periods: expected [min, max]"));
    let missing = rendered("seed = 1\n");
    assert!(missing[0].contains("missing field `study`"), "{missing:?}");
}

#[test]
fn p999_with_a_profile_that_lacks_it_is_refused_at_each_distribution() {
    // The example profile predates p999: none of its six distributions has one.
    let text = "study = \"guarantees\"\n\
                overheads = \"../overheads/example-profile.toml\"\n\
                quantile = \"p999\"\n";
    let got = rendered(text);
    assert_eq!(got.len(), 1, "{got:#?}");
    let start = "c.toml:2:13: error: overheads: quantile p999 is charged, but this profile's \
                 distributions lack it";
    assert!(got[0].starts_with(start), "{}", got[0]);
    // Each distribution's line in examples/overheads/example-profile.toml, its value after
    // `KEY = `.
    let lines = [
        ("scheduling", 7),
        ("context_switch", 8),
        ("migration", 9),
        ("release", 10),
        ("release_latency", 11),
        ("ipi", 12),
    ];
    for (key, line) in lines {
        let column = key.len() + 4;
        let at = format!(
            "example-profile.toml:{line}:{column}: error: overheads.{key}: this distribution \
             has no p999"
        );
        assert!(got[0].contains(&at), "{}\n  expected {at}", got[0]);
    }
    // The same profile charged at p99 is read.
    let p99 = text.replace("p999", "p99");
    let (study, diagnostics) = check(&config_path(), &p99);
    assert!(
        !diagnostics.has_errors() && study.is_some(),
        "{diagnostics:?}"
    );
}

#[test]
fn a_simulated_study_leaves_the_tables_out_by_default() {
    let text = "study = \"guarantees\"\nexecution = \"simulated\"\n";
    let (study, diagnostics) = check(&config_path(), text);
    assert!(!diagnostics.has_errors(), "{diagnostics:?}");
    let names: Vec<&str> = (study.expect("valid").families.iter())
        .map(|f| f.name())
        .collect();
    assert_eq!(names.len(), 10, "{names:?}");
    assert!(!names.contains(&"mc-tables"), "{names:?}");
}
