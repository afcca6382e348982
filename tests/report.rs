//! `kairos report`: the page is self-contained, and it opens in a real browser (headless
//! Chromium) with its script run, no console error, every section present; a screenshot is kept
//! in target/ci-output. The browser test needs Chromium (Debian: `apt install chromium`,
//! installed by scripts/test-deps): ignored by a plain `cargo test`, failing when it is absent.

mod common;

use common::{stderr, Scratch};
use std::path::Path;
use std::process::Command;

fn report(dir: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args([
            "report",
            &format!("{}/examples/demo.toml", env!("CARGO_MANIFEST_DIR")),
            "-o",
            "report.html",
        ])
        .current_dir(dir)
        .output()
        .expect("run kairos");
    assert!(out.status.success(), "{}", stderr(&out));
    std::fs::read_to_string(dir.join("report.html")).unwrap()
}

#[test]
fn the_page_needs_nothing_from_the_network() {
    let dir = Scratch::new("report-offline");
    let page = report(&dir.0);
    for id in [
        "workload",
        "analysis",
        "simulation",
        "policy-gedf",
        "policy-pedf",
        "policy-gfp",
        "policy-pfp",
        "policy-edzl",
    ] {
        assert!(
            page.contains(&format!("<section id=\"{id}\"")),
            "section {id}"
        );
    }
    // The only URL is SVG's namespace name, which no browser fetches.
    let urls = page.matches("http").count();
    assert_eq!(
        urls,
        page.matches("http://www.w3.org/2000/svg").count(),
        "a URL besides the SVG namespace"
    );
    for attribute in [" src=", " href=", "@import", "url("] {
        assert!(!page.contains(attribute), "{attribute} in the page");
    }
}

fn chromium(dir: &Path, extra: &[&str]) -> std::process::Output {
    let profile = dir.join("profile");
    let page = format!("file://{}", dir.join("report.html").display());
    // The flags keep Chromium off the network (closed here) and out of a desktop session.
    Command::new("timeout")
        .args([
            "-s",
            "KILL",
            "120",
            "chromium",
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
        ])
        .args([
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--enable-logging=stderr",
            "--v=0",
        ])
        .arg(format!("--user-data-dir={}", profile.display()))
        .args(extra)
        .arg(page)
        .output()
        .expect("Chromium is installed (Debian: apt install chromium)")
}

#[test]
#[ignore = "needs Chromium (scripts/test-deps installs it)"]
fn the_page_opens_in_chromium_without_a_console_error_and_shows_every_section() {
    let dir = Scratch::new("report-browser");
    report(&dir.0);
    let dom = chromium(&dir.0, &["--dump-dom"]);
    assert!(dom.status.success(), "{}", stderr(&dom));
    let html = String::from_utf8_lossy(&dom.stdout);
    // The script ran: it counted the sections into the body.
    assert!(
        html.contains("data-sections=\"8\""),
        "the page's script did not run"
    );
    for id in [
        "workload",
        "analysis",
        "simulation",
        "policy-gedf",
        "policy-edzl",
    ] {
        assert!(html.contains(&format!("id=\"{id}\"")), "section {id}");
    }
    assert!(
        html.matches("<svg").count() >= 10,
        "a Gantt chart and a response chart per policy"
    );
    let log = stderr(&dom);
    assert!(
        log.contains("kairos report loaded: 8 sections"),
        "the console is read: {log}"
    );
    let errors: Vec<&str> = log
        .lines()
        .filter(|l| l.contains("CONSOLE") && (l.contains(":ERROR:") || l.contains("Uncaught")))
        .collect();
    assert!(errors.is_empty(), "{errors:#?}");
    let kept = Path::new(env!("CARGO_MANIFEST_DIR")).join("target/ci-output");
    std::fs::create_dir_all(&kept).unwrap();
    let png = kept.join("report.png");
    let shot = chromium(
        &dir.0,
        &[
            "--window-size=1200,3000",
            &format!("--screenshot={}", png.display()),
        ],
    );
    assert!(shot.status.success(), "{}", stderr(&shot));
    assert!(
        std::fs::metadata(&png).unwrap().len() > 10_000,
        "a screenshot of the page"
    );
}

