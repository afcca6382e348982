//! Software perf events opened and closed at once: the only effect kairos wants of one is the
//! kernel static key its kind switches (`perf_swevent_enabled`), which the first open of a
//! kind enables and the last close disables (the `static-key` stressor of `kairos-platform`).

/// `struct perf_event_attr` in its first published size (PERF_ATTR_SIZE_VER0, 64 bytes),
/// which every kernel since 2.6.31 accepts. The libc crate does not define it, and a bindings
/// crate for all of perf would bring hundreds of definitions for these eight fields.
#[repr(C)]
#[derive(Default)]
struct PerfEventAttr {
    kind: u32,
    size: u32,
    config: u64,
    sample_period: u64,
    sample_type: u64,
    read_format: u64,
    flags: u64,
    wakeup_events: u32,
    bp_type: u32,
    bp_addr: u64,
}

const PERF_TYPE_SOFTWARE: u32 = 1;

/// The software event counting major page faults (`PERF_COUNT_SW_PAGE_FAULTS_MAJ`).
pub const SW_PAGE_FAULTS_MAJ: u64 = 6;

/// Opens the software event `config` for this process on any CPU and closes it again.
pub fn open_close_software_event(config: u64) -> std::io::Result<()> {
    let attr = PerfEventAttr {
        kind: PERF_TYPE_SOFTWARE,
        size: std::mem::size_of::<PerfEventAttr>() as u32,
        config,
        ..PerfEventAttr::default()
    };
    // SAFETY: perf_event_open reads `size` bytes of `attr`, a live struct of that size; the
    // arguments are this process (0), any CPU (-1), no group (-1), no flags.
    let fd = unsafe {
        libc::syscall(
            libc::SYS_perf_event_open,
            &attr as *const PerfEventAttr,
            0,
            -1,
            -1,
            0,
        )
    };
    if fd < 0 {
        return Err(std::io::Error::last_os_error());
    }
    // SAFETY: closes the descriptor just opened, owned by nothing else.
    unsafe { libc::close(fd as i32) };
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_attribute_has_the_size_the_kernel_knows() {
        assert_eq!(std::mem::size_of::<PerfEventAttr>(), 64);
    }
}
