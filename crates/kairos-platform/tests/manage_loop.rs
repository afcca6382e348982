//! The resource manager's feedback loop on real cgroups: the manager thread, its model and
//! controller write the best-effort group's CFS quota, and a stand-in RT task whose
//! interference is proportional to the quota it reads back from the kernel closes the loop.
//! When the interference rises the manager must cut best-effort time; when it falls, give it
//! back. Needs root (cgroups): ignored by a plain `cargo test`, run by CI.

use kairos_model::managed::Execution;
use kairos_model::Duration;
use kairos_platform::manage::bandwidth::Bandwidth;
use kairos_platform::manage::control::{ControlConfig, Controller, Shares};
use kairos_platform::manage::job::JobRecord;
use kairos_platform::manage::manager::Manager;
use kairos_platform::manage::model::{InterferenceModel, Prior};
use kairos_platform::partition::state::{Change, Mechanism, State};
use kairos_rt::watchdog::RunControl;
use std::path::PathBuf;

const MS: u64 = 1_000_000;

fn quota_file(state: &State) -> PathBuf {
    state
        .changes
        .iter()
        .find_map(|c| match c {
            Change::Cgroup { path, .. }
                if path.join("cpu.cfs_quota_us").exists() && path.ends_with("core1") =>
            {
                Some(path.join("cpu.cfs_quota_us"))
            }
            _ => None,
        })
        .expect("the best-effort group of core 1")
}

#[test]
#[ignore = "needs root: writes cgroups (CI runs it)"]
fn the_manager_cuts_best_effort_time_when_interference_rises_and_gives_it_back_when_it_falls() {
    let dir = std::env::temp_dir().join(format!("kairos-manage-loop-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // This file's only test: no other thread reads the environment meanwhile.
    std::env::set_var("KAIROS_STATE_DIR", &dir);
    let mut state = State {
        pid: std::process::id(),
        rt: vec![0],
        be: vec![1],
        mechanism: Mechanism::CgroupV1,
        cpusets: None,
        changes: Vec::new(),
    };
    state.save().unwrap();
    let period = Duration::from_millis(10);
    let cap = Duration::from_millis(10);
    let bandwidth = Bandwidth::create(&[1], &[cap], period, &mut state).expect("cgroups");
    let quota = quota_file(&state);
    let expected = Duration::from_millis(4);
    let config = ControlConfig {
        execution: Execution::Free,
        period,
        target: Duration::from_nanos(4_400_000),
        expected,
        caps: vec![cap],
        rt_core: None,
        rt_max: Duration::from_nanos(9_500_000),
        hold: Duration::from_millis(100),
        probe: Duration::ZERO,
    };
    let initial = Shares {
        be: vec![cap],
        rt: period,
    };
    let weak = Prior {
        slope_ns: 0.0,
        spread_ns: 4e6,
    };
    let manager = Manager {
        controller: Controller::new(config, initial),
        model: InterferenceModel::new(
            Prior {
                slope_ns: 0.0,
                spread_ns: 4e5,
            },
            &[weak],
            0.95,
        ),
        bandwidth,
        managed: true,
        period,
        arrival: period,
        deadline: period,
        target: Duration::from_nanos(4_400_000),
        expected,
        constrained: false,
        rt_tid: 0,
        end_ns: kairos_os::clock::now_ns() + 120_000_000_000,
    };
    let (tx, rx) = std::sync::mpsc::channel();
    let control = RunControl::new();
    let c = control.clone();
    let thread = std::thread::spawn(move || manager.run(rx, &c));
    let mut seen = Vec::new();
    for z in 0..400u64 {
        // The share of P = 10 ms the kernel meters: the quota is set in slices of P.
        let read = |file: &str| -> u64 {
            let text = std::fs::read_to_string(quota.with_file_name(file)).unwrap();
            text.trim().parse().unwrap()
        };
        let us = read("cpu.cfs_quota_us") * 10_000 / read("cpu.cfs_period_us");
        seen.push(us);
        // Interference: 2 ms per core fully given to best-effort work, then none.
        let slope = if z < 200 { 2 * MS } else { 0 };
        let jitter = (z * 7919 % 61) * 1000;
        let execution = Duration::from_nanos(4 * MS + slope * us / 10_000 + jitter);
        let record = JobRecord {
            job: z,
            release: Duration::from_nanos(z * 10 * MS),
            start: Duration::ZERO,
            response: execution,
            execution,
            cpu: execution,
        };
        tx.send(record).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(2));
    }
    drop(tx);
    let managed = thread.join().unwrap();
    kairos_platform::partition::reset().unwrap();
    assert!(!quota.exists(), "the reset removed the group");
    let least = *seen[..200].iter().min().unwrap();
    let last = *seen.last().unwrap();
    assert!(
        least <= 4_000,
        "the quota came down under interference: {seen:?}"
    );
    assert!(last >= 9_000, "and went back up without it: {seen:?}");
    let reasons: Vec<&str> = managed.changes.iter().map(|c| c.reason.as_str()).collect();
    let cut = reasons
        .iter()
        .position(|r| r.contains("less best-effort time"));
    let restored = reasons
        .iter()
        .rposition(|r| r.contains("within the target"));
    assert!(cut.is_some() && restored > cut, "{reasons:#?}");
    assert_eq!(managed.periods.len(), 400);
    let _ = std::fs::remove_dir_all(&dir);
}
