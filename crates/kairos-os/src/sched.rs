//! Scheduling policy and affinity of existing threads, by kernel thread id (0 = the caller):
//! SCHED_FIFO and SCHED_OTHER through `sched_setattr`, SCHED_DEADLINE through the same call
//! (glibc has no wrapper, so `syscall(SYS_sched_setattr)` with `libc::sched_attr`), and the
//! scan of `/proc/self/task` that proves no real-time thread of ours outlives a run.
//! Refusals are explained as `linux-platform.md` describes them (admission limit, root domains).

use super::PlatformError;

/// A scheduling policy with its parameters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Policy {
    /// SCHED_OTHER (CFS/EEVDF), nice 0.
    Other,
    /// SCHED_FIFO at `priority` (1..=99, larger is more important).
    Fifo { priority: i32 },
    /// SCHED_DEADLINE (constant-bandwidth server): `runtime <= deadline <= period`, in ns.
    Deadline(DeadlineParams),
}

/// SCHED_DEADLINE parameters in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DeadlineParams {
    pub runtime: u64,
    pub deadline: u64,
    pub period: u64,
}

impl DeadlineParams {
    /// runtime / period, the bandwidth admission control adds up.
    pub fn bandwidth(&self) -> f64 {
        self.runtime as f64 / self.period as f64
    }
}

/// The kernel's minimum SCHED_DEADLINE runtime (1024 ns: `dl_param_changed` rejects less).
pub const MIN_DEADLINE_RUNTIME_NS: u64 = 1024;

fn attr_for(policy: &Policy) -> libc::sched_attr {
    let mut attr = libc::sched_attr {
        size: std::mem::size_of::<libc::sched_attr>() as u32,
        sched_policy: libc::SCHED_OTHER as u32,
        sched_flags: 0,
        sched_nice: 0,
        sched_priority: 0,
        sched_runtime: 0,
        sched_deadline: 0,
        sched_period: 0,
    };
    match *policy {
        Policy::Other => {}
        Policy::Fifo { priority } => {
            attr.sched_policy = libc::SCHED_FIFO as u32;
            attr.sched_priority = priority as u32;
        }
        Policy::Deadline(p) => {
            attr.sched_policy = libc::SCHED_DEADLINE as u32;
            // RESET_ON_FORK: a DEADLINE thread may not fork otherwise (per-job user commands
            // are spawned from the worker); the child then starts under SCHED_OTHER.
            attr.sched_flags = libc::SCHED_FLAG_RESET_ON_FORK as u64;
            attr.sched_runtime = p.runtime;
            attr.sched_deadline = p.deadline;
            attr.sched_period = p.period;
        }
    }
    attr
}

/// Applies `policy` to thread `tid` (0 = the calling thread); returns the errno on failure.
pub fn set_policy_raw(tid: i32, policy: &Policy) -> Result<(), i32> {
    let attr = attr_for(policy);
    // SAFETY: `attr` is a fully initialised sched_attr whose `size` field matches its layout
    // (SCHED_ATTR_SIZE_VER0); the kernel only reads it. Flags argument 0 as required.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_sched_setattr,
            tid as libc::c_long,
            &attr as *const libc::sched_attr,
            0 as libc::c_uint,
        )
    };
    if rc == 0 {
        Ok(())
    } else {
        Err(std::io::Error::last_os_error()
            .raw_os_error()
            .unwrap_or(libc::EINVAL))
    }
}

/// SCHED_FIFO at `priority` for thread `tid` (0 = caller).
pub fn set_fifo(tid: i32, priority: i32) -> Result<(), PlatformError> {
    set_policy_raw(tid, &Policy::Fifo { priority }).map_err(|errno| match errno {
        libc::EPERM => PlatformError::NoPrivilege(super::privilege::explain_missing_rt(
            &super::privilege::RtFacts::probe(),
        )),
        _ => PlatformError::os("sched_setattr(SCHED_FIFO)", errno),
    })
}

/// SCHED_RR at `priority` for the calling process (a command kairos is about to exec).
pub fn set_rr_self(priority: i32) -> Result<(), PlatformError> {
    let param = libc::sched_param {
        sched_priority: priority,
    };
    // SAFETY: sets the caller's policy with a valid parameter block.
    if unsafe { libc::sched_setscheduler(0, libc::SCHED_RR, &param) } != 0 {
        return Err(match std::io::Error::last_os_error().raw_os_error() {
            Some(libc::EPERM) => PlatformError::NoPrivilege(super::privilege::explain_missing_rt(
                &super::privilege::RtFacts::probe(),
            )),
            _ => PlatformError::last_os("sched_setscheduler(SCHED_RR)"),
        });
    }
    Ok(())
}

