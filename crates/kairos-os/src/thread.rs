//! Threads created with an explicit policy, priority and affinity.
//!
//! `std::thread` cannot set a policy or affinity at creation, so the new thread would start
//! with whatever it inherits and set its own policy afterwards. The notes warn against exactly
//! that: if the parent is a real-time thread spinning on the child's CPU, the child never runs
//! to change anything. So [`spawn`] wraps `pthread_create` with attributes carrying
//! `PTHREAD_EXPLICIT_SCHED`, the policy, the priority and `pthread_attr_setaffinity_np`; the
//! thread is born with them. SCHED_DEADLINE is the exception: pthread attributes cannot carry
//! its parameters, so the thread is born SCHED_OTHER with its affinity and applies
//! `sched_setattr` as its first action; SCHED_OTHER cannot starve anyone, so the inheritance
//! problem does not arise. [`spawn`] returns only once the thread runs under its policy (or
//! with the kernel's refusal, explained), and knows its kernel thread id, which the watchdog
//! needs to demote it.

use super::sched::{self, DeadlineParams, Policy};
use super::{clock, PlatformError};
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::mpsc;
use std::sync::{Arc, Mutex};

/// Stack of every runtime thread: explicit because `mlockall(MCL_FUTURE)` locks all of it.
pub const STACK_BYTES: usize = 2 * 1024 * 1024;

/// How to create a thread.
#[derive(Clone, Debug, PartialEq)]
pub struct ThreadSpec {
    /// Thread name (the kernel keeps 15 bytes; longer names are cut).
    pub name: String,
    pub policy: Policy,
    /// CPUs it may run on; must not be empty.
    pub cpus: Vec<usize>,
}

impl ThreadSpec {
    pub fn fifo(name: impl Into<String>, priority: i32, cpus: Vec<usize>) -> Self {
        ThreadSpec {
            name: name.into(),
            policy: Policy::Fifo { priority },
            cpus,
        }
    }

    pub fn other(name: impl Into<String>, cpus: Vec<usize>) -> Self {
        ThreadSpec {
            name: name.into(),
            policy: Policy::Other,
            cpus,
        }
    }

    pub fn deadline(name: impl Into<String>, params: DeadlineParams, cpus: Vec<usize>) -> Self {
        ThreadSpec {
            name: name.into(),
            policy: Policy::Deadline(params),
            cpus,
        }
    }
}

type Slot<T> = Arc<Mutex<Option<std::thread::Result<T>>>>;

/// A running thread created by [`spawn`]; [`RtThread::join`] waits for its result.
pub struct RtThread<T> {
    handle: libc::pthread_t,
    tid: i32,
    name: String,
    result: Slot<T>,
    joined: bool,
}

struct Start<T> {
    body: Box<dyn FnOnce() -> T + Send>,
    result: Slot<T>,
    started: mpsc::Sender<Result<i32, i32>>,
    name: String,
    deadline: Option<DeadlineParams>,
}

/// Creates a thread running `body` under `spec` (see the module documentation).
/// `deadline_total` matters only for SCHED_DEADLINE: the bandwidth of the whole run, quoted
/// if admission control refuses.
pub fn spawn<T, F>(spec: ThreadSpec, body: F) -> Result<RtThread<T>, PlatformError>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    spawn_with_total(spec, None, body)
}

/// [`spawn`] for SCHED_DEADLINE threads of a run whose deadline threads together ask for
/// `total` CPUs of bandwidth (quoted in an EBUSY explanation).
pub fn spawn_with_total<T, F>(
    spec: ThreadSpec,
    total: Option<f64>,
    body: F,
) -> Result<RtThread<T>, PlatformError>
where
    T: Send + 'static,
    F: FnOnce() -> T + Send + 'static,
{
    if spec.cpus.is_empty() {
        return Err(PlatformError::os(
            "thread affinity (no CPU given)",
            libc::EINVAL,
        ));
    }
    let attr = Attributes::new(&spec)?;
    let (started, started_rx) = mpsc::channel();
    let result: Slot<T> = Arc::new(Mutex::new(None));
    let deadline = match spec.policy {
        Policy::Deadline(p) => Some(p),
        _ => None,
    };
    let start = Box::new(Start {
        body: Box::new(body),
        result: Arc::clone(&result),
        started,
        name: spec.name.clone(),
        deadline,
    });
    let payload = Box::into_raw(start) as *mut c_void;
    // SAFETY: zeroed is a valid placeholder for the opaque handle pthread_create fills in.
    let mut handle: libc::pthread_t = unsafe { std::mem::zeroed() };
    // SAFETY: `attr` is initialised; `trampoline::<T>` matches the start-routine ABI and takes
    // ownership of `payload` (a leaked Box<Start<T>>) exactly once when the thread starts.
    let rc = unsafe { libc::pthread_create(&mut handle, attr.as_ptr(), trampoline::<T>, payload) };
    drop(attr);
    if rc != 0 {
        // SAFETY: the thread was not created, so `payload` is still ours to free.
        drop(unsafe { Box::from_raw(payload as *mut Start<T>) });
        return Err(match rc {
            libc::EPERM => PlatformError::NoPrivilege(super::privilege::explain_missing_rt(
                &super::privilege::RtFacts::probe(),
            )),
            other => PlatformError::os("pthread_create", other),
        });
    }
    let mut thread = RtThread {
        handle,
        tid: 0,
        name: spec.name,
        result,
        joined: false,
    };
    match started_rx.recv() {
        Ok(Ok(tid)) => {
            thread.tid = tid;
            Ok(thread)
        }
        Ok(Err(errno)) => {
            let params = deadline.expect("only deadline threads report a refusal");
            let _ = thread.join_inner();
            Err(PlatformError::DeadlineRefused(
                sched::explain_deadline_refusal(
                    errno,
                    &params,
                    total.unwrap_or_else(|| params.bandwidth()),
                    super::online_cpus().len(),
                    sched::read_rt_limits(),
                ),
            ))
        }
        Err(_) => {
            let _ = thread.join_inner();
            Err(PlatformError::os("thread start", libc::ECHILD))
        }
    }
}

