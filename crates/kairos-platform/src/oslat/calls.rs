//! The suite's one-process services (the OS-latency study, section V): syscall, sem, fcntl, signal, mmap,
//! proc and fs, each sample timed on its own with CLOCK_MONOTONIC (vDSO, tens of ns).

use super::Sampler;
use kairos_os::{clock, PlatformError};
use std::ffi::CString;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// Files one `fs` sample creates and deletes (the study's batch).
pub const FS_FILES: usize = 500;

/// Bytes `mmap` maps and touches.
const MMAP_BYTES: usize = 1 << 20;

fn timed(op: impl FnOnce() -> i64, name: &'static str) -> Result<u64, PlatformError> {
    let start = clock::now_ns();
    let rc = op();
    let took = clock::now_ns() - start;
    match rc < 0 {
        true => Err(PlatformError::last_os(name)),
        false => Ok(took),
    }
}

fn c_path(path: &Path) -> CString {
    CString::new(path.as_os_str().as_bytes()).expect("scratch paths have no NUL")
}

pub struct Syscall;

impl Sampler for Syscall {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        // SAFETY: getpid takes no arguments; syscall(2) skips any libc caching.
        timed(|| unsafe { libc::syscall(libc::SYS_getpid) }, "getpid")
    }
}

/// A private System V semaphore, raised and lowered in turn (never blocks).
pub struct Sem {
    id: i32,
    up: bool,
}

impl Sem {
    pub fn new() -> Result<Sem, PlatformError> {
        // SAFETY: creates a private set of one semaphore; removed in Drop.
        let id = unsafe { libc::semget(libc::IPC_PRIVATE, 1, libc::IPC_CREAT | 0o600) };
        match id < 0 {
            true => Err(PlatformError::last_os("semget")),
            false => Ok(Sem { id, up: true }),
        }
    }
}

impl Sampler for Sem {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        let mut op = libc::sembuf {
            sem_num: 0,
            sem_op: if self.up { 1 } else { -1 },
            sem_flg: 0,
        };
        self.up = !self.up;
        // SAFETY: one valid sembuf for the set this struct owns.
        timed(
            || unsafe { libc::semop(self.id, &mut op, 1) } as i64,
            "semop",
        )
    }
}

impl Drop for Sem {
    fn drop(&mut self) {
        // SAFETY: removes the set created in `new`.
        unsafe { libc::semctl(self.id, 0, libc::IPC_RMID) };
    }
}

/// A scratch file, closed on drop (the directory goes with the suite).
struct File(i32);

impl File {
    fn create(path: &Path, bytes: usize) -> Result<File, PlatformError> {
        let c = c_path(path);
        // SAFETY: a valid path; the descriptor is owned by the returned File.
        let fd = unsafe { libc::open(c.as_ptr(), libc::O_RDWR | libc::O_CREAT, 0o600) };
        if fd < 0 {
            return Err(PlatformError::last_os("open a scratch file"));
        }
        let file = File(fd);
        // SAFETY: sizes the file this struct owns.
        if bytes > 0 && unsafe { libc::ftruncate(fd, bytes as libc::off_t) } != 0 {
            return Err(PlatformError::last_os("ftruncate"));
        }
        Ok(file)
    }
}

impl Drop for File {
    fn drop(&mut self) {
        // SAFETY: closes the descriptor this struct owns.
        unsafe { libc::close(self.0) };
    }
}

pub struct Fcntl(File);

impl Fcntl {
    pub fn new(dir: &Path) -> Result<Fcntl, PlatformError> {
        Ok(Fcntl(File::create(&dir.join("fcntl"), 4096)?))
    }
}

impl Sampler for Fcntl {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        let lock = |kind: i32| {
            // SAFETY: flock is plain data; zeroed then filled.
            let mut region: libc::flock = unsafe { std::mem::zeroed() };
            region.l_type = kind as libc::c_short;
            region.l_whence = libc::SEEK_SET as libc::c_short;
            region.l_len = 1;
            // SAFETY: a valid descriptor and flock.
            unsafe { libc::fcntl(self.0 .0, libc::F_SETLK, &region) }
        };
        timed(
            || i64::from(lock(libc::F_WRLCK).min(lock(libc::F_UNLCK))),
            "fcntl",
        )
    }
}

/// Signals caught by [`on_signal`].
static CAUGHT: AtomicU64 = AtomicU64::new(0);

extern "C" fn on_signal(_: libc::c_int) {
    CAUGHT.fetch_add(1, Ordering::Relaxed);
}

