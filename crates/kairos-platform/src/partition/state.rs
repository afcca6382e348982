//! What a partition changed on the machine, recorded before each change is made (a state file
//! under /run, which a reboot clears along with the changes), so that `kairos partition
//! --reset` can undo it after a crash as well as after a clean run.

use serde::{Deserialize, Serialize};
use std::io::Write;
use std::path::PathBuf;

/// How the partition keeps best-effort work off the RT cores.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Mechanism {
    /// cgroup v1 cpusets `kairos-rt` and `kairos-be`; every task of the root cpuset moved to
    /// `kairos-be`.
    CgroupV1,
    /// cgroup v2: `kairos-rt` a cpuset partition root, which the kernel keeps every other
    /// thread off.
    CgroupV2,
    /// Affinity masks alone: every task's affinity set to the best-effort CPUs.
    Affinity,
}

/// One change, with what undoes it.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "kebab-case")]
pub enum Change {
    /// A cpuset created (removed on reset, its tasks moved back to `parent` first).
    Cgroup { path: PathBuf, parent: PathBuf },
    /// A thread moved from the root cpuset, with its affinity before the move (the move
    /// replaces it with the cpuset's CPUs).
    Moved { tid: i32, affinity: Vec<usize> },
    /// A thread's affinity changed.
    Affinity { tid: i32, previous: Vec<usize> },
    /// A cgroup v2 controller (`cpuset`, `cpu`) enabled in `root`'s subtree (disabled on
    /// reset).
    Controller {
        root: PathBuf,
        #[serde(default = "cpuset")]
        name: String,
    },
    /// A control file's value before kairos wrote it (written back on reset).
    Setting { path: PathBuf, previous: String },
    /// An interrupt's affinity changed (`/proc/irq/N/smp_affinity_list`).
    Irq { irq: u32, previous: String },
}

fn cpuset() -> String {
    "cpuset".into()
}

/// The partition in place.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct State {
    /// The kairos process that made it.
    pub pid: u32,
    pub rt: Vec<usize>,
    pub be: Vec<usize>,
    pub mechanism: Mechanism,
    /// The cpusets, when cgroups are used: (RT, BE).
    pub cpusets: Option<(PathBuf, PathBuf)>,
    pub changes: Vec<Change>,
}

/// Where the state lives: `KAIROS_STATE_DIR` or /run/kairos.
pub fn state_dir() -> PathBuf {
    std::env::var_os("KAIROS_STATE_DIR").map_or_else(|| PathBuf::from("/run/kairos"), PathBuf::from)
}

pub fn state_file() -> PathBuf {
    state_dir().join("partition.json")
}

impl State {
    /// The partition in place, if any.
    pub fn load() -> std::io::Result<Option<State>> {
        match std::fs::read_to_string(state_file()) {
            Ok(text) => serde_json::from_str(&text)
                .map(Some)
                .map_err(|e| std::io::Error::other(format!("{}: {e}", state_file().display()))),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// Writes the state durably (a new file renamed over the old one, synced): called with
    /// the changes about to be made, before making them.
    pub fn save(&self) -> std::io::Result<()> {
        let dir = state_dir();
        std::fs::create_dir_all(&dir)?;
        let tmp = dir.join("partition.json.new");
        let mut file = std::fs::File::create(&tmp)?;
        file.write_all(
            serde_json::to_string_pretty(self)
                .expect("state serializes")
                .as_bytes(),
        )?;
        file.sync_all()?;
        std::fs::rename(&tmp, state_file())
    }

    pub fn remove() -> std::io::Result<()> {
        match std::fs::remove_file(state_file()) {
            Err(e) if e.kind() != std::io::ErrorKind::NotFound => Err(e),
            _ => Ok(()),
        }
    }
}

/// "0-2,5" from a sorted list.
pub fn cpu_list(cpus: &[usize]) -> String {
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < cpus.len() {
        let mut j = i;
        while j + 1 < cpus.len() && cpus[j + 1] == cpus[j] + 1 {
            j += 1;
        }
        parts.push(match i == j {
            true => cpus[i].to_string(),
            false => format!("{}-{}", cpus[i], cpus[j]),
        });
        i = j + 1;
    }
    parts.join(",")
}

/// "0-2,5" to a sorted list.
pub fn parse_cpu_list(text: &str) -> Result<Vec<usize>, String> {
    let mut cpus = Vec::new();
    for part in text.trim().split(',').filter(|p| !p.is_empty()) {
        let bad = || format!("{text:?}: a CPU list such as 1 or 0-3,6");
        match part.split_once('-') {
            Some((a, b)) => {
                let (a, b): (usize, usize) =
                    (a.parse().map_err(|_| bad())?, b.parse().map_err(|_| bad())?);
                if a > b {
                    return Err(bad());
                }
                cpus.extend(a..=b);
            }
            None => cpus.push(part.parse().map_err(|_| bad())?),
        }
    }
    cpus.sort_unstable();
    cpus.dedup();
    Ok(cpus)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_lists_round_trip() {
        for (text, cpus) in [
            ("1", vec![1]),
            ("0-3,6", vec![0, 1, 2, 3, 6]),
            ("0,2-3", vec![0, 2, 3]),
        ] {
            assert_eq!(parse_cpu_list(text).unwrap(), cpus);
            assert_eq!(cpu_list(&cpus), text);
        }
        assert!(parse_cpu_list("3-1").is_err());
        assert!(parse_cpu_list("x").is_err());
    }
}
