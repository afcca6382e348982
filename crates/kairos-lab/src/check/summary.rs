//! What `kairos check` says a valid input is, per kind, and the preparation the commands that
//! take the kind make before they run (a VM system's interfaces and plan, an experiment
//! config's resolution), reported as diagnostics.

use crate::experiment::{decode, guarantees, vm as study};
use crate::vm::{prepare, summary as vm_summary};
use kairos_model::input::{Input, InputKind, Loaded, SimsoRun};
use kairos_model::managed::ManagedSystem;
use kairos_model::{Diagnostic, McSystem, Overheads, Workload};
use serde_json::{json, Value};
use std::path::Path;

/// A summary in both forms.
pub struct Summary {
    pub text: String,
    pub json: Value,
}

fn line(text: String) -> Summary {
    Summary {
        json: Value::String(text.clone()),
        text,
    }
}

/// The summary of `loaded` (when it loaded), after adding to its diagnostics what the
/// commands that take its kind would refuse.
pub fn of(path: &Path, source: &str, loaded: &mut Loaded) -> Option<Summary> {
    let kind = loaded.kind?;
    if kind == InputKind::Experiment {
        return experiment(path, source, loaded);
    }
    Some(match loaded.input.as_ref()? {
        Input::Workload(w) => workload(w, loaded.simso.as_ref()),
        Input::Mc(system) => mc(system),
        Input::Vm(system) => {
            if let Err(refusal) = prepare(system) {
                let hint = "`kairos analyze` on the file shows each domain's interface";
                let error = Diagnostic::error(refusal.message).with_hint(hint);
                (loaded.diagnostics).push(match refusal.path {
                    Some(field) => {
                        let format = kairos_model::input::format_of(path);
                        let at = kairos_model::vm_load::locate(source, format, &field);
                        error.at_path(field).at_position(at)
                    }
                    None => error,
                });
            }
            line(vm_summary(system))
        }
        Input::Managed(system) => line(managed(system)),
        Input::Overheads(overheads) => line(overheads_line(overheads)),
        Input::Experiment => return None,
    })
}

/// `N task(s) on M core(s), utilization U`.
fn workload_line(w: &Workload) -> String {
    format!(
        "{} task(s) on {} core(s), utilization {:.3}",
        w.tasks.len(),
        w.cores,
        w.total_utilization()
    )
}

fn workload(w: &Workload, simso: Option<&SimsoRun>) -> Summary {
    let mut json = json!({
        "tasks": w.tasks.len(),
        "cores": w.cores,
        "utilization": w.total_utilization(),
    });
    let mut text = workload_line(w);
    if let Some(run) = simso {
        let policy = run.policy.unwrap_or("no kairos policy with the same rules");
        text.push_str(&format!(
            "; SimSo's scheduler {} ({policy}) for {}",
            run.scheduler, run.duration
        ));
        json["simso"] = json!({
            "scheduler": run.scheduler,
            "policy": run.policy,
            "duration_ns": run.duration.as_nanos(),
            "notes": run.notes,
        });
    }
    Summary { text, json }
}

fn mc(s: &McSystem) -> Summary {
    let tasks: usize = s.dags.iter().map(|d| d.tasks.len()).sum();
    let utilization: Vec<f64> = (0..s.level_count()).map(|l| s.utilization_at(l)).collect();
    let at_levels: Vec<String> = (s.levels.iter().zip(&utilization))
        .map(|(name, u)| format!("{name} {u:.3}"))
        .collect();
    let hyperperiod = s.hyperperiod();
    let text = format!(
        "{} DAG(s), {tasks} task(s), {} level(s) on {} core(s), utilization {}, hyper-period {}",
        s.dags.len(),
        s.level_count(),
        s.cores,
        at_levels.join(", "),
        hyperperiod.map_or_else(|| "overflows".to_string(), |h| h.to_string()),
    );
    let json = json!({
        "dags": s.dags.len(),
        "tasks": tasks,
        "levels": s.levels,
        "cores": s.cores,
        "utilization": utilization,
        "hyperperiod_ns": hyperperiod.map(|h| h.as_nanos()),
    });
    Summary { text, json }
}

/// One line on a managed system: the RT task, the period and every core's partition.
fn managed(s: &ManagedSystem) -> String {
    let p = s.manager.period;
    let cores: Vec<String> = (s.allocations.iter().enumerate())
        .map(|(c, a)| {
            format!(
                "core {c} RT {} BE {} idle {}",
                a.rt,
                a.be,
                a.idle(p).unwrap_or_default()
            )
        })
        .collect();
    format!(
        "managed system, RT task {} on core {} (A {}, D {}), P {}: {}; {} best-effort program(s)",
        s.rt.name,
        s.rt.core.0,
        s.rt.period,
        s.rt.deadline,
        p,
        cores.join(", "),
        s.best_effort.len()
    )
}

/// The medians of an overhead profile's costs (a measured cost is drawn per switch); the
/// analysis-only ones when given.
fn overheads_line(o: &Overheads) -> String {
    let costs: Vec<String> = (o.costs().iter().enumerate())
        .filter(|(i, (_, cost))| *i < 3 || !cost.is_zero())
        .map(|(_, (key, cost))| format!("{} {}", key.replace('_', " "), cost.median()))
        .collect();
    format!("overhead profile, medians: {}", costs.join(", "))
}

/// An experiment config, resolved as `kairos experiment` resolves it.
fn experiment(path: &Path, source: &str, loaded: &mut Loaded) -> Option<Summary> {
    if guarantees::is_study(source) {
        let (study, diagnostics) = guarantees::check(path, source);
        loaded.diagnostics.0.extend(diagnostics.0);
        return Some(line(guarantees::describe(&study?)));
    }
    if study::is_study(source) {
        let (study, diagnostics) = study::check(source);
        loaded.diagnostics.0.extend(diagnostics.0);
        return Some(line(study::describe(&study?)));
    }
    let (config, diagnostics) = decode::check(path, source);
    loaded.diagnostics.0.extend(diagnostics.0);
    let config = config?;
    Some(line(format!(
        "experiment {}: {} point(s) of {} set(s), {} method(s), {} core(s)",
        config.name,
        config.points.len(),
        config.samples,
        config.methods.len(),
        config.cores
    )))
}