#[test]
fn a_mixed_criticality_page_shows_the_tables_and_the_mode_changes() {
    let dir = Scratch::new("report-mc");
    let out = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args([
            "report",
            &format!(
                "{}/examples/mcdag/two-levels.toml",
                env!("CARGO_MANIFEST_DIR")
            ),
            "-o",
            "mc.html",
        ])
        .current_dir(&dir.0)
        .output()
        .expect("run kairos");
    assert!(out.status.success(), "{}", stderr(&out));
    let page = std::fs::read_to_string(dir.0.join("mc.html")).unwrap();
    for id in ["system", "tables", "mode-changes"] {
        assert!(
            page.contains(&format!("<section id=\"{id}\"")),
            "section {id}"
        );
    }
    assert!(
        page.contains("table of level LO") && page.contains("table of level HI"),
        "one table per level"
    );
    // Jobs overrun with probability 0.2 over ten hyper-periods: the mode rises at least once.
    assert!(page.contains("highest mode HI"), "no mode change shown");
    assert!(
        page.contains("<td class=\"name\">LO</td><td class=\"name\">HI</td>"),
        "a LO to HI change listed"
    );
}

#[test]
#[ignore = "needs root: a real run on SCHED_DEADLINE (CI runs it)"]
fn a_real_runs_page_sets_the_measured_schedule_beside_the_simulated_one() {
    let dir = Scratch::new("report-run");
    let out = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args([
            "run",
            &format!(
                "{}/examples/runtime-2cores.toml",
                env!("CARGO_MANIFEST_DIR")
            ),
            "--policy",
            "edf",
            "--duration",
            "1s",
            "--report",
            "run.html",
        ])
        .current_dir(&dir.0)
        .output()
        .expect("run kairos");
    assert!(out.status.success(), "{}", stderr(&out));
    let page = std::fs::read_to_string(dir.0.join("run.html")).unwrap();
    for id in ["run", "comparison", "schedules", "responses"] {
        assert!(
            page.contains(&format!("<section id=\"{id}\"")),
            "section {id}"
        );
    }
    assert!(
        page.contains(">measured<") && page.contains(">simulated<"),
        "both schedules"
    );
    assert!(
        page.contains("jobs released in both"),
        "the job-by-job agreement"
    );
}

#[test]
fn a_vm_page_shows_every_domains_interface_and_the_two_level_run() {
    let dir = Scratch::new("report-vm");
    let out = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args([
            "report",
            &format!(
                "{}/examples/vm/two-domains.toml",
                env!("CARGO_MANIFEST_DIR")
            ),
            "-o",
            "vm.html",
        ])
        .current_dir(&dir.0)
        .output()
        .expect("run kairos");
    assert!(out.status.success(), "{}", stderr(&out));
    let page = std::fs::read_to_string(dir.0.join("vm.html")).unwrap();
    for id in ["system", "analysis", "simulation"] {
        assert!(
            page.contains(&format!("<section id=\"{id}\"")),
            "section {id}"
        );
    }
    let analysis = Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args([
            "analyze",
            &format!(
                "{}/examples/vm/two-domains.toml",
                env!("CARGO_MANIFEST_DIR")
            ),
            "--json",
        ])
        .output()
        .expect("run kairos");
    let report: serde_json::Value = serde_json::from_slice(&analysis.stdout).unwrap();
    for interface in report["interfaces"].as_array().unwrap() {
        let domain = interface["domain"].as_str().unwrap();
        assert!(
            page.contains(&format!(
                "<td class=\"name\">{domain}</td><td class=\"name\">{} (",
                interface["model"].as_str().unwrap()
            )),
            "{domain}'s interface"
        );
    }
    assert!(
        page.matches("<svg").count() >= 2,
        "the Gantt chart and the response times"
    );
}