/// SCHED_OTHER for thread `tid` (0 = caller): always allowed, used to demote.
pub fn set_other(tid: i32) -> Result<(), PlatformError> {
    set_policy_raw(tid, &Policy::Other).map_err(|e| PlatformError::os("sched_setattr(OTHER)", e))
}

/// SCHED_DEADLINE for thread `tid` (0 = caller). `requested_total` is the bandwidth of every
/// deadline thread of the run together, quoted when admission control says EBUSY.
pub fn set_deadline(
    tid: i32,
    params: DeadlineParams,
    requested_total: f64,
) -> Result<(), PlatformError> {
    set_policy_raw(tid, &Policy::Deadline(params)).map_err(|errno| {
        PlatformError::DeadlineRefused(explain_deadline_refusal(
            errno,
            &params,
            requested_total,
            super::online_cpus().len(),
            read_rt_limits(),
        ))
    })
}

/// `sched_rt_runtime_us` and `sched_rt_period_us`, the system-wide real-time bandwidth limit
/// SCHED_DEADLINE admission uses; `None` when unreadable. -1 runtime means "no limit".
pub fn read_rt_limits() -> Option<(i64, i64)> {
    let read = |name: &str| -> Option<i64> {
        std::fs::read_to_string(format!("/proc/sys/kernel/{name}"))
            .ok()?
            .trim()
            .parse()
            .ok()
    };
    Some((read("sched_rt_runtime_us")?, read("sched_rt_period_us")?))
}

/// What a SCHED_DEADLINE refusal means and what to change (pure, so it is unit-tested).
pub fn explain_deadline_refusal(
    errno: i32,
    params: &DeadlineParams,
    requested_total: f64,
    cpus: usize,
    limits: Option<(i64, i64)>,
) -> String {
    let this = format!(
        "SCHED_DEADLINE runtime {} ns, deadline {} ns, period {} ns",
        params.runtime, params.deadline, params.period
    );
    match errno {
        libc::EBUSY => {
            let limit = match limits {
                Some((runtime, period)) if runtime >= 0 && period > 0 => format!(
                    "{:.2} CPUs ({} CPUs x /proc/sys/kernel/sched_rt_runtime_us {} / sched_rt_period_us {})",
                    cpus as f64 * runtime as f64 / period as f64,
                    cpus,
                    runtime,
                    period
                ),
                Some(_) => "no global limit (sched_rt_runtime_us = -1), so the CPUs of the root domain are full".into(),
                None => format!("{cpus} CPUs times sched_rt_runtime_us / sched_rt_period_us"),
            };
            format!(
                "admission control refused {this} (EBUSY): the run asks for {requested_total:.3} CPUs of bandwidth (the sum of runtime/period of its threads), which with any SCHED_DEADLINE threads already running is over the limit of {limit}. Lower the runtimes (WCETs plus the budget margin), use fewer tasks, or raise /proc/sys/kernel/sched_rt_runtime_us (e.g. `echo 980000 > /proc/sys/kernel/sched_rt_runtime_us`; -1 removes the limit and the RT throttling safety net with it)"
            )
        }
        libc::EPERM => format!(
            "the kernel refused {this} (EPERM): either this process lacks CAP_SYS_NICE (run as root), or the thread's affinity is narrower than its root domain: SCHED_DEADLINE threads must be allowed on every CPU of their root domain, so pinning one to a single CPU needs an exclusive cpuset (cgroup v1 cpuset.cpu_exclusive=1 with cpuset.sched_load_balance=0 in the parent, or v2 cpuset.cpus.partition=root)"
        ),
        libc::EINVAL => format!(
            "the kernel rejected {this} (EINVAL): it needs {MIN_DEADLINE_RUNTIME_NS} ns <= runtime <= deadline <= period, and a period below 2^63 ns"
        ),
        other => format!(
            "sched_setattr({this}) failed: {}",
            std::io::Error::from_raw_os_error(other)
        ),
    }
}

/// The policy number (`libc::SCHED_*`) of thread `tid`, `None` if it no longer exists.
pub fn policy_of(tid: i32) -> Option<i32> {
    // SAFETY: sched_getscheduler only reads the policy of a thread id; a stale id gives ESRCH.
    let policy = unsafe { libc::sched_getscheduler(tid) };
    (policy >= 0).then_some(policy & !libc::SCHED_RESET_ON_FORK)
}

/// Whether a `libc::SCHED_*` policy number is a real-time one.
pub fn is_rt_policy(policy: i32) -> bool {
    matches!(
        policy,
        libc::SCHED_FIFO | libc::SCHED_RR | libc::SCHED_DEADLINE
    )
}

