//! The timer-latency probe: the quantity cyclictest reports (`linux-platform.md`, "Reference
//! tools"), measured the way `cyclictest -m -S -p 80 -n` measures it: one thread per CPU,
//! pinned, SCHED_FIFO 80, memory locked, `/dev/cpu_dma_latency` held at 0, each thread
//! sleeping to an absolute CLOCK_MONOTONIC time every interval and recording its wake-up time
//! minus the programmed time. It is the floor under every release of the runtime. All threads
//! share one interval and start together, as cyclictest's threads do under `-S` (each of its
//! threads records one sample per interval: 2,000 per thread in `-D 2` at `-i 1000` here).
//! [`periodic_probe`] runs one such thread under any policy and affinity and also records the
//! jitter of its period (the load sweep's configurations).

use crate::measure::Distribution;
use crate::watchdog::{Guarded, Heartbeat, RunControl, Watchdog, WatchdogConfig};
use kairos_os::{clock, dma, memory, priority, thread, PlatformError};
use std::sync::atomic::AtomicI32;
use std::sync::Arc;

/// The probe's result.
#[derive(Clone, Debug)]
pub struct TimerLatency {
    /// One distribution per CPU, in the order of `cpus`.
    pub per_cpu: Vec<Distribution>,
    pub cpus: Vec<usize>,
    pub dma_latency_held: bool,
    /// Why the probe ended early, if it did (a signal, the watchdog).
    pub stopped_by: Option<String>,
}

impl TimerLatency {
    /// All CPUs together.
    pub fn merged(&self) -> Distribution {
        let mut all = Distribution::new();
        self.per_cpu.iter().for_each(|d| all.merge(d));
        all
    }
}

/// Runs the probe on every CPU of `cpus` for `duration_ns`, waking every `interval_ns`.
pub fn timer_latency(
    cpus: &[usize],
    interval_ns: u64,
    duration_ns: u64,
    control: Arc<RunControl>,
) -> Result<TimerLatency, PlatformError> {
    let specs = cpus
        .iter()
        .map(|&cpu| {
            thread::ThreadSpec::fifo(format!("kairos-probe{cpu}"), priority::PROBE, vec![cpu])
        })
        .collect();
    let run = run_probes(specs, interval_ns, duration_ns, control)?;
    Ok(TimerLatency {
        per_cpu: run
            .threads
            .into_iter()
            .map(|(latency, _)| latency)
            .collect(),
        cpus: cpus.to_vec(),
        dma_latency_held: run.dma_latency_held,
        stopped_by: run.stopped_by,
    })
}

/// What [`periodic_probe`] measured.
#[derive(Clone, Debug)]
pub struct PeriodicProbe {
    /// Wake-up time minus programmed time (cyclictest's quantity).
    pub latency: Distribution,
    /// |time between two wake-ups - interval|: the jitter of a periodic action's period (a
    /// GPIO toggled at each wake-up would show it on a scope).
    pub period_jitter: Distribution,
    pub stopped_by: Option<String>,
}

/// One periodic thread created as `spec` says (any policy, any affinity), waking every
/// `interval_ns` for `duration_ns`.
pub fn periodic_probe(
    spec: thread::ThreadSpec,
    interval_ns: u64,
    duration_ns: u64,
    control: Arc<RunControl>,
) -> Result<PeriodicProbe, PlatformError> {
    let run = run_probes(vec![spec], interval_ns, duration_ns, control)?;
    let (latency, period_jitter) = run.threads.into_iter().next().expect("one probe thread");
    Ok(PeriodicProbe {
        latency,
        period_jitter,
        stopped_by: run.stopped_by,
    })
}

/// What the probe threads of one run measured: per thread (latency, period jitter).
struct ProbeRun {
    threads: Vec<(Distribution, Distribution)>,
    dma_latency_held: bool,
    stopped_by: Option<String>,
}

/// Starts one probe thread per spec, all on one time grid, under a watchdog; joins them.
fn run_probes(
    specs: Vec<thread::ThreadSpec>,
    interval_ns: u64,
    duration_ns: u64,
    control: Arc<RunControl>,
) -> Result<ProbeRun, PlatformError> {
    memory::lock_all_memory()?;
    let dma = dma::DmaLatencyGuard::acquire();
    let origin = clock::now_ns() + 10_000_000;
    let end = origin + duration_ns;
    let watchdog = Watchdog::start(
        Arc::clone(&control),
        WatchdogConfig::for_run(end, 1_000_000_000),
    )?;
    let mut threads = Vec::with_capacity(specs.len());
    for spec in specs {
        let heartbeat = Arc::new(Heartbeat::default());
        let (beat, stop) = (Arc::clone(&heartbeat), Arc::clone(&control));
        let probe = thread::spawn(spec, move || {
            probe_loop(origin, end, interval_ns, &beat, &stop)
        });
        match probe {
            Ok(t) => {
                watchdog.guard(Guarded {
                    name: t.name().to_string(),
                    tid: t.tid(),
                    heartbeat,
                    child: Arc::new(AtomicI32::new(0)),
                });
                threads.push(t);
            }
            Err(e) => {
                control.finish();
                threads.into_iter().for_each(|t| drop(t.join()));
                watchdog.stop();
                return Err(e);
            }
        }
    }
    let measured = threads
        .into_iter()
        .map(|t| t.join())
        .collect::<Result<Vec<_>, _>>()?;
    let intervention = watchdog.stop();
    Ok(ProbeRun {
        threads: measured,
        dma_latency_held: dma.held(),
        stopped_by: intervention.or_else(|| control.reason()),
    })
}

/// Sleeps to each grid instant; records the wake-up latency and how far each period between
/// two wake-ups is from the interval.
fn probe_loop(
    origin: u64,
    end: u64,
    interval_ns: u64,
    beat: &Heartbeat,
    control: &RunControl,
) -> (Distribution, Distribution) {
    memory::prefault_stack();
    let (mut latency, mut jitter) = (Distribution::new(), Distribution::new());
    let (mut next, mut last): (u64, Option<u64>) = (origin, None);
    while next < end && !control.should_stop() {
        clock::sleep_until(next);
        let woke = clock::now_ns();
        latency.record(woke.saturating_sub(next));
        if let Some(previous) = last {
            jitter.record((woke - previous).abs_diff(interval_ns));
        }
        last = Some(woke);
        beat.beat();
        next += interval_ns;
    }
    (latency, jitter)
}

/// The CPUs a probe covers by default: every CPU this process may use (as `-S` does).
pub fn default_cpus() -> Vec<usize> {
    kairos_os::online_cpus()
}
