//! A measurement of the dispatcher's overheads that the host stops: every core of the run is
//! held, above every thread of it, long enough that a task's jobs pile up past what the
//! dispatcher tracks, and the run stops early. The host caused it, so the measurement says so
//! with its evidence and runs once more; the second run, not held, gives the figures. Needs
//! real-time privilege: ignored by a plain `cargo test`, run by CI as root.

use kairos_lab::bench::overheads::{run, Request};
use kairos_model::{check_source, Duration, Format};
use kairos_os::{clock, priority, thread};

const MS: u64 = 1_000_000;

/// A task of 1 ms period: 32 of its jobs pending (the dispatcher's limit) after 32 ms held.
const WORKLOAD: &str = r#"
name = "held"
cores = 2
[[tasks]]
name = "fast"
wcet = "100us"
period = "1ms"
[[tasks]]
name = "slow"
wcet = "2ms"
period = "10ms"
"#;

/// Whether a thread of this process is named `prefix` and a number (a CPU's: the stall
/// watchers, not the watchdog).
fn thread_named(prefix: &str) -> bool {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return false;
    };
    tasks.flatten().any(|task| {
        std::fs::read_to_string(task.path().join("comm")).is_ok_and(|n| {
            (n.strip_prefix(prefix))
                .is_some_and(|cpu| cpu.starts_with(|c: char| c.is_ascii_digit()))
        })
    })
}

/// Holds `cpu` busy for `length`, at the stall watchers' priority (above the run's threads),
/// once: 30 ms after the first run's stall watchers appear (past its start, which comes 20 ms
/// after its threads). Gives up after 20 s without a run.
fn hold_first_run(cpu: usize, length: u64) -> thread::RtThread<bool> {
    let spec = thread::ThreadSpec::fifo("test-hold", priority::STALL_WATCH, vec![cpu]);
    thread::spawn(spec, move || {
        let give_up = clock::now_ns() + 20_000 * MS;
        while !thread_named("kairos-watch") {
            if clock::now_ns() > give_up {
                return false;
            }
            clock::sleep_until(clock::now_ns() + MS);
        }
        clock::sleep_until(clock::now_ns() + 30 * MS);
        let from = clock::now_ns();
        while clock::now_ns() < from + length {
            std::hint::spin_loop();
        }
        true
    })
    .expect("the holding thread starts")
}

#[test]
#[ignore = "needs real-time privilege: cargo test -- --include-ignored, as root"]
fn a_run_the_host_stops_is_measured_again_on_its_evidence() {
    if let Err(e) = kairos_os::privilege::require_rt() {
        panic!("this test needs real-time privilege (root or CAP_SYS_NICE): {e}");
    }
    let workload = check_source(WORKLOAD, Format::Toml)
        .workload
        .expect("test workload is valid");
    let cpus = kairos_os::online_cpus();
    assert!(cpus.len() >= 2, "this test needs two CPUs: {cpus:?}");
    let holders: Vec<_> = (cpus[..2].iter())
        .map(|&cpu| hold_first_run(cpu, 80 * MS))
        .collect();
    let request = Request {
        workload: &workload,
        policy: "gedf",
        duration: Duration::from_secs(1),
        lead: Duration::from_micros(50),
    };
    let mut told = Vec::new();
    let measured = run(&request, &mut |line: &str| told.push(line.to_string()));
    for holder in holders {
        assert!(holder.join().expect("the holder ends"), "no run appeared");
    }
    let told = told.join("\n");
    eprintln!("{told}");
    let measured = measured.unwrap_or_else(|e| panic!("{e:?}\n{told}"));
    assert!(measured.decisions > 0, "{told}");
    let again = (told.lines())
        .find(|l| l.starts_with("host: the run stopped early"))
        .unwrap_or_else(|| panic!("the first run was not stopped by the host: {told}"));
    // Either ground is the host's (`kairos_rt::attribution::host_stop_evidence`): every miss
    // the host's, with its stalls, or more than a tenth of a CPU taken. In one CI run the rule
    // did not give every piled-up miss to the host, and the evidence was the share (82.6 ms of
    // CPU 1's 105.5 ms). Which misses it gave the schedule under a hold of every core, and
    // why, is not known yet: the run keeps no record of them once measured again.
    let grounds = ["every one the host's; stall of", "the host took "];
    assert!(
        again.contains("released, unfinished jobs")
            && grounds.iter().any(|g| again.contains(g))
            && again.ends_with("measuring again (2 of 3)"),
        "{again}"
    );
}
