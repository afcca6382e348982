//! Whether this process may use real-time policies, and if not, exactly what is missing
//! (`linux-platform.md`: root or CAP_SYS_NICE; RLIMIT_RTPRIO for unprivileged users; with
//! CONFIG_RT_GROUP_SCHED a cgroup v1 cpu group whose `cpu.rt_runtime_us` is 0 refuses
//! SCHED_FIFO with EPERM). The hierarchy (v1 or v2) is detected at run time from
//! `/proc/self/cgroup` and `/proc/self/mountinfo`.

use super::{priority, sched::Policy, thread, PlatformError};

/// The cgroup hierarchy the process's CPU controller lives in.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum CgroupCpu {
    /// cgroup v1 `cpu` controller: the group's folder and its `cpu.rt_runtime_us`, if the
    /// file exists (it does only with CONFIG_RT_GROUP_SCHED).
    V1 {
        dir: String,
        rt_runtime_us: Option<i64>,
    },
    /// cgroup v2 (unified): no per-group real-time runtime applies to SCHED_FIFO threads.
    V2 {
        path: String,
    },
    Unknown,
}

/// Facts that decide whether SCHED_FIFO is allowed, gathered without changing anything.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RtFacts {
    pub euid: u32,
    /// CAP_SYS_NICE in the effective set, `None` if `/proc/self/status` is unreadable.
    pub cap_sys_nice: Option<bool>,
    /// Soft RLIMIT_RTPRIO (the highest priority an unprivileged process may set).
    pub rlimit_rtprio: u64,
    pub cgroup: CgroupCpu,
}

/// Bit of CAP_SYS_NICE in the capability masks (linux/capability.h).
const CAP_SYS_NICE_BIT: u32 = 23;

impl RtFacts {
    /// Reads the facts of the calling process.
    pub fn probe() -> RtFacts {
        RtFacts {
            // SAFETY: geteuid has no arguments and cannot fail.
            euid: unsafe { libc::geteuid() },
            cap_sys_nice: read_cap_sys_nice(),
            rlimit_rtprio: read_rlimit_rtprio(),
            cgroup: read_cgroup_cpu(),
        }
    }
}

fn read_cap_sys_nice() -> Option<bool> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let hex = status.lines().find_map(|l| l.strip_prefix("CapEff:"))?;
    let mask = u64::from_str_radix(hex.trim(), 16).ok()?;
    Some(mask & (1 << CAP_SYS_NICE_BIT) != 0)
}

fn read_rlimit_rtprio() -> u64 {
    let mut limit = libc::rlimit {
        rlim_cur: 0,
        rlim_max: 0,
    };
    // SAFETY: `limit` is a valid, writable rlimit; RLIMIT_RTPRIO exists on Linux.
    unsafe { libc::getrlimit(libc::RLIMIT_RTPRIO, &mut limit) };
    limit.rlim_cur
}

fn read_cgroup_cpu() -> CgroupCpu {
    let (Ok(cgroups), Ok(mounts)) = (
        // thread-self: in cgroup v1 a thread can sit in another group than its process.
        std::fs::read_to_string("/proc/thread-self/cgroup"),
        std::fs::read_to_string("/proc/self/mountinfo"),
    ) else {
        return CgroupCpu::Unknown;
    };
    cgroup_cpu_from(&cgroups, &mounts, |path| {
        std::fs::read_to_string(path)
            .ok()
            .and_then(|t| t.trim().parse().ok())
    })
}

/// Finds the CPU controller's group from the two `/proc/self` files; `read_value` reads
/// `cpu.rt_runtime_us` (a parameter so the parsing is tested without a cgroup file system).
pub fn cgroup_cpu_from(
    cgroups: &str,
    mountinfo: &str,
    read_value: impl Fn(&str) -> Option<i64>,
) -> CgroupCpu {
    // v1 lines read "ID:controller,list:/path"; the unified one reads "0::/path".
    let v1 = cgroups.lines().find_map(|line| {
        let mut parts = line.splitn(3, ':');
        let (_, controllers, path) = (parts.next()?, parts.next()?, parts.next()?);
        controllers
            .split(',')
            .any(|c| c == "cpu")
            .then(|| path.to_string())
    });
    if let Some(path) = v1 {
        if let Some((root, mount)) = v1_cpu_mount(mountinfo) {
            let relative = path.strip_prefix(&root).unwrap_or(&path);
            let dir = format!(
                "{}/{}",
                mount.trim_end_matches('/'),
                relative.trim_start_matches('/')
            );
            let dir = dir.trim_end_matches('/').to_string();
            let rt_runtime_us = read_value(&format!("{dir}/cpu.rt_runtime_us"));
            return CgroupCpu::V1 { dir, rt_runtime_us };
        }
    }
    match cgroups.lines().find_map(|l| l.strip_prefix("0::")) {
        Some(path) if mountinfo.contains(" - cgroup2 ") => CgroupCpu::V2 {
            path: path.to_string(),
        },
        _ => CgroupCpu::Unknown,
    }
}

