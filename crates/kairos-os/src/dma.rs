//! The PM-QoS guard: while a file descriptor on `/dev/cpu_dma_latency` holding the value 0 is
//! open, idle CPUs stay out of deep idle states, which spares 25-40 us per wake-up on the
//! `haltpoll` machines here (`linux-platform.md`, first section). cyclictest holds it the same
//! way, so holding it keeps the comparison fair. Dropping the guard closes the file, which
//! releases the request.

use std::fs::File;
use std::io::Write;

/// Holds a 0 us latency request until dropped; [`DmaLatencyGuard::acquire`] never fails the
/// run, it reports why the request could not be held instead.
#[derive(Debug)]
pub struct DmaLatencyGuard {
    file: Option<File>,
    note: Option<String>,
}

impl DmaLatencyGuard {
    /// Opens `/dev/cpu_dma_latency` and writes 0 (a 32-bit value, as the kernel expects).
    pub fn acquire() -> Self {
        let attempt = File::options()
            .write(true)
            .open("/dev/cpu_dma_latency")
            .and_then(|mut f| f.write_all(&0i32.to_ne_bytes()).map(|()| f));
        match attempt {
            Ok(file) => DmaLatencyGuard {
                file: Some(file),
                note: None,
            },
            Err(e) => DmaLatencyGuard {
                file: None,
                note: Some(format!(
                    "/dev/cpu_dma_latency not held ({e}): idle CPUs may add wake-up latency"
                )),
            },
        }
    }

    /// Whether the 0 us request is in force.
    pub fn held(&self) -> bool {
        self.file.is_some()
    }

    /// Why the request is not held, if it is not.
    pub fn note(&self) -> Option<&str> {
        self.note.as_deref()
    }
}
