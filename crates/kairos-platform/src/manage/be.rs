//! Best-effort programs: a command restarted whenever it ends (a work unit is one completed
//! run) or stress-ng stressors (a work unit is a bogo operation, read from its YAML report).
//! Each starts pinned to its core and already inside its cgroups: between fork and exec the
//! child writes itself into each group's `cgroup.procs`, so not even a first fork of the
//! program escapes its budget. Each runs in its own process group, killed as a group when it
//! stops, with a parent-death signal so that a crash of kairos takes it along.

use crate::stress::{own_command, StraySockets, StressSpec};
use kairos_model::managed::BestEffortWork;
use kairos_os::process::{self, Stop};
use serde::Serialize;
use std::fs::File;
use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, AtomicI32, Ordering};
use std::sync::Arc;

/// How to start one program.
#[derive(Clone, Debug)]
pub struct Launch {
    pub name: String,
    pub core: usize,
    pub work: BestEffortWork,
    /// `cgroup.procs` files to join.
    pub joins: Vec<PathBuf>,
    /// stress-ng's own time bound (seconds).
    pub timeout_s: u64,
    pub scratch: PathBuf,
}

/// What a program did.
#[derive(Clone, Debug, Serialize)]
pub struct Outcome {
    pub name: String,
    pub core: usize,
    /// Work units completed: runs of a command, bogo operations of stress-ng.
    pub units: u64,
    pub unit: &'static str,
    /// stress-ng: operations per stressor.
    pub per_stressor: Vec<(String, u64)>,
}

pub struct Program {
    launch: Launch,
    running: Running,
}

enum Running {
    /// stress-ng and kairos's own stressors: each process with its YAML report, and the
    /// sockets stress-ng may leave.
    Stress(Vec<(Child, PathBuf)>, StraySockets),
    Command {
        stop: Arc<AtomicBool>,
        group: Arc<AtomicI32>,
        loop_thread: std::thread::JoinHandle<u64>,
    },
}

impl Program {
    pub fn start(launch: Launch) -> std::io::Result<Program> {
        let running = match &launch.work {
            BestEffortWork::Stress(list) => start_stress(list, &launch)?,
            BestEffortWork::Command(words) => start_loop(words, &launch)?,
        };
        Ok(Program { launch, running })
    }

    /// Stops the program and counts its work.
    pub fn stop(self) -> Outcome {
        let Launch { name, core, .. } = self.launch;
        match self.running {
            Running::Stress(children, sockets) => {
                let mut per_stressor = Vec::new();
                for (mut child, yaml) in children {
                    // SIGINT: stress-ng stops its workers and writes its report, as kairos's
                    // own stressors do.
                    interrupt_then_kill(child.id() as i32, &mut || {
                        child.try_wait().ok().flatten().is_some()
                    });
                    let _ = child.wait();
                    process::reap_group(child.id() as i32);
                    per_stressor.extend(bogo_ops(
                        &std::fs::read_to_string(&yaml).unwrap_or_default(),
                    ));
                }
                sockets.remove();
                Outcome {
                    name,
                    core,
                    units: per_stressor.iter().map(|(_, n)| n).sum(),
                    unit: "bogo ops",
                    per_stressor,
                }
            }
            Running::Command {
                stop,
                group,
                loop_thread,
            } => {
                stop.store(true, Ordering::SeqCst);
                let pid = group.load(Ordering::SeqCst);
                if pid > 0 {
                    interrupt_then_kill(pid, &mut || loop_thread.is_finished());
                }
                let units = loop_thread.join().unwrap_or(0);
                // The loop reaped the last run's leader; the rest of its group comes here.
                process::reap_group(pid);
                Outcome {
                    name,
                    core,
                    units,
                    unit: "runs",
                    per_stressor: Vec::new(),
                }
            }
        }
    }
}

