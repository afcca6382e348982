//! Runs a test inside a small Linux VM (QEMU, software emulation) whose cgroups are v2 alone,
//! as systemd sets them up on current distributions. The development machine binds the cpuset
//! and cpu controllers to cgroup v1, so kairos's cgroup v2 paths run only there.
//!
//! The VM boots Debian's kernel (fetched by `scripts/test-deps` into `~/.cache/kairos-vm`) with
//! an initramfs holding busybox, the kairos binary and the calling test executable, each at the
//! path it has here, with the shared libraries they load. Its `/init` (`tests/vm/init`) mounts
//! cgroup2 and runs that one test again with `KAIROS_TEST_VM` set; the test sees the variable
//! ([`inside`]) and does its checks there. Its output comes back over the serial console.

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// How long the VM may run, boot included (software emulation boots in seconds here, longer
/// on a loaded host).
const VM_LIMIT: Duration = Duration::from_secs(300);

/// How long the test inside may run before its [`watchdog`] reports: a hundred seconds before
/// the VM's limit, room for a slow boot.
pub const TEST_LIMIT: Duration = Duration::from_secs(200);

/// Whether this process is the test's run inside the VM.
pub fn inside() -> bool {
    std::env::var_os("KAIROS_TEST_VM").is_some()
}

/// Inside the VM: the cgroups are v2 alone (no v1 hierarchy mounted) and their root offers the
/// cpuset and cpu controllers, so kairos can only have taken its v2 paths.
pub fn assert_cgroup_v2_alone() {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap();
    assert!(
        !mounts
            .lines()
            .any(|l| l.split_whitespace().nth(2) == Some("cgroup")),
        "{mounts}"
    );
    let controllers = std::fs::read_to_string("/sys/fs/cgroup/cgroup.controllers").unwrap();
    for c in ["cpuset", "cpu"] {
        assert!(
            controllers.split_whitespace().any(|x| x == c),
            "{controllers}"
        );
    }
}

/// Inside the VM: runs one phase of the test and prints how long it took on the console, so a
/// run stopped by the time limit shows which phase it was in.
pub fn phase<T>(name: &str, f: impl FnOnce() -> T) -> T {
    let start = Instant::now();
    eprintln!("vm: {name}: started");
    let out = f();
    eprintln!(
        "vm: {name}: done after {:.1} s",
        start.elapsed().as_secs_f64()
    );
    out
}

/// Inside the VM: after `limit`, prints every user process (name, cgroup) with each of its
/// threads (state, kernel wait channel), then their kernel stacks, and ends the test with a
/// failure. The VM's own limit ([`run_inside`]) kills it some time later; this leaves the
/// evidence of what hung first. It reads only what no lock of the process guards before it
/// has printed the states (a command line or a stack can wait on a process stuck in exec or a
/// page fault, the very process to show).
pub fn watchdog(limit: Duration) {
    std::thread::spawn(move || {
        // Above every thread of the run, so that a real-time thread spinning on every CPU of
        // the VM cannot keep it from reporting (a VM run once went silent for its last 280 s
        // with this thread at the default policy).
        let top = libc::sched_param { sched_priority: 99 };
        // SAFETY: `top` is a valid sched_param; 0 names the calling thread.
        unsafe { libc::sched_setscheduler(0, libc::SCHED_FIFO, &top) };
        std::thread::sleep(limit);
        eprintln!("vm: the test ran past {limit:?}; its processes:");
        let processes: Vec<u32> = (numbered("/proc").into_iter())
            .filter(|pid| !kernel_thread(&read(&format!("/proc/{pid}/stat"))))
            .collect();
        for pid in &processes {
            let cgroup = read(&format!("/proc/{pid}/cgroup"));
            eprintln!("{pid} (cgroup {})", cgroup.trim());
            for tid in numbered(&format!("/proc/{pid}/task")) {
                let dir = format!("/proc/{pid}/task/{tid}");
                let stat = read(&format!("{dir}/stat"));
                let wchan = read(&format!("{dir}/wchan"));
                eprintln!("    {tid} {} wchan={wchan}", stat.trim());
            }
        }
        eprintln!("vm: their kernel stacks:");
        for pid in &processes {
            for tid in numbered(&format!("/proc/{pid}/task")) {
                let stack = read(&format!("/proc/{pid}/task/{tid}/stack"));
                eprintln!("{tid}:\n{stack}");
            }
        }
        std::process::exit(101);
    });
}

/// Whether `/proc/PID/stat` is a kernel thread's: PF_KTHREAD in its flags, the ninth field
/// (the name before it, in parentheses, may hold spaces).
fn kernel_thread(stat: &str) -> bool {
    const PF_KTHREAD: u64 = 0x0020_0000;
    let after_name = stat.rsplit_once(") ").map_or("", |(_, rest)| rest);
    let flags = after_name.split_whitespace().nth(6);
    flags
        .and_then(|f| f.parse::<u64>().ok())
        .is_some_and(|f| f & PF_KTHREAD != 0)
}

/// The numbered entries of a /proc folder, in order.
fn numbered(dir: &str) -> Vec<u32> {
    let mut ids: Vec<u32> = std::fs::read_dir(dir)
        .map(|d| {
            d.filter_map(|e| e.ok()?.file_name().to_str()?.parse().ok())
                .collect()
        })
        .unwrap_or_default();
    ids.sort_unstable();
    ids
}

fn read(path: &str) -> String {
    std::fs::read_to_string(path).unwrap_or_default()
}

