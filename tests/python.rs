//! The Python package (`python/`), built from this checkout and installed into the venv that
//! scripts/test-deps makes, then its pytest suite, which compares every result with this
//! binary's `--json` on the same inputs. Ignored by a plain `cargo test`; run by the README's
//! command and CI, failing when the venv is missing.

mod common;

use common::{stderr, stdout};
use std::path::PathBuf;
use std::process::Command;

#[test]
#[ignore = "needs ~/.cache/kairos-py-venv (scripts/test-deps makes it)"]
fn the_python_package_gives_what_the_command_line_gives() {
    let venv =
        PathBuf::from(std::env::var("HOME").expect("HOME")).join(".cache/kairos-py-venv/bin");
    assert!(
        venv.join("python").exists(),
        "no Python venv: run scripts/test-deps"
    );
    let repo = env!("CARGO_MANIFEST_DIR");
    // Built from this checkout every time, so the suite never tests a stale package; its own
    // target folder keeps the extension's build apart from the workspace's.
    let install = Command::new(venv.join("pip"))
        .args([
            "install",
            "-q",
            "--no-deps",
            "--force-reinstall",
            "--no-build-isolation",
            "./python",
        ])
        .current_dir(repo)
        .env("CARGO_TARGET_DIR", format!("{repo}/target/python"))
        // The build backend (maturin) lives in the venv.
        .env(
            "PATH",
            format!(
                "{}:{}",
                venv.display(),
                std::env::var("PATH").unwrap_or_default()
            ),
        )
        .output()
        .expect("pip");
    assert!(
        install.status.success(),
        "{}{}",
        stdout(&install),
        stderr(&install)
    );
    let pytest = Command::new(venv.join("python"))
        .args(["-m", "pytest", "-q", "python/tests"])
        .current_dir(repo)
        .env("KAIROS_BIN", env!("CARGO_BIN_EXE_kairos"))
        .output()
        .expect("pytest");
    assert!(
        pytest.status.success(),
        "{}{}",
        stdout(&pytest),
        stderr(&pytest)
    );
    assert!(stdout(&pytest).contains("passed"), "{}", stdout(&pytest));
}
