//! Helpers the end-to-end tests of the `kairos` binary share: a scratch folder and the binary
//! run in it. Each test file uses a part of them.

#![allow(dead_code)]

pub mod machine;
pub mod vm;

use std::path::PathBuf;
use std::process::{Command, Output};

/// A command's standard output, as text.
pub fn stdout(output: &Output) -> String {
    String::from_utf8_lossy(&output.stdout).into_owned()
}

/// A command's standard error, as text.
pub fn stderr(output: &Output) -> String {
    String::from_utf8_lossy(&output.stderr).into_owned()
}
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, MutexGuard};

static SERIAL: Mutex<()> = Mutex::new(());

/// One test binary's lock for the tests that change the machine or run real-time work: they
/// take turns. Taken also after a test that held it failed (that failure is reported on its
/// own).
pub fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// Says why a real run runs again, with the host's evidence, on the process's standard error
/// itself: the test harness captures `println!` and `eprintln!` of a test that passes, and a
/// rerun must show in the log of every run, passing or not.
pub fn tell_rerun(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr().lock(), "{text}");
}

/// A fresh, empty folder under the system temp dir for one test; removed when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// `kairos-TAG-PID-N`: one per test binary (PID) and per test (N).
    pub fn new(tag: &str) -> Scratch {
        static NEXT: AtomicUsize = AtomicUsize::new(0);
        let dir = std::env::temp_dir().join(format!(
            "kairos-{tag}-{}-{}",
            std::process::id(),
            NEXT.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("create a temp folder");
        Scratch(dir)
    }

    /// Writes `contents` to the file `name` in this folder.
    pub fn write(&self, name: &str, contents: impl AsRef<[u8]>) {
        std::fs::write(self.0.join(name), contents).expect("write a file");
    }

    /// The text of the file `name` in this folder.
    pub fn read(&self, name: &str) -> String {
        std::fs::read_to_string(self.0.join(name)).expect("read a file")
    }

    /// Runs `kairos ARGS` in this folder with its partition state kept here too
    /// (`KAIROS_STATE_DIR`), away from the machine's own.
    pub fn kairos_with_state(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_kairos"))
            .args(args)
            .current_dir(&self.0)
            .env("KAIROS_STATE_DIR", &self.0)
            .output()
            .expect("run kairos")
    }

    /// Runs `kairos ARGS` in this folder.
    pub fn kairos(&self, args: &[&str]) -> Output {
        Command::new(env!("CARGO_BIN_EXE_kairos"))
            .args(args)
            .current_dir(&self.0)
            .output()
            .expect("run kairos")
    }
}

impl std::ops::Deref for Scratch {
    type Target = std::path::Path;
    fn deref(&self) -> &std::path::Path {
        &self.0
    }
}

/// Runs `kairos ARGS` in `dir`.
pub fn kairos_in(args: &[&str], dir: &std::path::Path) -> Output {
    Command::new(env!("CARGO_BIN_EXE_kairos"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run kairos")
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}