extern "C" fn trampoline<T>(payload: *mut c_void) -> *mut c_void {
    // SAFETY: `payload` is the Box<Start<T>> leaked by spawn_with_total for this thread only.
    let start = unsafe { Box::from_raw(payload as *mut Start<T>) };
    // Nothing may unwind across this extern "C" frame: every panic is caught and reported.
    let _ = catch_unwind(AssertUnwindSafe(move || run_started(*start)));
    std::ptr::null_mut()
}

fn run_started<T>(start: Start<T>) {
    name_current_thread(&start.name);
    if let Some(params) = start.deadline {
        if let Err(errno) = sched::set_policy_raw(0, &Policy::Deadline(params)) {
            let _ = start.started.send(Err(errno));
            return;
        }
    }
    let _ = start.started.send(Ok(clock::gettid()));
    let outcome = catch_unwind(AssertUnwindSafe(start.body));
    if let Ok(mut slot) = start.result.lock() {
        *slot = Some(outcome);
    }
}

fn name_current_thread(name: &str) {
    let cut: String = name.chars().filter(|c| *c != '\0').take(15).collect();
    if let Ok(cname) = std::ffi::CString::new(cut) {
        // SAFETY: `cname` is a NUL-terminated string of at most 15 bytes plus NUL, the limit
        // pthread_setname_np accepts; pthread_self is always valid for the caller.
        unsafe { libc::pthread_setname_np(libc::pthread_self(), cname.as_ptr()) };
    }
}

impl<T> RtThread<T> {
    /// The kernel thread id (for demotion and `/proc` scans).
    pub fn tid(&self) -> i32 {
        self.tid
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    fn join_inner(&mut self) -> Option<std::thread::Result<T>> {
        if self.joined {
            return None;
        }
        self.joined = true;
        // SAFETY: `handle` came from a successful pthread_create and is joined once (the
        // `joined` flag), never detached before.
        unsafe { libc::pthread_join(self.handle, std::ptr::null_mut()) };
        self.result.lock().ok()?.take()
    }

    /// Waits for the thread and returns its result; a panic in it becomes an error.
    pub fn join(mut self) -> Result<T, PlatformError> {
        match self.join_inner() {
            Some(Ok(value)) => Ok(value),
            _ => Err(PlatformError::Os {
                op: "runtime thread",
                source: std::io::Error::other(format!("thread {} panicked", self.name)),
            }),
        }
    }
}

impl<T> Drop for RtThread<T> {
    fn drop(&mut self) {
        if !self.joined {
            // SAFETY: a created, not yet joined thread may be detached once; its resources
            // are then freed when it ends.
            unsafe { libc::pthread_detach(self.handle) };
        }
    }
}

/// pthread attributes, destroyed on drop.
struct Attributes(Box<libc::pthread_attr_t>);

impl Attributes {
    fn new(spec: &ThreadSpec) -> Result<Self, PlatformError> {
        // SAFETY: zeroed storage is what pthread_attr_init expects to initialise.
        let mut attr = Attributes(Box::new(unsafe { std::mem::zeroed() }));
        // SAFETY: initialising attributes in owned, writable storage.
        check("pthread_attr_init", unsafe {
            libc::pthread_attr_init(&mut *attr.0)
        })?;
        let (policy, priority) = match spec.policy {
            Policy::Fifo { priority } => (libc::SCHED_FIFO, priority),
            // DEADLINE threads start SCHED_OTHER and switch first thing (module docs).
            Policy::Other | Policy::Deadline(_) => (libc::SCHED_OTHER, 0),
        };
        let param = libc::sched_param {
            sched_priority: priority,
        };
        let cpus = sched::cpu_set(&spec.cpus)?;
        let a = &mut *attr.0;
        // SAFETY: `a` is initialised; each setter only writes the attribute object; `param`
        // and `cpus` are valid for the duration of the calls and copied by them.
        unsafe {
            check(
                "pthread_attr_setinheritsched",
                libc::pthread_attr_setinheritsched(a, libc::PTHREAD_EXPLICIT_SCHED),
            )?;
            check(
                "pthread_attr_setschedpolicy",
                libc::pthread_attr_setschedpolicy(a, policy),
            )?;
            check(
                "pthread_attr_setschedparam",
                libc::pthread_attr_setschedparam(a, &param),
            )?;
            check(
                "pthread_attr_setaffinity_np",
                libc::pthread_attr_setaffinity_np(a, std::mem::size_of::<libc::cpu_set_t>(), &cpus),
            )?;
            check(
                "pthread_attr_setstacksize",
                libc::pthread_attr_setstacksize(a, STACK_BYTES),
            )?;
        }
        Ok(attr)
    }

    fn as_ptr(&self) -> *const libc::pthread_attr_t {
        &*self.0
    }
}

impl Drop for Attributes {
    fn drop(&mut self) {
        // SAFETY: the attributes were initialised by pthread_attr_init in `new` (a failed
        // init still leaves zeroed storage, which destroy accepts on glibc).
        unsafe { libc::pthread_attr_destroy(&mut *self.0) };
    }
}

fn check(op: &'static str, rc: i32) -> Result<(), PlatformError> {
    if rc == 0 {
        Ok(())
    } else {
        Err(PlatformError::os(op, rc))
    }
}