/// Threads of this process (tids from `/proc/self/task`) whose policy is real-time, with it.
///
/// `pthread_join` returns once the kernel has cleared the thread's tid word, which happens in
/// the middle of its exit: for a few microseconds after a join the thread is still listed with
/// its policy. So a non-empty scan is repeated (every millisecond, for up to
/// [`EXIT_SETTLE`]) and only threads still real-time at the end are reported.
pub fn rt_threads_of_self() -> Vec<(i32, i32)> {
    let deadline = std::time::Instant::now() + EXIT_SETTLE;
    loop {
        let found = scan_rt_threads();
        if found.is_empty() || std::time::Instant::now() >= deadline {
            return found;
        }
        std::thread::sleep(std::time::Duration::from_millis(1));
    }
}

/// How long [`rt_threads_of_self`] lets joined threads finish their exit.
pub const EXIT_SETTLE: std::time::Duration = std::time::Duration::from_millis(100);

fn scan_rt_threads() -> Vec<(i32, i32)> {
    let Ok(entries) = std::fs::read_dir("/proc/self/task") else {
        return Vec::new();
    };
    let mut found: Vec<(i32, i32)> = entries
        .filter_map(|e| e.ok()?.file_name().to_str()?.parse::<i32>().ok())
        .filter_map(|tid| policy_of(tid).map(|p| (tid, p)))
        .filter(|&(_, p)| is_rt_policy(p))
        .collect();
    found.sort_unstable();
    found
}

/// The CPUs thread `tid` (0 = caller) may run on.
pub fn affinity_of(tid: i32) -> Result<Vec<usize>, PlatformError> {
    // SAFETY: cpu_set_t is plain bits; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    // SAFETY: `set` is a valid cpu_set_t and its exact size is passed.
    let rc =
        unsafe { libc::sched_getaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &mut set) };
    if rc != 0 {
        return Err(PlatformError::last_os("sched_getaffinity"));
    }
    Ok((0..libc::CPU_SETSIZE as usize)
        // SAFETY: CPU_ISSET reads bit `cpu` of a valid set, `cpu` < CPU_SETSIZE.
        .filter(|&cpu| unsafe { libc::CPU_ISSET(cpu, &set) })
        .collect())
}

/// Builds a cpu_set_t from CPU numbers (numbers at or above CPU_SETSIZE are an error).
pub(crate) fn cpu_set(cpus: &[usize]) -> Result<libc::cpu_set_t, PlatformError> {
    // SAFETY: cpu_set_t is plain bits; zeroed is the empty set.
    let mut set: libc::cpu_set_t = unsafe { std::mem::zeroed() };
    for &cpu in cpus {
        if cpu >= libc::CPU_SETSIZE as usize {
            return Err(PlatformError::os("cpu set", libc::EINVAL));
        }
        // SAFETY: `cpu` < CPU_SETSIZE was checked, so the bit is inside the set.
        unsafe { libc::CPU_SET(cpu, &mut set) };
    }
    Ok(set)
}

/// Restricts thread `tid` (0 = caller) to `cpus`; moving the caller takes effect at once.
pub fn set_affinity(tid: i32, cpus: &[usize]) -> Result<(), PlatformError> {
    let set = cpu_set(cpus)?;
    // SAFETY: `set` is a valid cpu_set_t and its exact size is passed.
    let rc = unsafe { libc::sched_setaffinity(tid, std::mem::size_of::<libc::cpu_set_t>(), &set) };
    if rc != 0 {
        return Err(PlatformError::last_os("sched_setaffinity"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: DeadlineParams = DeadlineParams {
        runtime: 1_000_000,
        deadline: 4_000_000,
        period: 4_000_000,
    };

    #[test]
    fn ebusy_names_the_limit_the_sum_and_the_knob() {
        let text = explain_deadline_refusal(libc::EBUSY, &P, 1.93, 2, Some((950_000, 1_000_000)));
        assert!(text.contains("1.90 CPUs"), "{text}");
        assert!(text.contains("1.930"), "{text}");
        assert!(
            text.contains("/proc/sys/kernel/sched_rt_runtime_us"),
            "{text}"
        );
    }

    #[test]
    fn eperm_explains_root_domains() {
        let text = explain_deadline_refusal(libc::EPERM, &P, 0.25, 2, None);
        assert!(text.contains("root domain"), "{text}");
        assert!(text.contains("CAP_SYS_NICE"), "{text}");
    }

    #[test]
    fn bandwidth_is_runtime_over_period() {
        assert_eq!(P.bandwidth(), 0.25);
    }
}
