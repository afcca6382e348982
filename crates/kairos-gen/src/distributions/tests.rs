use super::*;

#[test]
fn names_round_trip() {
    for d in UtilDist::ALL {
        assert_eq!(d.to_string().parse::<UtilDist>(), Ok(d));
    }
    for d in PeriodDist::NAMED {
        assert_eq!(d.to_string().parse::<PeriodDist>(), Ok(d));
    }
    for d in DeadlineDist::ALL {
        assert_eq!(d.to_string().parse::<DeadlineDist>(), Ok(d));
    }
    let custom = PeriodDist::Uniform {
        min_ms: 350,
        max_ms: 850,
    };
    assert_eq!("uni-350-850".parse::<PeriodDist>(), Ok(custom));
    assert_eq!(custom.to_string(), "uni-350-850");
    assert!(matches!(
        "log-uni-2-20".parse::<PeriodDist>(),
        Ok(PeriodDist::LogUniform {
            min_ms: 2,
            max_ms: 20
        })
    ));
}

#[test]
fn unknown_names_list_the_valid_ones() {
    let err = "uni-hevy".parse::<UtilDist>().unwrap_err().to_string();
    assert!(
        err.contains("'uni-hevy'") && err.contains("bimo-medium"),
        "{err}"
    );
    let err = "uni-9-3".parse::<PeriodDist>().unwrap_err().to_string();
    assert!(
        err.contains("log-uni-long") && err.contains("uni-MIN-MAX"),
        "{err}"
    );
    let err = "constrained"
        .parse::<DeadlineDist>()
        .unwrap_err()
        .to_string();
    assert!(err.contains("uni-constrained"), "{err}");
}
