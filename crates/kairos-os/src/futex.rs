//! Futex waits with an absolute CLOCK_MONOTONIC deadline, and wakes.
//!
//! The dispatcher of a core must sleep until its next interval boundary (a timer, as
//! `clock_nanosleep(TIMER_ABSTIME)` would give) **and** be wakeable at once by a rescheduling
//! request of another core (Algorithm 1, line 5) or by its own worker releasing a task (the
//! hand-off of section 5.3). `FUTEX_WAIT_BITSET` takes an absolute CLOCK_MONOTONIC timeout
//! armed on the same high-resolution timer as `clock_nanosleep(TIMER_ABSTIME)` (no timer slack
//! for real-time threads), so one call gives both: a boundary timer and an inter-core doorbell.
//! Workers park on their own word the same way (`linux-platform.md`, "Suspending / resuming a
//! thread from another thread: futex wait/wake on a per-thread word").

use std::sync::atomic::AtomicU32;

/// How a wait ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Woke {
    /// Woken by [`wake`], by a signal, or the word no longer held `expected`.
    Early,
    /// The deadline passed.
    TimedOut,
}

/// Sleeps while `word == expected`, until `deadline_ns` (CLOCK_MONOTONIC, absolute).
pub fn wait_until(word: &AtomicU32, expected: u32, deadline_ns: u64) -> Woke {
    let ts = libc::timespec {
        tv_sec: (deadline_ns / 1_000_000_000) as libc::time_t,
        tv_nsec: (deadline_ns % 1_000_000_000) as libc::c_long,
    };
    // SAFETY: `word` is a live, aligned 32-bit atomic for the whole call (borrowed); `ts` is a
    // valid timespec. FUTEX_WAIT_BITSET reads the word atomically and interprets the timeout
    // as absolute on CLOCK_MONOTONIC; the second address is unused and may be null.
    let rc = unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAIT_BITSET | libc::FUTEX_PRIVATE_FLAG,
            expected,
            &ts as *const libc::timespec,
            std::ptr::null::<u32>(),
            libc::FUTEX_BITSET_MATCH_ANY,
        )
    };
    if rc == -1 && std::io::Error::last_os_error().raw_os_error() == Some(libc::ETIMEDOUT) {
        Woke::TimedOut
    } else {
        Woke::Early
    }
}

/// Wakes every thread waiting on `word`.
pub fn wake(word: &AtomicU32) {
    // SAFETY: `word` is a live, aligned 32-bit atomic; FUTEX_WAKE only uses its address.
    unsafe {
        libc::syscall(
            libc::SYS_futex,
            word.as_ptr(),
            libc::FUTEX_WAKE | libc::FUTEX_PRIVATE_FLAG,
            i32::MAX,
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::clock;
    use std::sync::atomic::Ordering;
    use std::sync::Arc;

    #[test]
    fn times_out_at_the_deadline() {
        let word = AtomicU32::new(0);
        let deadline = clock::now_ns() + 2_000_000;
        assert_eq!(wait_until(&word, 0, deadline), Woke::TimedOut);
        assert!(clock::now_ns() >= deadline);
    }

    #[test]
    fn returns_at_once_when_the_word_changed() {
        let word = AtomicU32::new(1);
        let deadline = clock::now_ns() + 5_000_000_000;
        assert_eq!(wait_until(&word, 0, deadline), Woke::Early);
    }

    #[test]
    fn a_wake_ends_the_wait() {
        let word = Arc::new(AtomicU32::new(0));
        let other = word.clone();
        let waker = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(5));
            other.store(1, Ordering::SeqCst);
            wake(&other);
        });
        let deadline = clock::now_ns() + 10_000_000_000;
        while word.load(Ordering::SeqCst) == 0 {
            wait_until(&word, 0, deadline);
        }
        waker.join().unwrap();
        assert!(clock::now_ns() < deadline);
    }
}
