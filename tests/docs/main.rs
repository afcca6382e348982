//! The documentation's examples, run: every ```sh block of README.md and docs/*.md that is
//! followed by an output block (```, or ```toml / ```json for files printed) is run with bash and its output (standard output and error, as a
//! terminal shows them) compared with the block; a ```sh block without output must exit 0.
//!
//! The comparison is exact line by line (trailing spaces aside), except:
//! - a line `...` in the documented output stands for any number of lines;
//! - `<!-- doc-test: numbers vary -->` on the line before the ```sh block compares the lines
//!   with every number masked (timings, latencies, measured counts) and runs of spaces folded
//!   (columns shift with the numbers' widths): the wording and the lines are still checked;
//! - `<!-- doc-test: real run -->` (real-time runs and benchmarks on this machine) masks numbers
//!   too, and the documented lines need only appear in the printed output in order: how many
//!   mode changes, misses or notes a real run prints varies with the machine;
//! - `<!-- doc-test: skip: REASON -->` does not run the block; the reason must say why (a
//!   precondition the test cannot provide, such as SimSo's Python 3.11). Skips are listed.
//!
//! Blocks that run real-time threads (`kairos run`, the runtime benches, `setpriv`, any `real
//! run` block) run in a test of their own, ignored by a plain `cargo test` like every real-time test (CI runs it),
//! never beside the plain one (two cores of simulations would disturb what it measures).
//!
//! Blocks run in file order (README.md, then docs/*.md by name), each in a scratch folder that
//! holds `examples`, `docs`, `crates` and `scripts` links to the repository's, with the `kairos` under test first on
//! `PATH` and the scratch folder as `HOME` (so `kairos bench` prints the same with or without a
//! SimSo set up); `/tmp` files written by one block are read by later blocks as in the docs.
//!
//! Written by hand rather than with trycmd: the documented commands are shell lines (pipes,
//! `; echo "exit $?"`, here-documents), which trycmd does not run.

mod rerun;

use std::{path::Path, path::PathBuf, process::Command, sync::Mutex};

/// The plain and the real-time examples take turns (see the module doc).
static TURNS: Mutex<()> = Mutex::new(());

/// One ```sh block and what follows it.
struct Example {
    file: String,
    line: usize,
    script: String,
    expected: Option<Vec<String>>,
    /// Lines (from 0) of the documented output, between its fences.
    output_lines: std::ops::Range<usize>,
    mode: Mode,
}

#[derive(Clone, Debug, PartialEq)]
enum Mode {
    Exact,
    NumbersVary,
    RealRun,
    Skip(String),
}

fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The pages whose examples are run, in order.
fn pages() -> Vec<PathBuf> {
    let mut docs: Vec<PathBuf> = std::fs::read_dir(repo().join("docs"))
        .expect("docs/")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "md"))
        .collect();
    docs.sort();
    std::iter::once(repo().join("README.md"))
        .chain(docs)
        .collect()
}

fn fence_end(lines: &[&str], from: usize) -> usize {
    (from..lines.len())
        .find(|&i| lines[i].trim() == "```")
        .unwrap_or_else(|| panic!("unclosed code block from line {from}"))
}

fn directive(line: &str) -> Mode {
    let Some(rest) = line.trim().strip_prefix("<!-- doc-test:") else {
        return Mode::Exact;
    };
    let body = rest.trim_end_matches("-->").trim();
    match body.strip_prefix("skip:") {
        Some(reason) if !reason.trim().is_empty() => Mode::Skip(reason.trim().to_string()),
        Some(_) => panic!("a doc-test skip needs a reason: {line}"),
        None if body == "numbers vary" => Mode::NumbersVary,
        None if body == "real run" => Mode::RealRun,
        None => panic!("unknown doc-test directive: {line}"),
    }
}

fn examples(page: &Path) -> Vec<Example> {
    let text = std::fs::read_to_string(page).expect("read the page");
    let lines: Vec<&str> = text.lines().collect();
    let file = page
        .strip_prefix(repo())
        .unwrap_or(page)
        .display()
        .to_string();
    let mut found = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        if lines[i].trim() != "```sh" {
            i += 1;
            continue;
        }
        let end = fence_end(&lines, i + 1);
        let mode = i
            .checked_sub(1)
            .map_or(Mode::Exact, |p| directive(lines[p]));
        let mut next = end + 1;
        let output_fence = ["```", "```toml", "```json"];
        let follows = lines
            .get(next)
            .is_some_and(|l| output_fence.contains(&l.trim()));
        let after_blank = lines[next..].iter().find(|l| !l.trim().is_empty());
        assert!(
            follows || !after_blank.is_some_and(|l| output_fence.contains(&l.trim())),
            "{file}:{}: an output block separated from its ```sh block by a blank line would \
             go unchecked; remove the blank line",
            i + 1
        );
        let mut output_lines = 0..0;
        let expected = follows.then(|| {
            let out_end = fence_end(&lines, next + 1);
            let block = lines[next + 1..out_end]
                .iter()
                .map(|l| l.to_string())
                .collect();
            output_lines = next + 1..out_end;
            next = out_end + 1;
            block
        });
        found.push(Example {
            file: file.clone(),
            line: i + 1,
            script: lines[i + 1..end].join("\n"),
            expected,
            output_lines,
            mode,
        });
        i = next;
    }
    found
}

