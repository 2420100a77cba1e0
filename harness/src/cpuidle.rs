//! How this machine's CPUs idle, as `/sys` shows it: the cpuidle driver and governor
//! (`haltpoll` in a KVM guest that polls before it halts, `intel_idle`, `acpi_idle` ...),
//! and the halt-polling parameters of the guest's `haltpoll` and `cpuidle_haltpoll`
//! modules and of `kvm` where it is loaded. They decide much of what a wake-up costs
//! ([`crate::ping_pong`]), so the machine record names them beside it.

use std::collections::BTreeMap;
use std::path::Path;

use serde::{Deserialize, Serialize};

/// Where the cpuidle driver and governor are, under `/sys`.
const CPUIDLE: &str = "devices/system/cpu/cpuidle";

/// The modules whose every parameter concerns halt-polling, under `/sys/module`.
const HALT_POLL_MODULES: [&str; 2] = ["haltpoll", "cpuidle_haltpoll"];

/// The one `kvm` parameter that concerns it (the host side, shown when kvm is loaded).
const KVM_HALT_POLL: &str = "kvm/parameters/halt_poll_ns";

/// The idle settings `/sys` shows; what it does not show is `None` or left out.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct IdleSettings {
    /// `cpuidle/current_driver`, e.g. `haltpoll`.
    pub driver: Option<String>,
    /// `cpuidle/current_governor`, or `current_governor_ro` where only that exists.
    pub governor: Option<String>,
    /// Halt-polling parameters, `module.parameter` to value, e.g.
    /// `haltpoll.guest_halt_poll_ns` to `200000`.
    pub halt_poll: BTreeMap<String, String>,
}

impl IdleSettings {
    /// This machine's settings, from `/sys`.
    pub fn read() -> IdleSettings {
        IdleSettings::read_from(Path::new("/sys"))
    }

    /// The settings under `sys`, a directory laid out as `/sys` is.
    pub fn read_from(sys: &Path) -> IdleSettings {
        let cpuidle = sys.join(CPUIDLE);
        let mut halt_poll = BTreeMap::new();
        for module in HALT_POLL_MODULES {
            let parameters = sys.join("module").join(module).join("parameters");
            let Ok(entries) = std::fs::read_dir(&parameters) else {
                continue;
            };
            for entry in entries.filter_map(Result::ok) {
                let name = entry.file_name().to_string_lossy().into_owned();
                if let Some(value) = value(&entry.path()) {
                    halt_poll.insert(format!("{module}.{name}"), value);
                }
            }
        }
        if let Some(value) = value(&sys.join("module").join(KVM_HALT_POLL)) {
            halt_poll.insert("kvm.halt_poll_ns".into(), value);
        }
        IdleSettings {
            driver: value(&cpuidle.join("current_driver")),
            governor: value(&cpuidle.join("current_governor"))
                .or_else(|| value(&cpuidle.join("current_governor_ro"))),
            halt_poll,
        }
    }

    /// "cpuidle haltpoll/haltpoll": the driver and governor, `?` for one not shown, or
    /// "no cpuidle shown".
    pub fn describe(&self) -> String {
        match (&self.driver, &self.governor) {
            (None, None) => "no cpuidle shown".into(),
            (driver, governor) => format!(
                "cpuidle {}/{}",
                driver.as_deref().unwrap_or("?"),
                governor.as_deref().unwrap_or("?")
            ),
        }
    }
}

/// The trimmed text of the file at `path`; `None` when it cannot be read or is empty.
fn value(path: &Path) -> Option<String> {
    let text = std::fs::read_to_string(path).ok()?;
    Some(text.trim().to_string()).filter(|v| !v.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    /// A directory laid out as `/sys`, with `files` (path, content) in it.
    fn fixture(name: &str, files: &[(&str, &str)]) -> PathBuf {
        let root = std::env::temp_dir().join(format!("cpuidle-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&root);
        for (path, content) in files {
            let path = root.join(path);
            std::fs::create_dir_all(path.parent().unwrap()).unwrap();
            std::fs::write(path, content).unwrap();
        }
        root
    }

    #[test]
    fn a_guest_with_haltpoll_names_driver_governor_and_every_halt_poll_parameter() {
        let sys = fixture(
            "guest",
            &[
                ("devices/system/cpu/cpuidle/current_driver", "haltpoll\n"),
                ("devices/system/cpu/cpuidle/current_governor", "haltpoll\n"),
                ("devices/system/cpu/cpuidle/current_governor_ro", "menu\n"),
                ("module/haltpoll/parameters/guest_halt_poll_ns", "200000\n"),
                ("module/haltpoll/parameters/guest_halt_poll_grow", "2\n"),
                ("module/cpuidle_haltpoll/parameters/force", "Y\n"),
                ("module/kvm/parameters/halt_poll_ns", "0\n"),
                ("module/kvm/parameters/ignore_msrs", "N\n"),
            ],
        );
        let settings = IdleSettings::read_from(&sys);
        std::fs::remove_dir_all(&sys).unwrap();
        assert_eq!(settings.driver.as_deref(), Some("haltpoll"));
        assert_eq!(settings.governor.as_deref(), Some("haltpoll"));
        let halt_poll: Vec<(&str, &str)> = settings
            .halt_poll
            .iter()
            .map(|(k, v)| (k.as_str(), v.as_str()))
            .collect();
        assert_eq!(
            halt_poll,
            [
                ("cpuidle_haltpoll.force", "Y"),
                ("haltpoll.guest_halt_poll_grow", "2"),
                ("haltpoll.guest_halt_poll_ns", "200000"),
                ("kvm.halt_poll_ns", "0"),
            ]
        );
        assert_eq!(settings.describe(), "cpuidle haltpoll/haltpoll");
    }

    #[test]
    fn the_read_only_governor_serves_when_the_other_is_absent() {
        let sys = fixture(
            "ro",
            &[
                ("devices/system/cpu/cpuidle/current_driver", "intel_idle\n"),
                ("devices/system/cpu/cpuidle/current_governor_ro", "menu\n"),
            ],
        );
        let settings = IdleSettings::read_from(&sys);
        std::fs::remove_dir_all(&sys).unwrap();
        assert_eq!(settings.governor.as_deref(), Some("menu"));
        assert!(settings.halt_poll.is_empty());
        assert_eq!(settings.describe(), "cpuidle intel_idle/menu");
    }

    #[test]
    fn nothing_shown_is_none_and_said_so() {
        let sys = fixture("empty", &[("devices/system/cpu/cpuidle/current_driver", "\n")]);
        let settings = IdleSettings::read_from(&sys);
        std::fs::remove_dir_all(&sys).unwrap();
        assert_eq!(settings, IdleSettings::default());
        assert_eq!(settings.describe(), "no cpuidle shown");
    }
}
