//! The tour called as a front end other than the command line calls it: its lines come through
//! the callback, its figures in the result, its files in the folder asked for.

use kairos_lab::demo::{run, Request};

#[test]
fn the_tour_says_every_stage_and_returns_its_figures() {
    let out_dir = std::env::temp_dir().join(format!("kairos-lab-demo-{}", std::process::id()));
    let mut lines = Vec::new();
    let mut notices = Vec::new();
    let tour = run(
        &Request {
            out_dir: out_dir.clone(),
        },
        &mut |line| lines.push(line.to_string()),
        &mut |line| notices.push(line.to_string()),
    )
    .expect("the embedded inputs make a tour");
    let names: Vec<&str> = tour.stages.iter().map(|s| s.stage).collect();
    assert_eq!(
        names,
        [
            "check",
            "analyze",
            "simulate",
            "check",
            "synthesize",
            "simulate",
            "run",
            "imprecise",
            "vm",
            "measure",
            "report"
        ]
    );
    let headings = lines.iter().filter(|l| l.starts_with("\n== ")).count();
    assert_eq!(headings, names.len(), "{lines:?}");
    assert!(lines.last().unwrap().starts_with("Next: kairos simulate"));
    assert!(notices.is_empty(), "{notices:?}");
    let json = serde_json::to_value(&tour).unwrap();
    assert_eq!(json["stages"][0]["tasks"], 9);
    assert_eq!(json["files"].as_array().unwrap().len(), tour.files.len());
    for file in [
        "workload.toml",
        "mc-tables.json",
        "gantt-vm.svg",
        "report.html",
    ] {
        assert!(out_dir.join(file).is_file(), "{file}");
    }
    std::fs::remove_dir_all(&out_dir).unwrap();
}
