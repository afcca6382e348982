//! When a documented real run may run once more: only on its own report's evidence that the
//! host, not kairos, made it print something else (a raise or a miss the host caused).

use super::{check_once, Example, Mode};
use std::path::Path;

/// What is wrong with one example, if anything. A real run that differs runs once more only
/// when its own report blames the host for what it did differently, and that evidence is
/// printed first.
pub fn check(example: &Example, dir: &Path) -> Option<String> {
    let problem = check_once(example, dir)?;
    let printed = problem.split_once("\n--- printed").map_or("", |p| p.1);
    let evidence = (example.mode == Mode::RealRun).then(|| host_evidence(printed));
    let Some(evidence) = evidence.flatten() else {
        return Some(problem);
    };
    eprintln!(
        "host: {}:{} differs from the docs, and its report blames the host: {evidence}; running once more",
        example.file, example.line
    );
    check_once(example, dir)
}

/// The lines of a real run's report that blame the host (a raise or a miss it caused), if
/// some do and none blames the schedule.
pub fn host_evidence(printed: &str) -> Option<String> {
    let lines = || printed.lines().map(str::trim);
    let schedule = |l: &str| l.starts_with("schedule:") || l.contains("cause: the schedule's");
    if lines().any(schedule) {
        return None;
    }
    let host: Vec<&str> = lines()
        .filter(|l| l.starts_with("host:") || l.contains("cause: the host's"))
        .collect();
    (!host.is_empty()).then(|| host.join("; "))
}

#[cfg(test)]
mod tests {
    use super::{check, host_evidence};
    use crate::{workdir, Example, Mode};

    /// An example of a page of its own in `dir` (with `KAIROS_DOCS_BLESS` set, blessing
    /// rewrites that page, not the repository's).
    fn example(dir: &std::path::Path, mode: Mode, expected: &str) -> Example {
        let page = dir.join("page.md");
        let text = format!("```sh\necho printed\n```\n```\n{expected}\n```\n");
        std::fs::write(&page, text).expect("a scratch page");
        Example {
            file: page.display().to_string(),
            line: 1,
            script: "echo printed".into(),
            expected: Some(vec![expected.into()]),
            output_lines: 4..5,
            mode,
        }
    }

    #[test]
    fn an_example_that_prints_something_else_is_a_problem_unless_the_host_is_blamed() {
        let dir = workdir("rerun-check");
        assert_eq!(check(&example(&dir, Mode::Exact, "printed"), &dir), None);
        for mode in [Mode::Exact, Mode::NumbersVary, Mode::RealRun] {
            if std::env::var_os("KAIROS_DOCS_BLESS").is_some() && mode != Mode::RealRun {
                continue; // blessing makes the page agree
            }
            let problem = check(&example(&dir, mode.clone(), "documented"), &dir);
            assert!(
                problem.is_some_and(|p| p.contains("--- printed")),
                "{mode:?}"
            );
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn only_a_report_that_blames_the_host_alone_is_evidence() {
        let host = "jobs: 650 released\n  cause: the host's: it lacked 237us\n  host: stall of 1.1ms on CPU 0 at 1.2s (1 miss(es))\n";
        assert_eq!(
            host_evidence(host).as_deref(),
            Some("cause: the host's: it lacked 237us; host: stall of 1.1ms on CPU 0 at 1.2s (1 miss(es))")
        );
        let both = format!(
            "{host}  schedule: T1#3 50us late; slack 1ms, no stall or slowed core took as much\n"
        );
        assert_eq!(host_evidence(&both), None);
        assert_eq!(
            host_evidence("  cause: the schedule's: it lacked 3us\n  cause: the host's: x\n"),
            None
        );
        assert_eq!(host_evidence("jobs: 650 released\n"), None);
    }
}
