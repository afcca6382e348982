use super::*;
use crate::vm::{GuestScheduler, ServerKind, VmmScheduler};

const GOOD: &str = r#"
name = "two"
cores = 2

[vmm]
scheduler = "rt-partition"
server = "periodic"
quantum = "1ms"

[[domains]]
name = "a"
guest = "pedf"
[[domains.vcpus]]
budget = "4ms"
period = "10ms"
cpus = [1]
[[domains.tasks]]
name = "t"
wcet = "1ms"
period = "20ms"
core = 0

[[domains]]
name = "b"
guest = "gedf"
[[domains.tasks]]
name = "t"
wcet = "2ms"
period = "30ms"
deadline = "25ms"
"#;

fn errors(source: &str) -> Vec<String> {
    let checked = check_vm_source(source, Format::Toml);
    checked
        .diagnostics
        .iter()
        .map(|d| format!("{}: {}", d.path.clone().unwrap_or_default(), d.message))
        .collect()
}

#[test]
fn a_good_system_decodes_and_writes_back_to_itself() {
    let checked = check_vm_source(GOOD, Format::Toml);
    let system = checked.system.expect("valid");
    assert_eq!(
        checked.diagnostics.iter().count(),
        0,
        "{:?}",
        checked.diagnostics
    );
    assert_eq!(system.vmm.scheduler, VmmScheduler::RtPartition);
    assert_eq!(system.vmm.server, ServerKind::Periodic);
    assert_eq!(system.domains[1].guest, GuestScheduler::Gedf);
    assert!(system.domains[1].vcpus.is_none(), "absent vcpus are auto");
    assert_eq!(system.domains[0].vcpus.as_ref().unwrap()[0].name, "v0");
    let again = check_vm_source(&to_toml(&system), Format::Toml);
    assert_eq!(
        again.system.as_ref(),
        Some(&system),
        "{:?}",
        again.diagnostics
    );
}

#[test]
fn is_a_vm_file_when_it_has_domains_or_a_vmm() {
    use crate::input::{detect, InputKind};
    let kind = |source: &str| detect(std::path::Path::new("f.toml"), source);
    assert_eq!(kind(GOOD), Ok(InputKind::Vm));
    assert_eq!(kind("cores = 1\n[vmm]\n"), Ok(InputKind::Vm));
    assert_eq!(kind("cores = 1\n[[tasks]]\n"), Ok(InputKind::Workload));
}

#[test]
fn every_problem_is_reported_where_it_is() {
    let bad = GOOD
        .replace("\"rt-partition\"", "\"rt-partitioned\"")
        .replace("budget = \"4ms\"", "budget = \"14ms\"")
        .replace("cpus = [1]", "cpus = [2]")
        .replace("core = 0", "core = 3")
        .replace("name = \"b\"", "name = \"a\"");
    let found = errors(&bad);
    assert_eq!(
        found,
        ["vmm.scheduler: unknown scheduler \"rt-partitioned\""]
    );
    // Rules run on a system that decoded: the scheduler's error stops them; without it, the rest.
    let found = errors(&bad.replace("\"rt-partitioned\"", "\"rt-partition\""));
    for expected in [
        "domains[0].vcpus[0].budget: budget 14ms exceeds the period 10ms",
        "domains[0].vcpus[0].cpus[0]: core 2 does not exist",
        "domains[0].tasks[0].core: VCPU 3 does not exist",
        "domains[1].name: duplicate domain name `a`",
    ] {
        assert!(
            found.iter().any(|f| f.starts_with(expected)),
            "{expected} in {found:?}"
        );
    }
}

#[test]
fn guests_take_plain_tasks_and_partitioned_ones_need_their_vcpu() {
    let parts = GOOD.replace(
        "wcet = \"2ms\"",
        "mandatory = \"1ms\"\noptional = \"1ms\"\nwindup = \"1ms\"",
    );
    assert!(errors(&parts)
        .iter()
        .any(|e| e
            .starts_with("domains[1].tasks[0].mandatory: a guest task has no `mandatory` part")));
    let unplaced = GOOD.replace("core = 0\n", "");
    assert!(errors(&unplaced)
        .iter()
        .any(|e| e.contains("needs its VCPU")));
}

#[test]
fn weights_outside_credit_and_overloaded_vcpus_are_warned() {
    let warned = GOOD
        .replace("guest = \"gedf\"", "guest = \"gedf\"\nweight = 512")
        .replace("budget = \"4ms\"", "budget = \"10ms\"")
        .replace("cores = 2", "cores = 2\n")
        .replace("[[domains.tasks]]\nname = \"t\"\nwcet = \"1ms\"", "[[domains.vcpus]]\nbudget = \"10ms\"\nperiod = \"10ms\"\n[[domains.vcpus]]\nbudget = \"5ms\"\nperiod = \"10ms\"\n[[domains.tasks]]\nname = \"t\"\nwcet = \"1ms\"");
    let checked = check_vm_source(&warned, Format::Toml);
    let text: Vec<String> = checked
        .diagnostics
        .iter()
        .map(|d| d.message.clone())
        .collect();
    assert!(checked.system.is_some(), "warnings only: {text:?}");
    assert!(
        text.iter()
            .any(|t| t.contains("only the credit scheduler reads weight")),
        "{text:?}"
    );
    assert!(
        text.iter()
            .any(|t| t.contains("bandwidth 2.500 exceeds the 2 core(s)")),
        "{text:?}"
    );
}
