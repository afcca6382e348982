//! One-process operating-system services, one call each, as the OS-latency suite of
//! `kairos-platform` times them: a trivial system call, a System V semaphore operation, a file
//! lock, a file mapping, a caught signal, a fork, a batch of file creations and deletions.
//! Each operation is the very sequence of C calls the suite has always measured (no caching
//! libc wrapper, no allocation inside), so its figures stay comparable from run to run; the
//! caller reads the clock around it. Resources are created once, outside the timed region,
//! and released on drop.

use crate::PlatformError;
use std::ffi::CString;
use std::os::fd::AsRawFd;
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;
use std::sync::atomic::{AtomicU64, Ordering};

/// `rc` as the result of operation `op`: a negative return code is the failure in `errno`.
fn check(rc: i64, op: &'static str) -> Result<(), PlatformError> {
    match rc < 0 {
        true => Err(PlatformError::last_os(op)),
        false => Ok(()),
    }
}

fn c_path(path: &Path) -> CString {
    CString::new(path.as_os_str().as_bytes()).expect("scratch paths have no NUL")
}

/// `getpid` through syscall(2), which skips any libc caching: the cheapest system call.
pub fn getpid_syscall() -> Result<(), PlatformError> {
    // SAFETY: getpid takes no arguments and touches no memory.
    check(unsafe { libc::syscall(libc::SYS_getpid) }, "getpid")
}

/// A private System V set of one semaphore, removed on drop.
pub struct Semaphore {
    id: i32,
}

impl Semaphore {
    pub fn new() -> Result<Semaphore, PlatformError> {
        // SAFETY: creates a private set of one semaphore; no pointers.
        let id = unsafe { libc::semget(libc::IPC_PRIVATE, 1, libc::IPC_CREAT | 0o600) };
        match id < 0 {
            true => Err(PlatformError::last_os("semget")),
            false => Ok(Semaphore { id }),
        }
    }

    /// One `semop`: raises the semaphore (`up`) or lowers it; lowering a semaphore at zero
    /// blocks, so callers alternate.
    pub fn op(&mut self, up: bool) -> Result<(), PlatformError> {
        let mut op = libc::sembuf {
            sem_num: 0,
            sem_op: if up { 1 } else { -1 },
            sem_flg: 0,
        };
        // SAFETY: one valid sembuf for the set this struct owns.
        check(
            i64::from(unsafe { libc::semop(self.id, &mut op, 1) }),
            "semop",
        )
    }
}

impl Drop for Semaphore {
    fn drop(&mut self) {
        // SAFETY: removes the set created in `new`; no pointers.
        unsafe { libc::semctl(self.id, 0, libc::IPC_RMID) };
    }
}

/// A scratch file of a fixed length, closed on drop (its directory is the caller's).
pub struct ScratchFile {
    file: std::fs::File,
    len: usize,
}

impl ScratchFile {
    /// Creates (or reopens) `path` for reading and writing and sizes it to `len` bytes.
    pub fn create(path: &Path, len: usize) -> Result<ScratchFile, PlatformError> {
        let file = std::fs::OpenOptions::new()
            .read(true)
            .write(true)
            .create(true)
            .truncate(false)
            .mode(0o600)
            .open(path)
            .map_err(|source| PlatformError::Os {
                op: "open a scratch file",
                source,
            })?;
        if len > 0 {
            file.set_len(len as u64)
                .map_err(|source| PlatformError::Os {
                    op: "ftruncate",
                    source,
                })?;
        }
        Ok(ScratchFile { file, len })
    }

    /// Locks the file's first byte for writing and unlocks it (`fcntl(F_SETLK)`, twice).
    pub fn lock_and_unlock(&mut self) -> Result<(), PlatformError> {
        let fd = self.file.as_raw_fd();
        let lock = |kind: i32| {
            // SAFETY: flock is plain data; zeroed then filled.
            let mut region: libc::flock = unsafe { std::mem::zeroed() };
            region.l_type = kind as libc::c_short;
            region.l_whence = libc::SEEK_SET as libc::c_short;
            region.l_len = 1;
            // SAFETY: a descriptor this struct owns and a valid flock that outlives the call.
            unsafe { libc::fcntl(fd, libc::F_SETLK, &region) }
        };
        check(
            i64::from(lock(libc::F_WRLCK).min(lock(libc::F_UNLCK))),
            "fcntl",
        )
    }

