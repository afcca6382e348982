//! stress-ng, the standard Linux stressor (`linux-platform.md`), started on chosen CPUs for a
//! bounded time and always stopped: its own process group, killed as a group on drop; a parent
//! death signal so that a crash of kairos takes it along; `--timeout` as a last bound.

use std::process::{Child, Command, Stdio};

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

    /// The stress-ng arguments, `timeout_s` the hard bound.
    pub fn args(&self, timeout_s: u64) -> Vec<String> {
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
    #[error("stress-ng stopped at once ({0}); try its arguments by hand: stress-ng {1}")]
    Died(String, String),
}

/// A running stress-ng, stopped (its whole process group) on drop.
pub struct Stress {
    child: Child,
}

impl Stress {
    /// Starts stress-ng as `spec` says, for at most `timeout_s` seconds, and checks it is
    /// still running after it has had time to start its workers.
    pub fn start(spec: &StressSpec, timeout_s: u64) -> Result<Stress, StressError> {
        let args = spec.args(timeout_s);
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
        let child = command.spawn().map_err(|e| match e.kind() {
            std::io::ErrorKind::NotFound => StressError::Missing,
            _ => StressError::Spawn(e),
        })?;
        let mut stress = Stress { child };
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
