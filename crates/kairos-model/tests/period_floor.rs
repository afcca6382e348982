//! Periods below `decode::MIN_PERIOD` are warned about where they are written, in every kind
//! of file, while other short durations (a WCET, an offset) are not.

use kairos_model::decode::MIN_PERIOD;
use kairos_model::mc_load::check_mc_source;
use kairos_model::vm_load::check_vm_source;
use kairos_model::{check_source, Diagnostics, Format, Severity};

/// The field paths of the warnings, with their line.
fn warned(diagnostics: &Diagnostics) -> Vec<(String, usize)> {
    (diagnostics.iter())
        .filter(|d| d.severity == Severity::Warning && d.message.contains("below"))
        .map(|d| (d.path.clone().unwrap(), d.position.unwrap().line))
        .collect()
}

#[test]
fn the_floor_is_one_microsecond() {
    assert_eq!(MIN_PERIOD.as_nanos(), 1_000);
}

#[test]
fn a_task_period_below_the_floor_is_located_and_a_short_wcet_is_not() {
    let source = "cores = 1\n[[tasks]]\nname = \"a\"\nwcet = \"100ns\"\nperiod = \"999ns\"\n\
                  [[tasks]]\nname = \"b\"\nwcet = \"100ns\"\nperiod = \"1us\"\n";
    let checked = check_source(source, Format::Toml);
    assert_eq!(
        warned(&checked.diagnostics),
        [("tasks[0].period".to_string(), 5)]
    );
    assert!(
        checked.workload.is_some(),
        "a warning does not refuse the file"
    );
}

#[test]
fn a_vcpu_period_of_one_nanosecond_is_located() {
    let source = "cores = 1\n[vmm]\nscheduler = \"rt-global\"\nvcpu_period = \"1ns\"\n\
                  [[domains]]\nname = \"d\"\nguest = \"pedf\"\nvcpus = \"auto\"\n\
                  [[domains.tasks]]\nname = \"t\"\nwcet = \"1ms\"\nperiod = \"10ms\"\n";
    let checked = check_vm_source(source, Format::Toml);
    assert_eq!(
        warned(&checked.diagnostics),
        [("vmm.vcpu_period".to_string(), 4)]
    );
}

#[test]
fn a_dag_period_below_the_floor_is_located() {
    let source = "cores = 1\nlevels = [\"LO\"]\n[[dags]]\nname = \"g\"\nperiod = \"10ns\"\n\
                  [[dags.tasks]]\nname = \"a\"\nwcet = [\"1ns\"]\n";
    let checked = check_mc_source(source, Format::Toml);
    assert_eq!(
        warned(&checked.diagnostics),
        [("dags[0].period".to_string(), 5)]
    );
}
