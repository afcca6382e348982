use super::*;
use std::path::PathBuf;

fn kind(name: &str, source: &str) -> Result<InputKind, Diagnostic> {
    detect(Path::new(name), source)
}

#[test]
fn each_kind_is_told_by_its_keys() {
    let cases = [
        ("cores = 1\n[[tasks]]\nname = \"a\"\n", InputKind::Workload),
        (
            "levels = [\"LO\"]\n[[dags]]\nname = \"d\"\n",
            InputKind::McDag,
        ),
        ("cores = 2\n[vmm]\nscheduler = \"credit\"\n", InputKind::Vm),
        ("[manager]\nperiod = \"10ms\"\n", InputKind::Managed),
        (
            "seed = 1\n[utilization]\nfrom = 1.0\n",
            InputKind::Experiment,
        ),
        ("study = \"rt-xen\"\n", InputKind::Experiment),
        ("[overheads]\nscheduling = \"1us\"\n", InputKind::Overheads),
        (
            "cores = 1\n[overheads]\n[[tasks]]\nname = \"a\"\n",
            InputKind::Workload,
        ),
        ("name = \"nothing\"\n", InputKind::Workload),
        ("this is not toml =", InputKind::Workload),
    ];
    for (source, want) in cases {
        assert_eq!(kind("f.toml", source), Ok(want), "{source}");
    }
    let json = r#"{"cores": 2, "domains": []}"#;
    assert_eq!(kind("f.json", json), Ok(InputKind::Vm));
}

#[test]
fn keys_of_two_kinds_are_refused_where_the_second_begins() {
    let source = "cores = 2\n[[tasks]]\nname = \"a\"\n\n[vmm]\nscheduler = \"credit\"\n";
    let refused = kind("f.toml", source).unwrap_err();
    assert!(refused.is_error());
    assert_eq!(refused.position.map(|p| p.line), Some(5), "{refused:?}");
    assert!(
        refused
            .message
            .contains("`tasks` makes this file a periodic workload")
            && refused.message.contains("`vmm` makes it a VM system"),
        "{}",
        refused.message
    );
}

#[test]
fn xml_is_told_by_its_root_element() {
    let declared = "<?xml version=\"1.0\"?>\n<!-- a comment <x> -->\n<!DOCTYPE m>\n<mcsystem>";
    assert_eq!(kind("a.xml", declared), Ok(InputKind::McDagXml));
    assert_eq!(
        kind("a.XML", "<simulation a=\"1\"/>"),
        Ok(InputKind::SimsoXml)
    );
    // Named otherwise, XML is still XML.
    assert_eq!(kind("a.toml", "  <mcsystem/>"), Ok(InputKind::McDagXml));
    let other = kind("a.xml", "<?xml version=\"1.0\"?>\n<project>").unwrap_err();
    assert_eq!(other.message, "the root element is <project>");
    assert_eq!(other.position.map(|p| (p.line, p.column)), Some((2, 1)));
    assert!(kind("a.xml", "no element at all").is_err());
}

#[test]
fn a_simso_configuration_loads_as_a_workload_with_simsos_run() {
    let source = r#"<?xml version="1.0" ?>
<simulation cycles_per_ms="1000000" duration="100000000" etm="wcet">
  <sched class="simso.schedulers.EDF"/>
  <processors><processor id="1" name="CPU1" speed="1.0"/></processors>
  <tasks>
    <task WCET="2" deadline="10" id="1" name="T1" period="10" activationDate="0" task_type="Periodic"/>
  </tasks>
</simulation>"#;
    let loaded = load(Path::new("run.xml"), source, &LoadOptions::default());
    assert_eq!(loaded.kind, Some(InputKind::SimsoXml));
    let Some(Input::Workload(w)) = &loaded.input else {
        panic!("{:?}", loaded.diagnostics)
    };
    assert_eq!((w.cores, w.tasks.len()), (1, 1));
    let run = loaded.simso.expect("SimSo's run");
    assert_eq!(run.policy, Some("gedf"));
    assert_eq!(run.duration, Duration::from_millis(100));
}

#[test]
fn a_conflict_loads_nothing_and_says_why() {
    let loaded = load(
        Path::new("f.toml"),
        "[manager]\n[[dags]]\n",
        &LoadOptions::default(),
    );
    assert!(loaded.input.is_none() && loaded.kind.is_none());
    assert_eq!(loaded.diagnostics.error_count(), 1);
}

/// Every example of the repository is the kind its folder says, and every one but the MC-DAG
/// framework's files that hold DAGs it cannot read loads without an error.
#[test]
fn every_example_is_its_kind() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../../examples");
    let expected = |path: &Path| -> Option<InputKind> {
        let text = path.to_string_lossy();
        let ext = path.extension()?.to_str()?;
        if !["toml", "json", "xml"].contains(&ext) {
            return None;
        }
        Some(match () {
            _ if text.contains("/experiments/") => InputKind::Experiment,
            _ if text.contains("/manage/") => InputKind::Managed,
            _ if text.contains("/vm/") => InputKind::Vm,
            _ if text.contains("/simso/") => InputKind::SimsoXml,
            _ if ext == "xml" => InputKind::McDagXml,
            _ if text.contains("/mcdag/") => InputKind::McDag,
            _ if text.contains("/overheads/") => InputKind::Overheads,
            _ => InputKind::Workload,
        })
    };
    let mut seen = 0;
    let mut stack = vec![root];
    while let Some(dir) = stack.pop() {
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.is_dir() {
                stack.push(path);
                continue;
            }
            let Some(want) = expected(&path) else {
                continue;
            };
            let source = std::fs::read_to_string(&path).unwrap();
            let loaded = load(&path, &source, &LoadOptions::default());
            assert_eq!(loaded.kind, Some(want), "{}", path.display());
            let unreadable_dags = want == InputKind::McDagXml && loaded.diagnostics.has_errors();
            assert!(
                loaded.input.is_some() || unreadable_dags,
                "{}: {:?}",
                path.display(),
                loaded.diagnostics
            );
            seen += 1;
        }
    }
    assert!(seen >= 30, "{seen} examples");
}