    /// Maps the whole file, reads one byte of every 4 KiB page, unmaps it.
    pub fn map_and_touch(&mut self) -> Result<(), PlatformError> {
        let (fd, len) = (self.file.as_raw_fd(), self.len);
        // SAFETY: maps `len` bytes of the file this struct owns, which is `len` bytes long
        // (sized in `create`); reads only inside the mapping, then unmaps exactly it. No
        // reference to the mapped bytes outlives the unmap.
        let rc = unsafe {
            let p = libc::mmap(
                std::ptr::null_mut(),
                len,
                libc::PROT_READ,
                libc::MAP_SHARED,
                fd,
                0,
            );
            if p == libc::MAP_FAILED {
                -1
            } else {
                let bytes = p as *const u8;
                let mut sum = 0u8;
                for page in (0..len).step_by(4096) {
                    sum = sum.wrapping_add(std::ptr::read_volatile(bytes.add(page)));
                }
                std::hint::black_box(sum);
                libc::munmap(p, len)
            }
        };
        check(i64::from(rc), "mmap")
    }
}

/// Signals caught by [`on_signal`].
static CAUGHT: AtomicU64 = AtomicU64::new(0);

extern "C" fn on_signal(_: libc::c_int) {
    CAUGHT.fetch_add(1, Ordering::Relaxed);
}

/// SIGUSR1 caught by this thread: its disposition before is restored on drop.
pub struct SelfSignal {
    previous: libc::sigaction,
}

impl SelfSignal {
    pub fn new() -> Result<SelfSignal, PlatformError> {
        // SAFETY: zeroed storage the kernel fills with the current disposition.
        let mut previous: libc::sigaction = unsafe { std::mem::zeroed() };
        // SAFETY: a query (null new action) into valid storage.
        if unsafe { libc::sigaction(libc::SIGUSR1, std::ptr::null(), &mut previous) } != 0 {
            return Err(PlatformError::last_os("sigaction"));
        }
        Ok(SelfSignal { previous })
    }

    /// Signals caught so far, by every [`SelfSignal`] of the process.
    pub fn caught(&self) -> u64 {
        CAUGHT.load(Ordering::Relaxed)
    }

    /// Installs the handler (`sigaction`) and sends SIGUSR1 to this thread (`raise`), whose
    /// handler has run when this returns.
    pub fn install_and_raise(&mut self) -> Result<(), PlatformError> {
        // SAFETY: sigaction is plain data; zeroed means no flags and an empty mask.
        let mut action: libc::sigaction = unsafe { std::mem::zeroed() };
        action.sa_sigaction = on_signal as *const () as usize;
        // SAFETY: a valid action whose handler only increments an atomic (async-signal-safe);
        // raise takes no pointers.
        let rc = unsafe {
            match libc::sigaction(libc::SIGUSR1, &action, std::ptr::null_mut()) {
                0 => i64::from(libc::raise(libc::SIGUSR1)),
                _ => -1,
            }
        };
        check(rc, "sigaction and raise")
    }
}

impl Drop for SelfSignal {
    fn drop(&mut self) {
        // SAFETY: restores the disposition read in `new`, a valid sigaction.
        unsafe { libc::sigaction(libc::SIGUSR1, &self.previous, std::ptr::null_mut()) };
    }
}

/// Forks a child that exits at once, and waits for it.
pub fn fork_exit_wait() -> Result<(), PlatformError> {
    // SAFETY: the child calls only _exit (async-signal-safe after fork in a multithreaded
    // process); the parent reaps it into valid storage.
    let rc = unsafe {
        match libc::fork() {
            -1 => -1,
            0 => libc::_exit(0),
            child => {
                let mut status = 0;
                i64::from(libc::waitpid(child, &mut status, 0))
            }
        }
    };
    check(rc, "fork")
}

/// Files `fs0`, `fs1`, ... of one directory, created and deleted together.
pub struct FileBatch {
    /// Built once, so no operation allocates.
    names: Vec<CString>,
}

impl FileBatch {
    pub fn new(dir: &Path, files: usize) -> FileBatch {
        let names = (0..files)
            .map(|i| c_path(&dir.join(format!("fs{i}"))))
            .collect();
        FileBatch { names }
    }

    /// Creates every file (`open(O_CREAT)`, `close`), then deletes every one (`unlink`).
    pub fn create_and_delete(&mut self) -> Result<(), PlatformError> {
        for name in &self.names {
            // SAFETY: a NUL-terminated path; the descriptor is closed at once.
            let fd = unsafe { libc::open(name.as_ptr(), libc::O_CREAT | libc::O_RDWR, 0o600) };
            if fd < 0 {
                return Err(PlatformError::last_os("create and delete files"));
            }
            // SAFETY: closes the descriptor just opened, owned by nothing else.
            unsafe { libc::close(fd) };
        }
        for name in &self.names {
            // SAFETY: a NUL-terminated path of a file just created.
            if unsafe { libc::unlink(name.as_ptr()) } != 0 {
                return Err(PlatformError::last_os("create and delete files"));
            }
        }
        Ok(())
    }
}
