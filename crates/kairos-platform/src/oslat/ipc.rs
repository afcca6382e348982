//! The suite's two-process services (the OS-latency study, section V): ctx, pipe, unix, fifo and udp. A
//! partner process ([`kairos_os::echo`]), forked from the measuring thread (so on its CPU,
//! under its SCHED_FIFO priority), echoes every message back; one sample is the round trip
//! (for ctx, half of it: two processes on one CPU hand the token over twice per round trip,
//! as lmbench counts).

use super::Sampler;
use kairos_os::echo::EchoPartner;
use kairos_os::{clock, PlatformError};
use std::path::Path;

/// The partner and whether a sample is half the round trip.
pub struct Pair {
    partner: EchoPartner,
    halve: bool,
}

impl Pair {
    /// Two pipes; `halve` for ctx.
    pub fn pipes(halve: bool) -> Result<Pair, PlatformError> {
        Ok(Pair {
            partner: EchoPartner::pipes()?,
            halve,
        })
    }

    pub fn unix() -> Result<Pair, PlatformError> {
        Pair::whole(EchoPartner::unix())
    }

    /// Two named FIFOs in `dir`.
    pub fn fifos(dir: &Path) -> Result<Pair, PlatformError> {
        Pair::whole(EchoPartner::fifos(dir))
    }

    /// Two UDP sockets on 127.0.0.1, each connected to the other.
    pub fn udp() -> Result<Pair, PlatformError> {
        Pair::whole(EchoPartner::udp())
    }

    fn whole(partner: Result<EchoPartner, PlatformError>) -> Result<Pair, PlatformError> {
        Ok(Pair {
            partner: partner?,
            halve: false,
        })
    }
}

impl Sampler for Pair {
    fn sample(&mut self) -> Result<u64, PlatformError> {
        let start = clock::now_ns();
        let trip = self.partner.round_trip();
        let took = clock::now_ns() - start;
        trip?;
        Ok(if self.halve { took / 2 } else { took })
    }
}