/// (root inside the hierarchy, mount point) of the v1 hierarchy holding the `cpu` controller.
fn v1_cpu_mount(mountinfo: &str) -> Option<(String, String)> {
    mountinfo.lines().find_map(|line| {
        let (left, right) = line.split_once(" - ")?;
        let mut right = right.split_whitespace();
        if right.next()? != "cgroup" {
            return None;
        }
        let options = right.nth(1)?;
        if !options.split(',').any(|o| o == "cpu") {
            return None;
        }
        let fields: Vec<&str> = left.split_whitespace().collect();
        Some((fields.get(3)?.to_string(), fields.get(4)?.to_string()))
    })
}

/// Everything in `facts` that stops SCHED_FIFO, with the fix for each; pure, so it is tested.
pub fn explain_missing_rt(facts: &RtFacts) -> String {
    let privileged = facts.euid == 0 || facts.cap_sys_nice == Some(true);
    let mut missing = Vec::new();
    if !privileged {
        missing.push(format!(
            "the process runs as uid {} without CAP_SYS_NICE: run it as root (sudo) or grant the capability (`sudo setcap cap_sys_nice+ep $(command -v kairos)`)",
            facts.euid
        ));
        if facts.rlimit_rtprio < priority::WATCHDOG as u64 {
            missing.push(format!(
                "RLIMIT_RTPRIO is {} (`ulimit -r`) but kairos needs priorities up to {}: raise it, e.g. `@realtime - rtprio 99` in /etc/security/limits.conf and log in again",
                facts.rlimit_rtprio,
                priority::WATCHDOG
            ));
        }
    }
    if let CgroupCpu::V1 {
        dir,
        rt_runtime_us: Some(0),
    } = &facts.cgroup
    {
        missing.push(format!(
            "the process is in cgroup v1 cpu group {dir} whose cpu.rt_runtime_us is 0 (CONFIG_RT_GROUP_SCHED): give the group a real-time runtime (`echo 950000 > {dir}/cpu.rt_runtime_us`, after raising its parent's) or move the shell to the root group (`echo $$ > /sys/fs/cgroup/cpu/tasks`)"
        ));
    }
    if missing.is_empty() {
        missing.push("the kernel refused SCHED_FIFO for a reason kairos cannot see (a container or seccomp policy?)".into());
    }
    format!(
        "real-time scheduling is not allowed here:\n  - {}",
        missing.join("\n  - ")
    )
}

/// Succeeds if a thread can be created under SCHED_FIFO here; otherwise explains what is
/// missing. Tries it for real (a thread that does nothing), since only the kernel knows.
pub fn require_rt() -> Result<(), PlatformError> {
    let spec = thread::ThreadSpec {
        name: "kairos-probe".into(),
        policy: Policy::Fifo {
            priority: priority::MIN,
        },
        cpus: super::online_cpus(),
    };
    thread::spawn(spec, || ())?.join().map(|_| ())
}

#[cfg(test)]
mod tests {
    use super::*;

    const MOUNTS: &str = "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n\
        33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n";

    fn facts(euid: u32, cap: bool, rtprio: u64, cgroup: CgroupCpu) -> RtFacts {
        RtFacts {
            euid,
            cap_sys_nice: Some(cap),
            rlimit_rtprio: rtprio,
            cgroup,
        }
    }

    #[test]
    fn v1_cpu_group_is_found_and_its_runtime_read() {
        let found = cgroup_cpu_from("2:cpuacct:/\n1:cpu:/jobs/a\n0::/\n", MOUNTS, |p| {
            assert_eq!(p, "/sys/fs/cgroup/cpu/jobs/a/cpu.rt_runtime_us");
            Some(0)
        });
        assert_eq!(
            found,
            CgroupCpu::V1 {
                dir: "/sys/fs/cgroup/cpu/jobs/a".into(),
                rt_runtime_us: Some(0)
            }
        );
    }

    #[test]
    fn v2_is_recognised() {
        let mounts = "30 23 0:26 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n";
        let found = cgroup_cpu_from("0::/user.slice\n", mounts, |_| None);
        assert_eq!(
            found,
            CgroupCpu::V2 {
                path: "/user.slice".into()
            }
        );
    }

    #[test]
    fn unprivileged_user_is_told_about_capability_and_rlimit() {
        let text = explain_missing_rt(&facts(1000, false, 0, CgroupCpu::Unknown));
        assert!(text.contains("CAP_SYS_NICE"), "{text}");
        assert!(text.contains("RLIMIT_RTPRIO is 0"), "{text}");
    }

    #[test]
    fn root_in_a_zero_runtime_group_is_told_about_the_group() {
        let cgroup = CgroupCpu::V1 {
            dir: "/sys/fs/cgroup/cpu/x".into(),
            rt_runtime_us: Some(0),
        };
        let text = explain_missing_rt(&facts(0, true, 0, cgroup));
        assert!(!text.contains("CAP_SYS_NICE"), "{text}");
        assert!(
            text.contains("/sys/fs/cgroup/cpu/x/cpu.rt_runtime_us"),
            "{text}"
        );
    }

    #[test]
    fn capability_without_root_is_enough() {
        let text = explain_missing_rt(&facts(1000, true, 0, CgroupCpu::Unknown));
        assert!(text.contains("cannot see"), "{text}");
    }
}
