//! Memory set-up before real-time work: lock every page (`mlockall(MCL_CURRENT|MCL_FUTURE)`)
//! and touch the stack, so no page fault lands inside a measured job (`linux-platform.md`,
//! "Release"); and, for every command, freed memory kept for the next allocations.

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

/// Keeps the memory the process frees for its next allocations instead of handing it back to
/// the kernel (glibc's `mallopt`: blocks below 32 MB come from the heap, not from a mapping of
/// their own, and the heap's free top is handed back only past 256 MB). A table synthesis or a
/// simulation frees its large vectors at its end; by default glibc unmaps them and the next one
/// maps them again, a page fault every 4 kB (about 3 us each on a virtual machine). Measured
/// with `kairos bench synth --repeat 21` on a 200,760-slot, 144,030-job system (22 syntheses in
/// one process): 88,000 page faults with the defaults, 9,700 with this, and a quarter less CPU
/// time. Costs nothing but memory held until exit.
pub fn keep_freed_memory() {
    // glibc's parameters: another C library keeps its own defaults.
    #[cfg(target_env = "gnu")]
    // SAFETY: mallopt sets two parameters of the C allocator; it touches no Rust-visible
    // memory, and a value it refuses leaves the default in place.
    unsafe {
        libc::mallopt(libc::M_MMAP_THRESHOLD, 32 << 20);
        libc::mallopt(libc::M_TRIM_THRESHOLD, 256 << 20);
    }
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
