//! Clocks: CLOCK_MONOTONIC for releases and measurements (the clock cyclictest programs its
//! timers on), CLOCK_THREAD_CPUTIME_ID for the CPU time a job consumed, and absolute sleeps
//! with `clock_nanosleep(TIMER_ABSTIME)` so release times never drift with the loop's own
//! cost (`linux-platform.md`, "Release"); and the clock tick `/proc/stat` counts in.

fn read(clock: libc::clockid_t) -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec; both clocks used here always exist on Linux,
    // so the call cannot fail and leaves `ts` initialised.
    unsafe {
        libc::clock_gettime(clock, &mut ts);
    }
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// CLOCK_MONOTONIC now, in nanoseconds (vDSO: tens of nanoseconds).
pub fn now_ns() -> u64 {
    read(libc::CLOCK_MONOTONIC)
}

/// CPU time consumed by the calling thread, in nanoseconds (a system call, about a
/// microsecond in this VM).
pub fn thread_cpu_ns() -> u64 {
    read(libc::CLOCK_THREAD_CPUTIME_ID)
}

/// Sleeps until CLOCK_MONOTONIC reads `deadline_ns` (absolute); returns at once if it has
/// passed. Restarts after signals, so the wake-up is never early.
pub fn sleep_until(deadline_ns: u64) {
    let ts = libc::timespec {
        tv_sec: (deadline_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (deadline_ns % 1_000_000_000) as libc::c_long,
    };
    loop {
        // SAFETY: `ts` is a valid timespec; with TIMER_ABSTIME the remaining-time pointer is
        // unused and may be null.
        let rc = unsafe {
            libc::clock_nanosleep(
                libc::CLOCK_MONOTONIC,
                libc::TIMER_ABSTIME,
                &ts,
                std::ptr::null_mut(),
            )
        };
        if rc != libc::EINTR {
            return;
        }
    }
}

/// Clock ticks per second (`sysconf(_SC_CLK_TCK)`, USER_HZ): the unit of the times in
/// `/proc/stat`.
pub fn ticks_per_second() -> u64 {
    // SAFETY: sysconf takes a constant name and reads no caller memory.
    let ticks = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    // Linux has answered 100 on every architecture since USER_HZ was fixed; a failure (-1)
    // falls back to it.
    if ticks > 0 {
        ticks as u64
    } else {
        100
    }
}

/// The CPU the calling thread runs on now (rseq/vDSO backed, cheap).
pub fn current_cpu() -> usize {
    // SAFETY: sched_getcpu takes no arguments and only reads per-thread kernel state.
    let cpu = unsafe { libc::sched_getcpu() };
    cpu.max(0) as usize
}

/// The kernel thread id of the calling thread.
pub fn gettid() -> i32 {
    // SAFETY: gettid has no arguments and cannot fail.
    unsafe { libc::gettid() }
}

/// CPU time consumed so far by thread `tid` of this process, in nanoseconds; `None` if the
/// thread is gone. Uses the kernel's per-thread CPU clock id (`MAKE_THREAD_CPUCLOCK(tid,
/// CPUCLOCK_SCHED)` in `include/linux/posix-timers.h`), which any thread of the process may
/// read: the watchdog tells a spinning thread from a preempted one with it.
pub fn thread_cpu_ns_of(tid: i32) -> Option<u64> {
    const CPUCLOCK_PERTHREAD: libc::clockid_t = 4;
    const CPUCLOCK_SCHED: libc::clockid_t = 2;
    let clock = (!tid << 3) | CPUCLOCK_PERTHREAD | CPUCLOCK_SCHED;
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is valid and writable; an invalid or stale clock id only yields EINVAL.
    let rc = unsafe { libc::clock_gettime(clock, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}
