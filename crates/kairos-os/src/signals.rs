//! SIGINT and SIGTERM turned into a flag that the watchdog polls, so an interrupted run stops
//! like a finished one: workers leave their loops, policies are restored, results are kept.
//! The handler only stores to atomics (async-signal-safe); the previous dispositions come back
//! when the guard is dropped, so a later Ctrl-C ends the program as usual.

use std::sync::atomic::{AtomicI32, Ordering};

/// The last signal received while a guard was installed (0 = none).
static RECEIVED: AtomicI32 = AtomicI32::new(0);

extern "C" fn on_signal(signal: libc::c_int) {
    RECEIVED.store(signal, Ordering::SeqCst);
}

/// The stop signals this guard handles.
const STOP_SIGNALS: [libc::c_int; 2] = [libc::SIGINT, libc::SIGTERM];

/// While alive, SIGINT and SIGTERM set a flag instead of ending the process.
pub struct StopSignals {
    previous: Vec<(libc::c_int, libc::sigaction)>,
}

impl StopSignals {
    /// Installs the handlers and clears any earlier received signal.
    pub fn install() -> Self {
        RECEIVED.store(0, Ordering::SeqCst);
        let mut previous = Vec::new();
        for signal in STOP_SIGNALS {
            // SAFETY: sigaction structs are plain data; zeroed means "no flags, empty mask".
            let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
            action.sa_sigaction = on_signal as *const () as usize;
            // SA_RESTART: system calls of other threads (file writes) resume instead of EINTR.
            action.sa_flags = libc::SA_RESTART;
            // SAFETY: zeroed storage for the previous action, filled by the kernel.
            let mut old: libc::sigaction = unsafe { std::mem::zeroed() };
            // SAFETY: both pointers are valid; the handler only performs an atomic store,
            // which is async-signal-safe.
            if unsafe { libc::sigaction(signal, &action, &mut old) } == 0 {
                previous.push((signal, old));
            }
        }
        StopSignals { previous }
    }

    /// The signal that arrived since [`StopSignals::install`], if any.
    pub fn received(&self) -> Option<i32> {
        received()
    }
}

/// The stop signal received while a guard is installed, if any (for code without the guard).
pub fn received() -> Option<i32> {
    match RECEIVED.load(Ordering::SeqCst) {
        0 => None,
        s => Some(s),
    }
}

/// "SIGINT", "SIGTERM" or the number.
pub fn signal_name(signal: i32) -> String {
    match signal {
        libc::SIGINT => "SIGINT".into(),
        libc::SIGTERM => "SIGTERM".into(),
        other => format!("signal {other}"),
    }
}

impl Drop for StopSignals {
    fn drop(&mut self) {
        for (signal, old) in &self.previous {
            // SAFETY: restores the action saved by `install` for the same signal.
            unsafe { libc::sigaction(*signal, old, std::ptr::null_mut()) };
        }
        // A signal belongs to the run that had the guard: the next run starts clean.
        RECEIVED.store(0, Ordering::SeqCst);
    }
}

/// Gives SIGPIPE its default action back (end the process), so that a command line program
/// writing into a closed pipe (`kairos ... | head`) ends quietly as a Unix filter does: Rust
/// ignores SIGPIPE, which turns every later `println!` into a panic. Call it at the start of
/// `main`, before output.
pub fn restore_default_sigpipe() {
    // SAFETY: setting a disposition to SIG_DFL takes no pointers and installs no handler code,
    // so no async-signal-safety rule applies; the kernel serialises dispositions across threads.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
}

/// Sends SIGKILL to process `pid` (a per-job child); errors (already gone) are ignored.
pub fn kill(pid: i32) {
    if pid > 0 {
        // SAFETY: kill only sends a signal; pid > 0 names one process, never a group.
        unsafe { libc::kill(pid, libc::SIGKILL) };
    }
}
