//! Memory set-up before real-time work: lock every page (`mlockall(MCL_CURRENT|MCL_FUTURE)`)
//! and touch the stack, so no page fault lands inside a measured job (`linux-platform.md`,
//! "Release").

use super::PlatformError;

/// Locks the process's current and future pages in RAM.
pub fn lock_all_memory() -> Result<(), PlatformError> {
    // SAFETY: mlockall takes flags only and changes no Rust-visible memory.
    let rc = unsafe { libc::mlockall(libc::MCL_CURRENT | libc::MCL_FUTURE) };
    if rc != 0 {
        return Err(PlatformError::last_os("mlockall"));
    }
    Ok(())
}

/// How much stack [`prefault_stack`] touches.
pub const PREFAULT_STACK_BYTES: usize = 256 * 1024;

/// Writes to the next [`PREFAULT_STACK_BYTES`] of the calling thread's stack so those pages
/// are mapped (and locked, after [`lock_all_memory`]) before real-time work starts.
#[inline(never)]
pub fn prefault_stack() {
    let mut buffer = [0u8; PREFAULT_STACK_BYTES];
    // black_box keeps the writes: without it the optimiser drops the unused array.
    for page in buffer.chunks_mut(4096) {
        page[0] = 1;
    }
    std::hint::black_box(&mut buffer);
}
