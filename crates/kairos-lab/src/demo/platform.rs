//! The demo's look at this machine: five services of the OS-latency suite of the Linux
//! PREEMPT_RT interference study (a system call, a context switch, a signal, a pipe round trip
//! and a semaphore), timed call by call by a SCHED_FIFO thread, as `kairos platform latency`
//! does with all twelve and with stress-ng on the other cores. Without real-time privilege the
//! stage says why and is skipped: the demo must work everywhere.

use super::{Demo, Figures, Ordered};
use crate::text::human_ns;
use crate::Failure;
use kairos_os::online_cpus;
use kairos_platform::oslat::{run_suite, Bench, SuiteConfig};
use kairos_rt::watchdog::RunControl;
use std::sync::Arc;

const BENCHES: [Bench; 5] = [
    Bench::Syscall,
    Bench::Ctx,
    Bench::Signal,
    Bench::Pipe,
    Bench::Sem,
];

/// Samples per service: enough for a median and a tail in a fraction of a second.
const SAMPLES: usize = 2000;

pub fn run(demo: &mut Demo) -> Result<(), Failure> {
    demo.stage(
        "measure",
        "this machine's OS latencies (kairos platform latency, five of its twelve services)",
    );
    let config = SuiteConfig {
        benches: BENCHES.to_vec(),
        samples: Some(SAMPLES),
        cpu: online_cpus()[0],
        control: RunControl::new(),
    };
    let results = match run_suite(&config, Arc::new(|_| {})) {
        Ok(results) => results,
        Err(e) => {
            demo.say(format!("  skipped: {e}"));
            let skipped = e.to_string();
            demo.record("measure", Figures::Skipped { skipped });
            return Ok(());
        }
    };
    demo.say(format!(
        "  {:<8} {:>8} {:>10} {:>10} {:>10}   on CPU {}, SCHED_FIFO",
        "service", "samples", "median", "p99", "max", config.cpu
    ));
    let mut figures = Vec::new();
    for r in &results {
        let s = r.summary();
        demo.say(format!(
            "  {:<8} {:>8} {:>10} {:>10} {:>10}",
            r.bench.name(),
            s.count,
            human_ns(s.p50),
            human_ns(s.p99),
            human_ns(s.max)
        ));
        figures.push((r.bench.name().to_string(), s));
    }
    let figures = Figures::Latency {
        cpu: config.cpu,
        latency_ns: Ordered(figures),
    };
    demo.record("measure", figures);
    Ok(())
}
