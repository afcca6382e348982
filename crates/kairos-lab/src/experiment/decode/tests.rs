use super::*;
use proptest::prelude::*;

const VALID: &str = "seed = 1\ncores = 2\nsamples = 3\n[utilization]\nfrom = 0.5\nto = 1.0\n\
                     step = 0.5\n[generator]\nmethod = \"uunifast-discard\"\ntasks = 3\n\
                     [[methods]]\ntest = \"gfb\"\n";

#[test]
fn a_valid_config_reads_without_diagnostics() {
    let (config, diagnostics, _) = read(VALID);
    assert!(diagnostics.iter().next().is_none(), "{diagnostics:?}");
    let config = config.expect("read");
    assert_eq!(
        (config.seed, config.cores, config.samples),
        (Some(1), Some(2), Some(3))
    );
    assert!(config.resolve("x").is_ok());
}

proptest! {
    /// Any text, and any edit of a valid config, is read and resolved without a panic, and
    /// a refusal always says at least one thing that is wrong.
    #[test]
    fn reading_never_panics(
        text in "\\PC{0,200}",
        cut in 0usize..200,
        insert in "[a-z_=\"\\[\\]0-9.\n -]{0,12}",
    ) {
        let _ = read(&text);
        let mut edited = VALID.to_string();
        let at = (0..=cut.min(edited.len())).rev().find(|&i| edited.is_char_boundary(i)).unwrap_or(0);
        edited.insert_str(at, &insert);
        let (config, diagnostics, _) = read(&edited);
        if let Some(Err(problems)) = config.map(|c| c.resolve("x")) {
            prop_assert!(diagnostics.has_errors() || !problems.is_empty());
        }
    }
}

#[test]
fn a_bad_seed_does_not_hide_a_bad_method() {
    let text = VALID
        .replace("seed = 1", "seed = -1")
        .replace("\"gfb\"", "\"nosuch\"");
    let (_, diagnostics) = check(std::path::Path::new("x.toml"), &text);
    let said: Vec<String> = diagnostics.iter().map(|d| d.message.clone()).collect();
    assert_eq!(said.len(), 2, "{said:?}");
    assert!(said[0].contains("negative") && said[1].contains("unknown test `nosuch`"));
}