/// SIGUSR1's disposition before the suite, restored on drop.
pub struct Signal {
    previous: libc::sigaction,
}

impl Signal {
    pub fn new() -> Result<Signal, PlatformError> {
        // SAFETY: zeroed storage the kernel fills with the current disposition.
        let mut previous: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: a query (null new action).
        if unsafe { libc::sigaction(libc::SIGUSR1, std::ptr::null(), &mut previous) } != 0 {
            return Err(PlatformError::last_os("sigaction"));
        }
        Ok(Signal { previous })
    }
}

impl Sampler for Signal {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        let before = CAUGHT.load(Ordering::Relaxed);
        let took = timed(
            || {
                // SAFETY: installs a handler that only increments an atomic.
                let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
                action.sa_sigaction = on_signal as *const () as usize;
                // SAFETY: valid action; raise() signals the calling thread, whose handler
                // has run when it returns.
                unsafe {
                    if libc::sigaction(libc::SIGUSR1, &action, std::ptr::null_mut()) != 0 {
                        return -1;
                    }
                    i64::from(libc::raise(libc::SIGUSR1))
                }
            },
            "sigaction and raise",
        )?;
        match CAUGHT.load(Ordering::Relaxed) > before {
            true => Ok(took),
            false => Err(PlatformError::Os {
                op: "signal",
                source: std::io::Error::other("the signal sent to self was not caught"),
            }),
        }
    }
}

impl Drop for Signal {
    fn drop(&mut self) {
        // SAFETY: restores the disposition read in `new`.
        unsafe { libc::sigaction(libc::SIGUSR1, &self.previous, std::ptr::null_mut()) };
    }
}

pub struct Mmap(File);

impl Mmap {
    pub fn new(dir: &Path) -> Result<Mmap, PlatformError> {
        Ok(Mmap(File::create(&dir.join("mmap"), MMAP_BYTES)?))
    }
}

impl Sampler for Mmap {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        let fd = self.0 .0;
        timed(
            || {
                // SAFETY: maps the scratch file this struct owns, reads one byte per page
                // inside the mapping, unmaps it.
                unsafe {
                    let p = libc::mmap(
                        std::ptr::null_mut(),
                        MMAP_BYTES,
                        libc::PROT_READ,
                        libc::MAP_SHARED,
                        fd,
                        0,
                    );
                    if p == libc::MAP_FAILED {
                        return -1;
                    }
                    let bytes = p as *const u8;
                    let mut sum = 0u8;
                    for page in (0..MMAP_BYTES).step_by(4096) {
                        sum = sum.wrapping_add(std::ptr::read_volatile(bytes.add(page)));
                    }
                    std::hint::black_box(sum);
                    i64::from(libc::munmap(p, MMAP_BYTES))
                }
            },
            "mmap",
        )
    }
}

pub struct Proc;

impl Sampler for Proc {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        timed(
            || {
                // SAFETY: the child calls only _exit (async-signal-safe after fork in a
                // multithreaded process); the parent reaps it.
                unsafe {
                    match libc::fork() {
                        -1 => -1,
                        0 => libc::_exit(0),
                        child => {
                            let mut status = 0;
                            i64::from(libc::waitpid(child, &mut status, 0))
                        }
                    }
                }
            },
            "fork",
        )
    }
}

/// Creates and deletes [`FS_FILES`] files (or as many as asked) per sample.
pub struct Fs {
    names: Vec<CString>,
}

impl Fs {
    pub fn new(dir: &Path) -> Fs {
        Fs::with_files(dir, FS_FILES)
    }

    pub fn with_files(dir: &Path, files: usize) -> Fs {
        let names = (0..files)
            .map(|i| c_path(&dir.join(format!("fs{i}"))))
            .collect();
        Fs { names }
    }
}

impl Sampler for Fs {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        let names = &self.names;
        timed(
            || {
                for name in names {
                    // SAFETY: valid paths in the scratch directory.
                    unsafe {
                        let fd = libc::open(name.as_ptr(), libc::O_CREAT | libc::O_RDWR, 0o600);
                        if fd < 0 {
                            return -1;
                        }
                        libc::close(fd);
                    }
                }
                for name in names {
                    // SAFETY: removes the files just created.
                    if unsafe { libc::unlink(name.as_ptr()) } != 0 {
                        return -1;
                    }
                }
                0
            },
            "create and delete files",
        )
    }
}