/// The kernel the VM boots: `KAIROS_VM_KERNEL` or what `scripts/test-deps` fetched.
fn kernel() -> PathBuf {
    let path = std::env::var_os("KAIROS_VM_KERNEL").map_or_else(
        || PathBuf::from(std::env::var("HOME").unwrap()).join(".cache/kairos-vm/vmlinuz"),
        PathBuf::from,
    );
    assert!(
        path.exists(),
        "no kernel for the test VM at {}: run scripts/test-deps (the README's test command does)",
        path.display()
    );
    path
}

/// Boots the VM, runs the test `name` (its full path, as `--exact` takes it) in it with the
/// files of `extra` (host paths, copied to the same paths with the libraries they load) and
/// returns what the VM printed.
/// Panics, with that output, unless the test passed there.
pub fn run_inside(name: &str, extra: &[&Path]) -> String {
    let scratch = super::Scratch::new("vm");
    let root = scratch.0.join("root");
    let test_exe = std::env::current_exe().unwrap();
    let kairos = PathBuf::from(env!("CARGO_BIN_EXE_kairos"));
    for dir in ["bin", "proc", "sys", "dev", "run", "tmp"] {
        std::fs::create_dir_all(root.join(dir)).unwrap();
    }
    copy_in(&root, busybox(), Some("bin/busybox"));
    for lib in libraries(busybox()) {
        copy_in(&root, &lib, None);
    }
    let init = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/vm/init");
    copy_in(&root, &init, Some("init"));
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(root.join("init"), std::fs::Permissions::from_mode(0o755)).unwrap();
    for path in [test_exe.as_path(), kairos.as_path()].iter().chain(extra) {
        copy_in(&root, path, None);
        for lib in libraries(path) {
            copy_in(&root, &lib, None);
        }
    }
    let script = format!(
        "export KAIROS_TEST_VM=1 RUST_BACKTRACE=1\ncd /tmp\n{} --exact {name} --include-ignored --nocapture --test-threads 1\n",
        test_exe.display()
    );
    std::fs::write(root.join("scenario.sh"), script).unwrap();
    let initrd = scratch.0.join("initrd.cpio");
    pack(&root, &initrd);
    let output = boot(&initrd, VM_LIMIT);
    assert!(
        output.contains("KAIROS-VM-END 0") && output.contains("test result: ok. 1 passed"),
        "the test failed inside the VM:\n{output}"
    );
    eprintln!("{output}");
    output
}

/// busybox: the VM's shell and tools, and the archiver here (Debian's busybox-static, or the
/// dynamic one with its libraries).
fn busybox() -> &'static Path {
    let path = Path::new("/bin/busybox");
    assert!(
        path.exists(),
        "no {} (busybox-static): run scripts/test-deps",
        path.display()
    );
    path
}

/// Copies `path` into the VM's root at `to` (relative) or at its own absolute path.
fn copy_in(root: &Path, path: &Path, to: Option<&str>) {
    let target = match to {
        Some(to) => root.join(to),
        None => root.join(path.strip_prefix("/").unwrap()),
    };
    std::fs::create_dir_all(target.parent().unwrap()).unwrap();
    std::fs::copy(path, &target).unwrap_or_else(|e| panic!("copy {}: {e}", path.display()));
}

/// The shared libraries `exe` loads, as `ldd` resolves them.
fn libraries(exe: &Path) -> Vec<PathBuf> {
    let out = Command::new("ldd").arg(exe).output().expect("run ldd");
    String::from_utf8_lossy(&out.stdout)
        .split_whitespace()
        .filter(|w| w.starts_with('/'))
        .map(PathBuf::from)
        .collect()
}

/// Writes the folder `root` as a newc cpio archive (what the kernel unpacks as its initramfs).
fn pack(root: &Path, to: &Path) {
    let list = Command::new("find")
        .arg(".")
        .current_dir(root)
        .output()
        .expect("run find");
    let mut cpio = Command::new(busybox())
        .args(["cpio", "-o", "-H", "newc"])
        .current_dir(root)
        .stdin(Stdio::piped())
        .stdout(std::fs::File::create(to).unwrap())
        .stderr(Stdio::null())
        .spawn()
        .expect("run busybox cpio");
    use std::io::Write;
    cpio.stdin.take().unwrap().write_all(&list.stdout).unwrap();
    assert!(cpio.wait().unwrap().success(), "busybox cpio failed");
}

/// Boots the kernel with `initrd` on two emulated CPUs and returns the serial console's text;
/// the VM is killed after `limit` (its init powers it off when the test ends).
fn boot(initrd: &Path, limit: Duration) -> String {
    let log = initrd.with_file_name("console.log");
    let mut qemu = Command::new("qemu-system-x86_64")
        .args(["-accel", "tcg", "-cpu", "max", "-smp", "2", "-m", "1024"])
        .args(["-nodefaults", "-display", "none", "-serial", "stdio"])
        .args(["-no-reboot", "-kernel"])
        .arg(kernel())
        .arg("-initrd")
        .arg(initrd)
        .args(["-append", "console=ttyS0 panic=-1 quiet"])
        .stdin(Stdio::null())
        .stdout(std::fs::File::create(&log).unwrap())
        .stderr(Stdio::inherit())
        .spawn()
        .expect("run qemu-system-x86_64 (qemu-system-x86): run scripts/test-deps");
    let start = Instant::now();
    let mut stopped = String::new();
    while qemu.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = qemu.kill();
            let _ = qemu.wait();
            stopped = format!("\n(the VM was stopped after {limit:?})");
            break;
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    String::from_utf8_lossy(&std::fs::read(&log).unwrap()).into_owned() + &stopped
}
