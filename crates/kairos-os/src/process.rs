//! Child processes kairos starts and must always stop: stressors and best-effort programs.
//! Each starts in a process group of its own, so that stopping it stops everything it forked,
//! with a parent-death signal, so that a crash of kairos takes it along, and optionally pinned
//! to one CPU and inside cgroups from its first instruction on: the child does both between
//! fork and exec, so not even a first fork of the program escapes its CPU or its budget.
//!
//! Stopping a group kills every member, but only the leader is kairos's child: the others
//! (stress-ng's workers) are the leader's, and when it dies first they would go to the
//! machine's init, whose reaping can lag by seconds or never come (a container's or a VM
//! agent's PID 1), so a stopped stressor stayed in the process table after kairos exited.
//! kairos is therefore the child subreaper of what it starts (`PR_SET_CHILD_SUBREAPER`, set
//! at the first [`spawn_confined`]): the orphans come to it, and [`reap_group`] waits for
//! them.

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
    // SAFETY: prctl takes no pointers here; it marks this process, idempotently.
    if unsafe { libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1) } != 0 {
        return Err(std::io::Error::last_os_error());
    }
    command.spawn()
}

/// After the leader of a group [`spawn_confined`] started has been waited for, waits for the
/// rest of its group, which came to this process as orphans; at most [`REAP_WAIT`] (a member
/// stopped by SIGKILL exits within milliseconds; one stuck in the kernel is not waited for
/// forever).
pub fn reap_group(leader: i32) {
    if leader <= 0 {
        return;
    }
    let until = std::time::Instant::now() + REAP_WAIT;
    while std::time::Instant::now() < until {
        // SAFETY: a null status pointer is allowed; -leader names the group.
        let reaped = unsafe { libc::waitpid(-leader, std::ptr::null_mut(), libc::WNOHANG) };
        match reaped {
            0 => std::thread::sleep(std::time::Duration::from_millis(1)),
            r if r > 0 => {}
            // ECHILD: no child of this process is left in the group.
            _ if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted => {}
            _ => return,
        }
    }
}

/// The longest [`reap_group`] waits.
pub const REAP_WAIT: std::time::Duration = std::time::Duration::from_secs(2);

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

    /// The process group of `pid`, from `/proc/PID/stat` (fields after the command's closing
    /// parenthesis: state, ppid, pgrp).
    fn pgrp_of(pid: &str) -> Option<i32> {
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
        stat.rsplit(") ").next()?.split(' ').nth(2)?.parse().ok()
    }

    /// The pids of the processes of `group` in the process table, zombies included.
    fn members(group: i32) -> Vec<i32> {
        (std::fs::read_dir("/proc").unwrap())
            .filter_map(|e| e.ok()?.file_name().to_str().map(str::to_owned))
            .filter(|name| pgrp_of(name) == Some(group))
            .filter_map(|name| name.parse().ok())
            .collect()
    }

    #[test]
    fn a_stopped_group_leaves_no_process_behind_once_reaped() {
        // The leader forks two members and waits; killed together, the members outlive the
        // leader as zombies until someone reaps them.
        let mut child = spawn_confined(
            Command::new("sh").args(["-c", "sleep 30 & sleep 30 & wait"]),
            None,
            &[],
        )
        .expect("sh starts");
        let group = child.id() as i32;
        let started = std::time::Instant::now();
        while members(group).len() < 3 && started.elapsed() < REAP_WAIT {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        assert_eq!(members(group).len(), 3, "the leader and its two sleeps");
        signal_group(group, Stop::Kill);
        child.wait().unwrap();
        reap_group(group);
        assert_eq!(members(group), Vec::<i32>::new());
    }

    #[test]
    fn a_confined_child_leads_its_own_group_on_its_cpu_and_stops_as_a_group() {
        let cpu = *crate::online_cpus().last().expect("a CPU");
        let mut child =
            spawn_confined(Command::new("sleep").arg("30"), Some(cpu), &[]).expect("sleep starts");
        let pid = child.id() as i32;
        assert_eq!(pgrp_of(&pid.to_string()), Some(pid));
        assert_eq!(sched::affinity_of(pid).unwrap(), [cpu]);
        signal_group(pid, Stop::Kill);
        let ended = child.wait().unwrap();
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&ended),
            Some(libc::SIGKILL)
        );
    }
}