/// A scratch folder with links to the repository's examples, docs, crates (for their test data)
/// and scripts, where blocks run.
fn workdir(tag: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("kairos-docs-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("scratch folder");
    for name in ["examples", "docs", "crates", "scripts"] {
        std::os::unix::fs::symlink(repo().join(name), dir.join(name)).expect("link");
    }
    dir
}

/// Runs the block with bash; standard error goes where standard output goes, as on a terminal.
fn run(example: &Example, dir: &Path) -> (String, Option<i32>) {
    let bin = Path::new(env!("CARGO_BIN_EXE_kairos"))
        .parent()
        .expect("bin dir");
    let path = format!(
        "{}:{}",
        bin.display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let output = Command::new("bash")
        .arg("-c")
        .arg(format!("exec 2>&1\n{}", example.script))
        .current_dir(dir)
        .env("PATH", path)
        // A home of its own: a SimSo set up in the real one must not change what `bench` prints.
        .env("HOME", dir)
        .env_remove("KAIROS_DOCS_REPORT")
        .output()
        .expect("bash runs");
    (
        String::from_utf8_lossy(&output.stdout).into_owned(),
        output.status.code(),
    )
}

/// Every number as `#`, with the duration unit after it if any (`998.653ms` and `1.000s` both
/// read `#`): measured values may cross a unit boundary from run to run.
fn mask_numbers(line: &str) -> String {
    let chars: Vec<char> = line.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        // A sign (after a space or at the start, before a digit) belongs to the number: a
        // measured difference may come out negative in one run and positive in the next.
        let sign = (chars[i] == '-' || chars[i] == '+')
            && chars.get(i + 1).is_some_and(char::is_ascii_digit)
            && (i == 0 || chars[i - 1].is_whitespace());
        if sign {
            i += 1;
        } else if !chars[i].is_ascii_digit() {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        while i < chars.len() && (chars[i].is_ascii_digit() || chars[i] == '.') {
            i += 1;
        }
        out.push('#');
        let rest: String = chars[i..].iter().take(3).collect();
        for unit in ["ns", "us", "µs", "ms", "s"] {
            let after = rest.chars().nth(unit.chars().count());
            if rest.starts_with(unit) && !after.is_some_and(char::is_alphanumeric) {
                i += unit.chars().count();
                break;
            }
        }
    }
    out
}

/// Whether `actual` matches `expected`, where an expected line `...` matches any lines.
fn matches(expected: &[String], actual: &[String]) -> bool {
    match expected.split_first() {
        None => actual.is_empty(),
        Some((first, rest)) if first == "..." => {
            (0..=actual.len()).any(|skip| matches(rest, &actual[skip..]))
        }
        Some((first, rest)) => actual
            .split_first()
            .is_some_and(|(line, tail)| line == first && matches(rest, tail)),
    }
}

/// Whether every line of `expected` (but `...`) appears in `actual`, in order.
fn in_order(expected: &[String], actual: &[String]) -> bool {
    let mut rest = actual.iter();
    expected
        .iter()
        .filter(|l| *l != "...")
        .all(|want| rest.any(|line| line == want))
}

fn normalized(lines: impl Iterator<Item = String>, mode: &Mode) -> Vec<String> {
    let mut out: Vec<String> = lines
        .map(|l| l.trim_end().to_string())
        .map(|l| match mode {
            // Right-aligned columns shift with the width of the numbers: spacing is not compared.
            Mode::NumbersVary | Mode::RealRun if l != "..." => mask_numbers(&l)
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            _ => l,
        })
        .collect();
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

/// What is wrong with one run of an example, if anything ([`rerun::check`] may run it twice).
/// With `KAIROS_DOCS_BLESS=1` a differing documented output is replaced by what was printed
/// (for a person to review with git diff).
fn check_once(example: &Example, dir: &Path) -> Option<String> {
    let (output, code) = run(example, dir);
    let blessable = example.expected.is_some() && example.mode != Mode::RealRun;
    if std::env::var_os("KAIROS_DOCS_BLESS").is_some() && blessable {
        bless(example, &output);
    }
    let Some(expected) = &example.expected else {
        return (code != Some(0)).then(|| format!("exit {code:?}, output:\n{output}"));
    };
    let want = normalized(expected.iter().cloned(), &example.mode);
    let got = normalized(output.lines().map(String::from), &example.mode);
    let agree = match example.mode {
        Mode::RealRun => code == Some(0) && in_order(&want, &got),
        _ => matches(&want, &got),
    };
    (!agree).then(|| {
        format!(
            "documented:\n{}\n--- printed (exit {code:?}):\n{output}",
            expected.join("\n")
        )
    })
}

fn bless(example: &Example, output: &str) {
    let path = repo().join(&example.file);
    let text = std::fs::read_to_string(&path).expect("read the page");
    let mut lines: Vec<&str> = text.lines().collect();
    let printed: Vec<&str> = output.trim_end().lines().collect();
    let (want, got) = (
        normalized(example.expected.iter().flatten().cloned(), &example.mode),
        normalized(printed.iter().map(|l| l.to_string()), &example.mode),
    );
    if matches(&want, &got) {
        return;
    }
    // Earlier blessings may have moved this block: find it again by its script.
    let now = examples(&path)
        .into_iter()
        .filter(|e| e.script == example.script)
        .min_by_key(|e| e.line.abs_diff(example.line))
        .expect("the block is still there");
    lines.splice(now.output_lines, printed);
    std::fs::write(&path, lines.join("\n") + "\n").expect("write the page");
}

/// Whether the block runs real-time threads (a `real run` block, a run, a runtime benchmark, or
/// a run as another user): those need real-time privilege and run in a test of their own.
fn needs_real_time(example: &Example) -> bool {
    const MARKS: [&str; 13] = [
        "kairos run ",
        "kairos demo",
        "kairos platform ",
        "kairos partition ",
        "kairos exec ",
        "kairos manage ",
        "kairos bench timer",
        "kairos bench dispatch",
        "kairos bench overheads",
        "kairos bench migration",
        "kairos bench mode-change",
        "kairos bench cyclic",
        "setpriv ",
    ];
    example.mode == Mode::RealRun || MARKS.iter().any(|m| example.script.contains(m))
}

/// Runs the examples `select` picks, in order; panics listing every one that differs.
fn run_examples(tag: &str, select: fn(&Example) -> bool, at_least: usize) {
    let dir = workdir(tag);
    let (mut failures, mut skipped, mut ran) = (Vec::new(), Vec::new(), 0);
    for example in pages().iter().flat_map(|p| examples(p)) {
        let place = format!("{}:{}", example.file, example.line);
        if let Mode::Skip(reason) = &example.mode {
            skipped.push(format!("{place}: {reason}"));
            continue;
        }
        if !select(&example) {
            continue;
        }
        ran += 1;
        if let Some(problem) = rerun::check(&example, &dir) {
            failures.push(format!("== {place}\n{}\n{problem}", example.script));
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
    eprintln!(
        "{ran} documented examples run; skipped:\n  {}",
        skipped.join("\n  ")
    );
    assert!(ran >= at_least, "only {ran} examples ran");
    assert!(
        failures.is_empty(),
        "{} of {ran} documented examples differ from the docs:\n\n{}",
        failures.len(),
        failures.join("\n\n")
    );
}

#[test]
fn documented_examples_print_what_the_docs_show() {
    let _turn = TURNS.lock().unwrap_or_else(|e| e.into_inner());
    run_examples("plain", |e| !needs_real_time(e), 60);
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn documented_real_time_examples_print_what_the_docs_show() {
    let _turn = TURNS.lock().unwrap_or_else(|e| e.into_inner());
    run_examples("real-time", needs_real_time, 12);
}

#[test]
fn the_matcher_understands_ellipses_and_masks_numbers() {
    let lines = |text: &str| text.lines().map(String::from).collect::<Vec<_>>();
    assert!(matches(&lines("a\n...\nd"), &lines("a\nb\nc\nd")));
    assert!(matches(&lines("a\n..."), &lines("a")));
    assert!(!matches(&lines("a\nd"), &lines("a\nb\nd")));
    assert!(!matches(&lines("a"), &lines("a\nb")));
    assert!(in_order(&lines("a\nc"), &lines("a\nb\nc")));
    assert!(!in_order(&lines("c\na"), &lines("a\nb\nc")));
    assert_eq!(
        mask_numbers("took 0.046 ms on cpu0, 12 jobs."),
        "took # ms on cpu#, # jobs."
    );
    assert_eq!(
        mask_numbers("ran 998.653ms of 1.000s, 12 sets"),
        "ran # of #, # sets"
    );
    assert_eq!(
        mask_numbers("median -7.957us, p99 1.134ms, window 0ms..50ms, gantt-by"),
        "median #, p# #, window #..#, gantt-by"
    );
    assert_eq!(mask_numbers("diff -3 and x-2"), "diff # and x-#");
    assert_eq!(
        directive("<!-- doc-test: numbers vary -->"),
        Mode::NumbersVary
    );
    assert_eq!(
        directive("<!-- doc-test: skip: needs SimSo -->"),
        Mode::Skip("needs SimSo".into())
    );
}
