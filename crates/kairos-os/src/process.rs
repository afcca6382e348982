//! Child processes kairos starts and must always stop: stressors and best-effort programs.
//! Each starts in a process group of its own, so that stopping it stops everything it forked,
//! with a parent-death signal, so that a crash of kairos takes it along, and optionally pinned
//! to one CPU and inside cgroups from its first instruction on: the child does both between
//! fork and exec, so not even a first fork of the program escapes its CPU or its budget.

use crate::sched;
use std::fs::File;
use std::os::fd::AsRawFd;
use std::os::unix::process::CommandExt;
use std::process::{Child, Command};

/// Spawns `command` in a new process group that dies with this process, first moved into the
/// cgroup of each of `cgroup_procs` (open `cgroup.procs` files, v1 or v2), then pinned to
/// `cpu` when given. The files may be closed once this returns.
pub fn spawn_confined(
    command: &mut Command,
    cpu: Option<usize>,
    cgroup_procs: &[File],
) -> std::io::Result<Child> {
    let fds: Vec<i32> = cgroup_procs.iter().map(|f| f.as_raw_fd()).collect();
    // Built before the fork: the child only makes system calls.
    let set = match cpu {
        Some(cpu) => Some(sched::cpu_set(&[cpu]).map_err(std::io::Error::other)?),
        None => None,
    };
    // SAFETY: pre_exec runs in the child between fork and exec; it makes only
    // async-signal-safe system calls (write, sched_setaffinity, setpgid, prctl) on memory
    // prepared before the fork (`fds`, `set`), and allocates nothing.
    unsafe {
        command.pre_exec(move || {
            for &fd in &fds {
                // "0" moves the writing process (cgroup v1 and v2).
                if libc::write(fd, b"0".as_ptr().cast(), 1) != 1 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            if let Some(set) = &set {
                if libc::sched_setaffinity(0, std::mem::size_of::<libc::cpu_set_t>(), set) != 0 {
                    return Err(std::io::Error::last_os_error());
                }
            }
            libc::setpgid(0, 0);
            libc::prctl(libc::PR_SET_PDEATHSIG, libc::SIGKILL);
            Ok(())
        });
    }
    command.spawn()
}

/// How to stop a process group.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stop {
    /// SIGINT: stress-ng and kairos's own stressors stop their workers and write reports.
    Interrupt,
    /// SIGKILL: the group is gone or must go.
    Kill,
}

/// Sends `stop` to the process group led by `leader`, a child started by [`spawn_confined`]
/// (its pid is its group's id). A group that is already gone is not an error: stopping is
/// best effort and the caller reaps the child next. Ids of 0 or below, which `kill` would
/// read as this process's own group or every process, are ignored.
pub fn signal_group(leader: i32, stop: Stop) {
    if leader <= 0 {
        return;
    }
    let signal = match stop {
        Stop::Interrupt => libc::SIGINT,
        Stop::Kill => libc::SIGKILL,
    };
    // SAFETY: kill takes no pointers; a negative pid addresses the group `leader` leads.
    unsafe { libc::kill(-leader, signal) };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_confined_child_leads_its_own_group_on_its_cpu_and_stops_as_a_group() {
        let cpu = *crate::online_cpus().last().expect("a CPU");
        let mut child =
            spawn_confined(Command::new("sleep").arg("30"), Some(cpu), &[]).expect("sleep starts");
        let pid = child.id() as i32;
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap();
        // Fields after the command's closing parenthesis: state, ppid, pgrp.
        let pgrp = stat.rsplit(") ").next().unwrap().split(' ').nth(2).unwrap();
        assert_eq!(pgrp, pid.to_string());
        assert_eq!(sched::affinity_of(pid).unwrap(), [cpu]);
        signal_group(pid, Stop::Kill);
        let ended = child.wait().unwrap();
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&ended),
            Some(libc::SIGKILL)
        );
    }
}
