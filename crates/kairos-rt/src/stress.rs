//! stress-ng, the standard Linux stressor (`linux-platform.md`), started on chosen CPUs for a
//! bounded time and always stopped: its own process group, killed as a group on drop; a parent
//! death signal so that a crash of kairos takes it along; `--timeout` as a last bound. Its
//! stressors' files go to a private folder (`--temp-path`) that kairos removes: a killed
//! stress-ng cannot clean up, and by default it writes into the working directory.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};

/// The stressors kairos drives, the kernel-heavy ones of the OS-latency study (section V) and a plain CPU
/// load: stress-ng's option name for each.
pub use kairos_model::managed::STRESSORS;

/// Which stressors, on which CPUs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StressSpec {
    pub stressors: Vec<String>,
    /// One instance of each stressor per CPU, pinned there.
    pub cpus: Vec<usize>,
    /// CPU load of the `cpu` stressor in percent (100: flat out).
    pub cpu_load: u32,
}

impl StressSpec {
    /// `cpu,fork,mmap,vm,syscall` on `cpus`, at full load.
    pub fn parse(stressors: &str, cpus: Vec<usize>) -> Result<StressSpec, String> {
        let list: Vec<String> = stressors.split(',').map(|s| s.trim().to_string()).collect();
        for s in &list {
            if !STRESSORS.contains(&s.as_str()) {
                return Err(format!(
                    "unknown stressor {s:?}: one or more of {}",
                    STRESSORS.join(", ")
                ));
            }
        }
        Ok(StressSpec {
            stressors: list,
            cpus,
            cpu_load: 100,
        })
    }

    /// The stress-ng arguments, `timeout_s` the hard bound, `temp` the folder for the
    /// stressors' files.
    pub fn args(&self, timeout_s: u64, temp: &Path) -> Vec<String> {
        let n = self.cpus.len().to_string();
        let mut args = Vec::new();
        for s in &self.stressors {
            args.extend([format!("--{s}"), n.clone()]);
            match s.as_str() {
                "cpu" => args.extend(["--cpu-load".into(), self.cpu_load.to_string()]),
                // Bounded footprints: the machine keeps its memory for the measured task.
                "vm" => args.extend(["--vm-bytes".into(), "128M".into()]),
                "mmap" => args.extend(["--mmap-bytes".into(), "64M".into()]),
                _ => {}
            }
        }
        let cpus: Vec<String> = self.cpus.iter().map(|c| c.to_string()).collect();
        args.extend([
            "--taskset".into(),
            cpus.join(","),
            "--timeout".into(),
            format!("{timeout_s}s"),
            "--temp-path".into(),
            temp.display().to_string(),
            "--quiet".into(),
        ]);
        args
    }
}

/// Why stress-ng could not start.
#[derive(Debug, thiserror::Error)]
pub enum StressError {
    #[error("stress-ng is not installed (Debian: apt install stress-ng)")]
    Missing,
    #[error("stress-ng could not start: {0}")]
    Spawn(std::io::Error),
    #[error("could not create a temporary folder for stress-ng in {0}: {1}")]
    Temp(PathBuf, std::io::Error),
    #[error("stress-ng stopped at once ({0}); try its arguments by hand: stress-ng {1}")]
    Died(String, String),
}

/// A running stress-ng, stopped (its whole process group) on drop, its temporary folder
/// removed after it.
pub struct Stress {
    child: Child,
    temp: PathBuf,
}

/// A fresh folder under the system's temporary directory for one stress-ng, named after this
/// process; the folders of kairos processes that died without removing theirs go first.
fn temp_folder() -> Result<PathBuf, StressError> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let suffix = format!("-{n}");
    crate::platform::scratch::private_folder("kairos-stress-", &suffix)
        .map_err(|e| StressError::Temp(std::env::temp_dir(), e))
}

impl Stress {
    /// Starts stress-ng as `spec` says, for at most `timeout_s` seconds, and checks it is
    /// still running after it has had time to start its workers.
    pub fn start(spec: &StressSpec, timeout_s: u64) -> Result<Stress, StressError> {
        let temp = temp_folder()?;
        let args = spec.args(timeout_s, &temp);
        let mut command = Command::new("stress-ng");
        command
            .args(&args)
            .stdin(Stdio::null())
            .stdout(Stdio::null())
            .stderr(Stdio::null());
        // SAFETY: pre_exec runs in the child between fork and exec; setpgid and prctl are
        // async-signal-safe system calls.
        unsafe {
            use std::os::unix::process::CommandExt;
            command.pre_exec(|| {
                libc::setpgid(0, 0);
                libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
                Ok(())
            });
        }
        let child = match command.spawn() {
            Ok(child) => child,
            Err(e) => {
                let _ = std::fs::remove_dir_all(&temp);
                return Err(match e.kind() {
                    std::io::ErrorKind::NotFound => StressError::Missing,
                    _ => StressError::Spawn(e),
                });
            }
        };
        // From here on, drop stops it and removes the folder.
        let mut stress = Stress { child, temp };
        std::thread::sleep(std::time::Duration::from_millis(500));
        if let Ok(Some(status)) = stress.child.try_wait() {
            return Err(StressError::Died(status.to_string(), args.join(" ")));
        }
        Ok(stress)
    }

    /// The stress-ng process (its process group has the same id).
    pub fn pid(&self) -> u32 {
        self.child.id()
    }
}

impl Drop for Stress {
    fn drop(&mut self) {
        let group = self.child.id() as libc::pid_t;
        // SAFETY: signals the process group this Stress created.
        unsafe { libc::kill(-group, libc::SIGKILL) };
        let _ = self.child.wait();
        // SIGKILL is pending for every worker once kill returns: none writes again.
        let _ = std::fs::remove_dir_all(&self.temp);
    }
}

/// Whether stress-ng can be run here.
pub fn available() -> bool {
    Command::new("stress-ng")
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok_and(|s| s.success())
}
