//! stress-ng, the standard Linux stressor (`linux-platform.md`), started on chosen CPUs for a
//! bounded time and always stopped: its own process group, killed as a group on drop; a parent
//! death signal so that a crash of kairos takes it along; `--timeout` as a last bound. Its
//! stressors' files go to a private folder (`--temp-path`) that kairos removes: a killed
//! stress-ng cannot clean up, and by default it writes into the working directory. The one
//! file it puts elsewhere, the `syscall` stressor's client socket in `/tmp`, kairos removes too.
//! kairos's own stressors ([`static_key`]) run as processes of this program
//! (`kairos stressor NAME`), one per CPU, started and stopped the same way.

pub mod static_key;

use kairos_os::process::{self, Stop};
use std::os::unix::fs::FileTypeExt;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::SystemTime;

/// The stressors kairos drives, the kernel-heavy ones of the OS-latency study (section V), a
/// plain CPU load, memory bandwidth and kairos's own: stress-ng's option name for each of its.
pub use kairos_model::managed::{KAIROS_STRESSORS, STRESSORS};

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

    /// Whether stress-ng runs any of them.
    pub fn needs_stress_ng(&self) -> bool {
        self.own().count() < self.stressors.len()
    }

    /// The stressors kairos runs itself.
    pub fn own(&self) -> impl Iterator<Item = &str> {
        self.stressors
            .iter()
            .map(String::as_str)
            .filter(|s| KAIROS_STRESSORS.contains(s))
    }

    /// The stress-ng arguments (None: every stressor is kairos's own), `timeout_s` the hard
    /// bound, `temp` the folder for the stressors' files.
    pub fn args(&self, timeout_s: u64, temp: &Path) -> Option<Vec<String>> {
        let n = self.cpus.len().to_string();
        let mut args = Vec::new();
        for s in self
            .stressors
            .iter()
            .filter(|s| !KAIROS_STRESSORS.contains(&s.as_str()))
        {
            args.extend([format!("--{s}"), n.clone()]);
            match s.as_str() {
                "cpu" => args.extend(["--cpu-load".into(), self.cpu_load.to_string()]),
                // Bounded footprints: the machine keeps its memory for the measured task.
                "vm" => args.extend(["--vm-bytes".into(), "128M".into()]),
                "mmap" => args.extend(["--mmap-bytes".into(), "64M".into()]),
                _ => {}
            }
        }
        if args.is_empty() {
            return None;
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
        Some(args)
    }
}

/// The command that runs kairos's own stressor `name` for at most `timeout_s` seconds, its
/// count written to `yaml` when given: this program, `kairos stressor NAME`.
pub fn own_command(name: &str, timeout_s: u64, yaml: Option<&Path>) -> std::io::Result<Command> {
    let mut command = Command::new(std::env::current_exe()?);
    command.args(["stressor", name, "--timeout", &format!("{timeout_s}s")]);
    if let Some(path) = yaml {
        command.arg("--yaml").arg(path);
    }
    Ok(command)
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
    #[error("a stressor stopped at once ({0}); try it by hand: {1}")]
    Died(String, String),
}

/// A running stress-ng and kairos's own stressors, stopped (each one's whole process group)
/// on drop, stress-ng's temporary folder and its stray sockets removed after it.
pub struct Stress {
    children: Vec<Child>,
    temp: PathBuf,
    sockets: StraySockets,
}

/// The client sockets stress-ng leaves in `/tmp`, to remove once it stopped. Its `syscall`
/// stressor binds `/tmp/stress-ng-client-PID` for a client of its own whatever `--temp-path`
/// says, and a stressor killed in the middle leaves it behind.
#[derive(Clone, Copy, Debug)]
pub struct StraySockets {
    /// When the stress-ng started, less [`SOCKET_CLOCK_MARGIN`]: its sockets are younger.
    since: SystemTime,
}

const CLIENT_SOCKETS: (&str, &str) = ("/tmp", "stress-ng-client-");

/// A file's time comes from the kernel's coarse clock, up to a tick behind the one
/// [`SystemTime::now`] reads; a second covers it with room.
const SOCKET_CLOCK_MARGIN: std::time::Duration = std::time::Duration::from_secs(1);

impl StraySockets {
    /// For a stress-ng about to start.
    pub fn from_now() -> StraySockets {
        let now = SystemTime::now();
        StraySockets {
            since: now.checked_sub(SOCKET_CLOCK_MARGIN).unwrap_or(now),
        }
    }

    /// Removes each client socket made since the start whose process is gone (or a zombie
    /// not yet reaped: a killed stressor's parent dies with it). Older ones, and those of a
    /// stress-ng still running, are not this run's to remove.
    pub fn remove(&self) {
        let (folder, prefix) = CLIENT_SOCKETS;
        let Ok(entries) = std::fs::read_dir(folder) else {
            return;
        };
        for entry in entries.flatten() {
            let name = entry.file_name();
            let pid = (name.to_str())
                .and_then(|n| n.strip_prefix(prefix))
                .and_then(|pid| pid.parse::<u32>().ok());
            let Some(pid) = pid else { continue };
            let Ok(meta) = std::fs::symlink_metadata(entry.path()) else {
                continue;
            };
            let recent = meta.modified().is_ok_and(|m| m >= self.since);
            if meta.file_type().is_socket() && recent && !running(pid) {
                let _ = std::fs::remove_file(entry.path());
            }
        }
    }
}

/// Whether process `pid` exists and is not a zombie (`/proc/PID/stat`: the state follows the
/// command's closing parenthesis).
fn running(pid: u32) -> bool {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
    let state = stat
        .rsplit_once(") ")
        .and_then(|(_, rest)| rest.chars().next());
    state.is_some_and(|s| !matches!(s, 'Z' | 'X'))
}