/// stress-ng for its stressors, one process for each of kairos's own; the run's scratch
/// folder, removed at the end, holds the stressors' files and reports.
fn start_stress(list: &[String], launch: &Launch) -> std::io::Result<Running> {
    let spec =
        StressSpec::parse(&list.join(","), vec![launch.core]).map_err(std::io::Error::other)?;
    let mut children = Vec::new();
    let sockets = StraySockets::from_now();
    if let Some(args) = spec.args(launch.timeout_s, &launch.scratch) {
        let yaml = launch.scratch.join(format!("{}.yaml", launch.name));
        let mut command = Command::new("stress-ng");
        command.args(args);
        command.args(["--metrics-brief", "--yaml"]).arg(&yaml);
        children.push((spawn(command, launch)?, yaml));
    }
    for stressor in spec.own() {
        let yaml = launch
            .scratch
            .join(format!("{}-{stressor}.yaml", launch.name));
        let started = own_command(stressor, launch.timeout_s, Some(&yaml))
            .and_then(|command| spawn(command, launch));
        match started {
            Ok(child) => children.push((child, yaml)),
            Err(e) => {
                // What already runs must not outlive a failed start.
                for (mut child, _) in children {
                    process::signal_group(child.id() as i32, Stop::Kill);
                    let _ = child.wait();
                    process::reap_group(child.id() as i32);
                }
                sockets.remove();
                return Err(e);
            }
        }
    }
    Ok(Running::Stress(children, sockets))
}

fn start_loop(words: &[String], launch: &Launch) -> std::io::Result<Running> {
    let stop = Arc::new(AtomicBool::new(false));
    let group = Arc::new(AtomicI32::new(0));
    let make = {
        let (words, launch) = (words.to_vec(), launch.clone());
        move || {
            let mut command = Command::new(&words[0]);
            command.args(&words[1..]).stdout(Stdio::null());
            spawn(command, &launch)
        }
    };
    // The first start reports a missing program at once.
    let first = make()?;
    let (s, g) = (stop.clone(), group.clone());
    let loop_thread = std::thread::spawn(move || {
        let mut runs = 0;
        let mut child = Some(first);
        while let Some(mut c) = child.take() {
            g.store(c.id() as i32, Ordering::SeqCst);
            let ok = c.wait().is_ok_and(|s| s.success());
            if s.load(Ordering::SeqCst) {
                break;
            }
            runs += u64::from(ok);
            child = make().ok();
        }
        runs
    });
    Ok(Running::Command {
        stop,
        group,
        loop_thread,
    })
}

/// Spawns `command` pinned to the launch's core, in its cgroups and its own process group.
fn spawn(mut command: Command, launch: &Launch) -> std::io::Result<Child> {
    let files: Vec<File> = launch
        .joins
        .iter()
        .map(|p| std::fs::OpenOptions::new().write(true).open(p))
        .collect::<Result<_, _>>()?;
    command.stdin(Stdio::null()).stderr(Stdio::null());
    process::spawn_confined(&mut command, Some(launch.core), &files)
}

/// SIGINT to the process group, then SIGKILL after two seconds if `done` is still false.
fn interrupt_then_kill(group: i32, done: &mut dyn FnMut() -> bool) {
    process::signal_group(group, Stop::Interrupt);
    for _ in 0..40 {
        if done() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    process::signal_group(group, Stop::Kill);
}

/// `bogo-ops` per stressor from stress-ng's YAML report.
fn bogo_ops(yaml: &str) -> Vec<(String, u64)> {
    let mut out = Vec::new();
    let mut stressor = None;
    for line in yaml.lines().map(str::trim) {
        if let Some(s) = line.strip_prefix("- stressor:") {
            stressor = Some(s.trim().to_string());
        } else if let (Some(n), Some(s)) = (line.strip_prefix("bogo-ops:"), stressor.take()) {
            out.push((s, n.trim().parse().unwrap_or(0)));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    #[test]
    fn bogo_operations_are_read_per_stressor() {
        let yaml = "metrics:\n    - stressor: vm\n      bogo-ops: 81470\n      wall-clock-time: 3.4\n\n    - stressor: mmap\n      bogo-ops: 1\n";
        assert_eq!(
            super::bogo_ops(yaml),
            [("vm".to_string(), 81470), ("mmap".to_string(), 1)]
        );
    }
}
