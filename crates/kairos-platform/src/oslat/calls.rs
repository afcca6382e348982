//! The suite's one-process services (the OS-latency study, section V): syscall, sem, fcntl, signal, mmap,
//! proc and fs, each sample timed on its own with CLOCK_MONOTONIC (vDSO, tens of ns) around
//! one operation of [`kairos_os::services`].

use super::Sampler;
use kairos_os::services::{self, FileBatch, ScratchFile, SelfSignal, Semaphore};
use kairos_os::{clock, PlatformError};
use std::path::Path;

/// Files one `fs` sample creates and deletes (the study's batch).
pub const FS_FILES: usize = 500;

/// Bytes `mmap` maps and touches.
const MMAP_BYTES: usize = 1 << 20;

/// The nanoseconds `op` took, or its failure.
fn timed(op: impl FnOnce() -> Result<(), PlatformError>) -> Result<u64, PlatformError> {
    let start = clock::now_ns();
    let result = op();
    let took = clock::now_ns() - start;
    result.map(|()| took)
}

pub struct Syscall;

impl Sampler for Syscall {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        timed(services::getpid_syscall)
    }
}

/// A private System V semaphore, raised and lowered in turn (never blocks).
pub struct Sem {
    semaphore: Semaphore,
    up: bool,
}

impl Sem {
    pub fn new() -> Result<Sem, PlatformError> {
        Ok(Sem {
            semaphore: Semaphore::new()?,
            up: true,
        })
    }
}

impl Sampler for Sem {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        let up = self.up;
        self.up = !self.up;
        timed(|| self.semaphore.op(up))
    }
}

pub struct Fcntl(ScratchFile);

impl Fcntl {
    pub fn new(dir: &Path) -> Result<Fcntl, PlatformError> {
        Ok(Fcntl(ScratchFile::create(&dir.join("fcntl"), 4096)?))
    }
}

impl Sampler for Fcntl {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        timed(|| self.0.lock_and_unlock())
    }
}

/// SIGUSR1 installed and sent to self; its disposition before the suite comes back on drop.
pub struct Signal(SelfSignal);

impl Signal {
    pub fn new() -> Result<Signal, PlatformError> {
        SelfSignal::new().map(Signal)
    }
}

impl Sampler for Signal {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        let before = self.0.caught();
        let took = timed(|| self.0.install_and_raise())?;
        match self.0.caught() > before {
            true => Ok(took),
            false => Err(PlatformError::Os {
                op: "signal",
                source: std::io::Error::other("the signal sent to self was not caught"),
            }),
        }
    }
}

pub struct Mmap(ScratchFile);

impl Mmap {
    pub fn new(dir: &Path) -> Result<Mmap, PlatformError> {
        Ok(Mmap(ScratchFile::create(&dir.join("mmap"), MMAP_BYTES)?))
    }
}

impl Sampler for Mmap {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        timed(|| self.0.map_and_touch())
    }
}

pub struct Proc;

impl Sampler for Proc {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        timed(services::fork_exit_wait)
    }
}

/// Creates and deletes [`FS_FILES`] files (or as many as asked) per sample.
pub struct Fs(FileBatch);

impl Fs {
    pub fn new(dir: &Path) -> Fs {
        Fs::with_files(dir, FS_FILES)
    }

    pub fn with_files(dir: &Path, files: usize) -> Fs {
        Fs(FileBatch::new(dir, files))
    }
}

impl Sampler for Fs {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        timed(|| self.0.create_and_delete())
    }
}