/// A fresh folder under the system's temporary directory for one stress-ng, named after this
/// process; the folders of kairos processes that died without removing theirs go first.
fn temp_folder() -> Result<PathBuf, StressError> {
    static NEXT: AtomicU64 = AtomicU64::new(0);
    let n = NEXT.fetch_add(1, Ordering::Relaxed);
    let suffix = format!("-{n}");
    kairos_os::scratch::private_folder("kairos-stress-", &suffix)
        .map_err(|e| StressError::Temp(std::env::temp_dir(), e))
}

/// Starts `command` in a process group of its own that dies with kairos, pinned to `cpu` when
/// given.
fn spawn_group(mut command: Command, cpu: Option<usize>) -> std::io::Result<Child> {
    command
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::null());
    process::spawn_confined(&mut command, cpu, &[])
}

impl Stress {
    /// Starts stress-ng and kairos's own stressors as `spec` says, for at most `timeout_s`
    /// seconds, and checks they are still running after they have had time to start.
    pub fn start(spec: &StressSpec, timeout_s: u64) -> Result<Stress, StressError> {
        // From here on, drop stops what started and removes the folder.
        let mut stress = Stress {
            children: Vec::new(),
            temp: temp_folder()?,
            sockets: StraySockets::from_now(),
        };
        let mut described = Vec::new();
        if let Some(args) = spec.args(timeout_s, &stress.temp) {
            let mut command = Command::new("stress-ng");
            command.args(&args);
            let child = spawn_group(command, None).map_err(|e| match e.kind() {
                std::io::ErrorKind::NotFound => StressError::Missing,
                _ => StressError::Spawn(e),
            })?;
            stress.children.push(child);
            described.push(format!("stress-ng {}", args.join(" ")));
        }
        for name in spec.own() {
            for &cpu in &spec.cpus {
                let command = own_command(name, timeout_s, None).map_err(StressError::Spawn)?;
                stress
                    .children
                    .push(spawn_group(command, Some(cpu)).map_err(StressError::Spawn)?);
                described.push(format!("taskset -c {cpu} kairos stressor {name}"));
            }
        }
        std::thread::sleep(std::time::Duration::from_millis(500));
        for (child, what) in stress.children.iter_mut().zip(&described) {
            if let Ok(Some(status)) = child.try_wait() {
                return Err(StressError::Died(status.to_string(), what.clone()));
            }
        }
        Ok(stress)
    }
}

impl Drop for Stress {
    fn drop(&mut self) {
        for child in &mut self.children {
            process::signal_group(child.id() as i32, Stop::Kill);
            let _ = child.wait();
            process::reap_group(child.id() as i32);
        }
        // SIGKILL is pending for every worker once kill returns: none writes again.
        let _ = std::fs::remove_dir_all(&self.temp);
        self.sockets.remove();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kairos_runs_its_own_stressors_and_gives_stress_ng_the_rest() {
        let temp = Path::new("/tmp/x");
        let own = StressSpec::parse("static-key", vec![1]).unwrap();
        assert_eq!(own.own().collect::<Vec<_>>(), ["static-key"]);
        assert_eq!(own.args(5, temp), None);
        assert!(!own.needs_stress_ng());
        let mixed = StressSpec::parse("fork, static-key", vec![1, 2]).unwrap();
        assert_eq!(mixed.own().collect::<Vec<_>>(), ["static-key"]);
        assert!(mixed.needs_stress_ng());
        let args = mixed.args(5, temp).unwrap();
        assert_eq!(args[..2], ["--fork", "2"]);
        assert!(!args.iter().any(|a| a.contains("static")), "{args:?}");
        assert!(StressSpec::parse("static-keys", vec![1]).is_err());
    }

    #[test]
    fn its_own_stressor_is_this_program_with_a_bound() {
        let yaml = Path::new("/tmp/load.yaml");
        let command = own_command("static-key", 7, Some(yaml)).unwrap();
        let args: Vec<_> = command.get_args().map(|a| a.to_str().unwrap()).collect();
        assert_eq!(
            args,
            [
                "stressor",
                "static-key",
                "--timeout",
                "7s",
                "--yaml",
                "/tmp/load.yaml"
            ]
        );
        assert_eq!(command.get_program(), std::env::current_exe().unwrap());
    }

    /// A socket named for a process that exited (a zombie, not reaped yet) goes; one named for
    /// a running process, or made before the run, stays.
    #[test]
    fn only_the_sockets_of_gone_clients_made_since_the_start_are_removed() {
        let (folder, prefix) = CLIENT_SOCKETS;
        let mut exited = Command::new("true").spawn().expect("true starts");
        std::thread::sleep(std::time::Duration::from_millis(200));
        let mut alive = Command::new("sleep")
            .arg("30")
            .spawn()
            .expect("sleep starts");
        assert!(!running(exited.id()) && running(alive.id()));
        let path = |pid: u32| PathBuf::from(format!("{folder}/{prefix}{pid}"));
        let bind = |pid| std::os::unix::net::UnixListener::bind(path(pid)).expect("a socket");
        let before_the_run = bind(u32::MAX);
        std::thread::sleep(SOCKET_CLOCK_MARGIN + std::time::Duration::from_millis(50));
        let sockets = StraySockets::from_now();
        let (_gone, _kept) = (bind(exited.id()), bind(alive.id()));
        sockets.remove();
        let left = [exited.id(), alive.id(), u32::MAX].map(|pid| path(pid).exists());
        for pid in [exited.id(), alive.id(), u32::MAX] {
            let _ = std::fs::remove_file(path(pid));
        }
        drop(before_the_run);
        let _ = (exited.wait(), alive.kill(), alive.wait());
        assert_eq!(left, [false, true, true]);
    }
}
