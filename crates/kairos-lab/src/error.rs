//! Why a stage could not do its job, with the exit code the command line gives it.

/// Exit codes shared by every command (docs/cli.md).
pub mod exit {
    /// The answer is "no": e.g. a deadline was missed under `--fail-on-miss`.
    pub const NO: u8 = 1;
    /// Bad input or usage.
    pub const BAD_INPUT: u8 = 2;
    /// The environment is missing something (a file cannot be written, ...).
    pub const ENVIRONMENT: u8 = 3;
}

/// A stage that could not do its job: what to tell the user, and the exit code.
#[derive(Debug)]
pub struct Failure {
    pub message: String,
    pub code: u8,
}

impl Failure {
    pub fn bad_input(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            code: exit::BAD_INPUT,
        }
    }
    pub fn environment(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            code: exit::ENVIRONMENT,
        }
    }
}

impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for Failure {}

/// Where a stage sends what the user should be told while it works: notices and warnings
/// (each a whole line, e.g. `notice: ...`). The command line prints them on standard error as
/// they come; the Python API drops them (a file's warnings reach it in the check report).
pub type Notify<'a> = &'a mut dyn FnMut(&str);

/// The first option of `given` that is set, refused as not applying (`belongs` says why):
/// "--tables applies to mixed-criticality systems only".
pub fn refuse(given: &[(bool, &str)], belongs: &str) -> Result<(), Failure> {
    match given.iter().find(|(set, _)| *set) {
        Some((_, option)) => Err(Failure::bad_input(format!("{option} {belongs}"))),
        None => Ok(()),
    }
}

/// Writes `contents` to `path`, creating parent folders.
pub fn write_output(path: &std::path::Path, contents: impl AsRef<[u8]>) -> Result<(), Failure> {
    if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
        std::fs::create_dir_all(parent).map_err(|e| {
            Failure::environment(format!("cannot create {}: {e}", parent.display()))
        })?;
    }
    std::fs::write(path, contents)
        .map_err(|e| Failure::environment(format!("cannot write {}: {e}", path.display())))
}
