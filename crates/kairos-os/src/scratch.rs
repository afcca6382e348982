//! kairos's private folders under the system's temporary directory, named `PREFIX` + the
//! owning process's id (+ `-N`). A run killed outright cannot remove its own; the next run that
//! makes a folder of the same kind removes those whose process no longer exists.

use std::path::PathBuf;

/// The folder `PREFIX{pid}{suffix}` for this process, after removing the orphans of its kind.
pub fn private_folder(prefix: &str, suffix: &str) -> std::io::Result<PathBuf> {
    remove_orphans(prefix);
    let name = format!("{prefix}{}{suffix}", std::process::id());
    let path = std::env::temp_dir().join(name);
    std::fs::create_dir_all(&path)?;
    Ok(path)
}

/// Removes the `prefix` folders whose owning process no longer exists.
fn remove_orphans(prefix: &str) {
    let Ok(entries) = std::fs::read_dir(std::env::temp_dir()) else {
        return;
    };
    for entry in entries.flatten() {
        let name = entry.file_name().to_string_lossy().into_owned();
        let owner = name
            .strip_prefix(prefix)
            .and_then(|rest| rest.split('-').next())
            .and_then(|pid| pid.parse::<libc::pid_t>().ok());
        if owner.is_some_and(|pid| !process_exists(pid)) {
            let _ = std::fs::remove_dir_all(entry.path());
        }
    }
}

fn process_exists(pid: libc::pid_t) -> bool {
    // SAFETY: signal 0 only checks that the process exists.
    let alive = unsafe { libc::kill(pid, 0) } == 0;
    alive || std::io::Error::last_os_error().raw_os_error() != Some(libc::ESRCH)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_dead_process_folder_is_removed_and_a_live_one_kept() {
        let prefix = "kairos-scratch-test-";
        // A process that has exited and been reaped: its id names no process (until reused,
        // which the check below would reveal as a kept folder).
        let mut child = std::process::Command::new("true").spawn().unwrap();
        let dead = child.id();
        child.wait().unwrap();
        let orphan = std::env::temp_dir().join(format!("{prefix}{dead}-0"));
        std::fs::create_dir_all(orphan.join("inside")).unwrap();
        let mine = private_folder(prefix, "-1").unwrap();
        assert!(!orphan.exists(), "{} stayed", orphan.display());
        assert!(mine.is_dir());
        let again = private_folder(prefix, "-2").unwrap();
        assert!(mine.is_dir(), "a live process's folder is kept");
        std::fs::remove_dir_all(mine).unwrap();
        std::fs::remove_dir_all(again).unwrap();
    }
}
