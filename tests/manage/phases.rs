//! The manager across two phases of one run: a kernel load that interferes, then none. It must
//! cut the best-effort share while the load hits the real-time job and give the time back
//! after. A run is made again only on the host's evidence, printed.

use super::{example, managed_run_for, periods, Scratch};
use serde_json::Value;

/// examples/manage/kernel-load.toml with a load that interferes for its first 4 s and then
/// stops: kairos's static-key stressor, then a sleep that outlasts the run. The prior slope is
/// this machine's `kairos platform interference --bench syscall --stressors static-key`.
fn kernel_load_then_quiet(dir: &std::path::Path) -> String {
    let example = std::fs::read_to_string(example("kernel-load.toml")).unwrap();
    let load = format!(
        "command = [\"sh\", \"-c\", \"{} stressor static-key --timeout 4s; exec sleep 600\"]",
        env!("CARGO_BIN_EXE_kairos")
    );
    let prior = format!(
        "probe = \"1s\"\ninterference = \"{}/tests/data/interference-static-key.json\"",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = example
        .replace("stress = \"static-key\"", &load)
        .replace("hold = \"200ms\"", &format!("hold = \"200ms\"\n{prior}"))
        // A target of 4.5 ms, 1.125 T_expected (within 5 %): the load's full share overruns it
        // on every host seen (it slowed the job by 40 to 60 % here, by 25 % in one CI run, where
        // a 5 ms target left the manager a cut of a few per cent to make), and the quiet job
        // (T_RT within a few per cent of T_expected) stays within it.
        .replace("margin = \"4ms\"", "margin = \"5.5ms\"");
    assert!(
        text.contains("exec sleep")
            && text.contains("interference =")
            && text.contains("\"5.5ms\"")
    );
    let file = dir.join("kernel-load-then-quiet.toml");
    std::fs::write(&file, text).unwrap();
    file.display().to_string()
}

#[test]
#[ignore = "needs root: partitions cores, writes cgroups, opens perf events (CI runs it)"]
fn the_manager_cuts_the_load_while_it_interferes_and_gives_the_time_back_after() {
    let dir = Scratch::new("manage-phases");
    let file = kernel_load_then_quiet(&dir.0);
    let mut phases = run(&file);
    for attempt in 2..=RUNS {
        let Some(evidence) = host_evidence(&phases) else {
            break;
        };
        crate::common::tell_rerun(&format!(
            "host: {evidence}; running again ({attempt} of {RUNS})"
        ));
        phases = run(&file);
    }
    // A last run the host disturbed too still counts: its evidence goes with any failure.
    let host = host_evidence(&phases).map_or(String::new(), |e| format!("; host: {e}"));
    let Phases { json, stolen: _ } = &phases;
    let (loaded, quiet) = (mean_share(json, 0.5, 3.5), mean_share(json, 7.0, 10.0));
    eprintln!("best-effort share: {loaded:.2} of P while the load interfered, {quiet:.2} after");
    let t_rt: Vec<u64> = (periods(json).iter())
        .map(|p| p["t_rt_ns"].as_u64().unwrap() / 1000)
        .collect();
    // How much the manager must cut depends on how hard the load hits this machine today (a
    // spinning thread lost 40 to 60 % of core 0 to it here): the test asks for the direction.
    assert!(
        loaded < quiet - 0.1,
        "less best-effort time while the load interfered ({loaded:.2} of P) than after ({quiet:.2}); \
         T_expected {} ns, T_RT per period (µs) {t_rt:?}, load {}, changes {}{host}",
        json["expected_ns"],
        json["best_effort"],
        json["changes"]
    );
    let per_second: Vec<String> = (0..10)
        .map(|k| format!("{:.2}", mean_share(json, k as f64, k as f64 + 1.0)))
        .collect();
    assert!(
        quiet > 0.75,
        "the time given back once it stopped: {quiet:.2} of P (per second: {per_second:?}; \
         T_RT per period (µs) {t_rt:?}; the manager's changes: {}){host}",
        changes_in_text(json)
    );
    let prior = json["prior_per_call_ns"]
        .as_f64()
        .expect("the prior was read");
    assert!(prior > 0.0, "{prior}");
    let changes = json["changes"].as_array().unwrap();
    assert!(changes
        .iter()
        .any(|c| c["reason"].as_str().unwrap().contains("less best-effort")));
}

/// Managed runs of the scenario at most: one the host disturbed runs again, up to this many in
/// all (CI saw two disturbed runs in a row: T_expected 6.30 ms, then 7.17 ms, against 4 ms).
const RUNS: usize = 3;

/// One managed run of the two phases, and the clock ticks the hypervisor stole meanwhile.
struct Phases {
    json: Value,
    stolen: u64,
}

fn run(file: &str) -> Phases {
    let stolen_before = steal_ticks();
    let json = managed_run_for(file, "10s", &[]);
    Phases {
        json,
        stolen: steal_ticks() - stolen_before,
    }
}

/// Why the run is not the scenario, in the host's own evidence, if it is not:
/// - The target is 1.125 T_expected only when the isolation settled on the file's 4 ms: it
///   resizes the job until its median is within 5 %, three times at most. A median still off
///   after that, while the hypervisor stole time from this VM, is the host moving the core's
///   speed under the measurement (a 3.1 ms T_expected left 60 % headroom in CI once, and the
///   load then needs no cut).
/// - After the load has stopped (it sleeps from 4 s on), nothing of the run's but the
///   real-time job uses its core, so its median T_RT there is T_expected within the
///   isolation's own 5 %, and no period of it runs over the target; more is the host slowing
///   the core. Seen in CI: the manager kept cutting an asleep load (0.06 to 0.14 of P) with
///   the median over the target; it gave the time back only slowly (0.49 and 0.51 of P) when
///   periods of the quiet job ran 5.4 to 5.8 ms against a 4.5 ms target, each spike holding
///   its share back for a `hold`.
fn host_evidence(phases: &Phases) -> Option<String> {
    let json = &phases.json;
    let expected = json["expected_ns"].as_f64().unwrap();
    if (expected / 4e6 - 1.0).abs() > 0.05 && phases.stolen > 0 {
        return Some(format!(
            "the isolation ended at T_expected {expected} ns against the 4 ms length after {} \
             resizings while the hypervisor stole {} clock ticks from this VM",
            kairos_platform::manage::job::ISOLATIONS,
            phases.stolen
        ));
    }
    let t_rt = |from: f64, to: f64| -> Vec<u64> {
        let mut t: Vec<u64> = (periods(json).iter())
            .filter(|p| (from..to).contains(&seconds(json, p)))
            .map(|p| p["t_rt_ns"].as_u64().unwrap())
            .collect();
        t.sort_unstable();
        t
    };
    let quiet = t_rt(7.0, 10.0);
    let median = *quiet.get(quiet.len() / 2)?;
    if median as f64 > expected * 1.05 {
        return Some(format!(
            "with the load asleep (7 s to 10 s) the job's median T_RT was {median} ns, more \
             than 5 % over its T_expected of {expected} ns in isolation: the host slowed core 0"
        ));
    }
    let target = json["target_ns"].as_u64().unwrap();
    let asleep = t_rt(4.5, 10.0);
    let over: Vec<u64> = asleep.iter().copied().filter(|&t| t > target).collect();
    (over.len() >= 3).then(|| {
        format!(
            "with the load asleep (4.5 s to 10 s) {} of the job's {} periods ran over the \
             {target} ns target (up to {} ns) with nothing else on its core: the host slowed core 0",
            over.len(),
            asleep.len(),
            over.last().copied().unwrap_or(0)
        )
    })
}

/// The manager's changes, each as when, the shares before and after and why: what a run
/// that gave the time back late says of the reason.
fn changes_in_text(json: &Value) -> String {
    let changes = json["changes"].as_array().unwrap();
    let text: Vec<String> = (changes.iter())
        .map(|c| {
            format!(
                "at {} {} -> {}: {}",
                c["at_ns"], c["from"], c["to"], c["reason"]
            )
        })
        .collect();
    text.join("; ")
}

/// When period `p` began, in seconds since the run's first release.
fn seconds(json: &Value, p: &Value) -> f64 {
    let first = periods(json)[0]["release_ns"].as_u64().unwrap();
    (p["release_ns"].as_u64().unwrap() - first) as f64 / 1e9
}

/// The mean best-effort share (S_BE as a fraction of P = 20 ms) of the periods that began
/// from `from` to `to` seconds.
fn mean_share(json: &Value, from: f64, to: f64) -> f64 {
    let v: Vec<f64> = (periods(json).iter())
        .filter(|p| (from..to).contains(&seconds(json, p)))
        .map(|p| p["be_share_ns"][0].as_f64().unwrap() / 20e6)
        .collect();
    assert!(v.len() > 20, "periods from {from} s to {to} s: {}", v.len());
    v.iter().sum::<f64>() / v.len() as f64
}

/// Time the hypervisor stole from this machine's vCPUs so far, in clock ticks (the runtime's
/// reading of `/proc/stat`, over every CPU).
fn steal_ticks() -> u64 {
    let per_cpu = kairos_rt::stalls::steal_ticks_per_cpu().expect("read /proc/stat");
    per_cpu.values().sum()
}
