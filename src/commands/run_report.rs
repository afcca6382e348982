//! What `kairos run` prints and writes once a run is over: the report (text, or JSON with the
//! comparison), the exit code, `--gantt` and `--trace`.

use super::run::{Args, EXIT_INTERRUPTED};
use crate::args::{write_output, CommandResult, Failure};
use kairos_lab::compare as run_compare;
use kairos_lab::text::human_ns;
use kairos_model::Workload;
use kairos_rt::measure::{RunResult, Summary};
use kairos_trace::gantt::{render_levels_svg, render_svg, GanttOptions};
use kairos_trace::Trace;

/// What a kind of run reports besides the common result: JSON fields and a text section.
#[derive(Default)]
pub(super) struct Extra {
    pub fields: Vec<(&'static str, serde_json::Value)>,
    pub text: String,
}

/// Prints a finished run (text or JSON, with the comparison when there is a simulation),
/// writes `--gantt`/`--trace` and returns the exit code.
pub(super) fn report(
    args: &Args,
    workload: &Workload,
    result: &RunResult,
    simulated: Option<&Trace>,
) -> CommandResult {
    report_with(args, workload, result, simulated, Extra::default())
}

/// [`report`] with `extra` fields and text after the common ones.
pub(super) fn report_with(
    args: &Args,
    workload: &Workload,
    result: &RunResult,
    simulated: Option<&Trace>,
    extra: Extra,
) -> CommandResult {
    let compared = simulated.map(|sim| run_compare::compare(&result.trace, sim));
    if args.json {
        let mut json = serde_json::to_value(result).expect("run result serializes");
        if let (Some(c), Some(map)) = (&compared, json.as_object_mut()) {
            map.insert(
                "compare".into(),
                serde_json::to_value(c).expect("comparison serializes"),
            );
        }
        if let Some(map) = json.as_object_mut() {
            for (key, value) in extra.fields {
                map.insert(key.into(), value);
            }
        }
        println!(
            "{}",
            serde_json::to_string_pretty(&json).expect("JSON prints")
        );
    } else {
        print!("{}", summary(workload, result));
        if let (Some(sim), Some(c)) = (simulated, &compared) {
            print!("{}", run_compare::job_by_job(workload, &result.trace, sim));
            print!("{}", c.line());
        }
        print!("{}", extra.text);
    }
    if let Some(path) = &args.report {
        let page = kairos_lab::report::run::page(
            &args.file.display().to_string(),
            workload,
            result,
            simulated,
            compared.as_ref(),
        );
        crate::args::write_output(path, page)?;
        eprintln!("wrote {}", path.display());
    }
    let name = workload.name.as_deref().unwrap_or("workload");
    write_outputs(
        args,
        format!("{name}: measured under {}", result.policy),
        &result.trace,
        simulated,
    )?;
    Ok(exit_code(args, result))
}

pub(super) fn exit_code(args: &Args, result: &RunResult) -> u8 {
    let interrupted = result
        .stopped_by
        .as_deref()
        .is_some_and(|why| why.starts_with("SIG"));
    if interrupted {
        EXIT_INTERRUPTED
    } else if args.fail_on_miss && result.deadline_misses > 0 {
        crate::exit::NO
    } else {
        0
    }
}

/// The first lines of every run report: what ran where and for how long, an early stop, and
/// the calibration. `under` names the policy (and, for tables, where they came from).
pub(super) fn report_header(name: &str, under: &str, r: &RunResult) -> String {
    let cpus: Vec<String> = r.cpus.iter().map(|c| c.to_string()).collect();
    let mut out = format!(
        "{name} under {under} on CPU(s) {} for {} (ran {})\n",
        cpus.join(","),
        human_ns(r.duration_ns),
        human_ns(r.ran_ns)
    );
    if let Some(why) = &r.stopped_by {
        out.push_str(&format!("stopped early: {why}\n"));
    }
    out.push_str(&format!("{}\n", r.calibration.summary()));
    out
}

/// The readable report of a run.
fn summary(workload: &Workload, r: &RunResult) -> String {
    let name = workload.name.as_deref().unwrap_or("workload");
    let mut out = report_header(name, &r.policy, r);
    out.push_str(&format!(
        "jobs: {} released, {} completed, {} deadline miss(es), {} migration(s), {} mode change(s); /dev/cpu_dma_latency {}\n",
        r.jobs_released,
        r.jobs_completed,
        r.deadline_misses,
        r.migrations,
        r.mode_changes,
        if r.dma_latency_held { "held at 0" } else { "not held" }
    ));
    if let Some(o) = &r.optional {
        out.push_str(&format!(
            "optional parts: {} completed, {} cut, {} skipped; QoS {} (optional time executed / requested)\n",
            o.optional_completed,
            o.optional_cut,
            o.optional_skipped,
            r.optional_qos.map_or("-".into(), |q| format!("{:.1} %", 100.0 * q)),
        ));
    }
    for (name, h) in &r.histograms {
        out.push_str(&format!("{name:<34} {}\n", h.summary.display_us()));
    }
    out.push_str(&format!(
        "{:<12} {:>8} {:>9} {:>7} {:>12} {:>12} {:>12} {:>12}\n",
        "task",
        "released",
        "completed",
        "misses",
        "latency p50",
        "latency max",
        "response p50",
        "response max"
    ));
    for t in &r.tasks {
        out.push_str(&format!(
            "{:<12} {:>8} {:>9} {:>7} {:>12} {:>12} {:>12} {:>12}\n",
            t.task,
            t.jobs_released,
            t.jobs_completed,
            t.deadline_misses,
            us(&t.release_latency_ns, |s| s.p50),
            us(&t.release_latency_ns, |s| s.max),
            us(&t.response_time_ns, |s| s.p50),
            us(&t.response_time_ns, |s| s.max),
        ));
    }
    for note in &r.notes {
        out.push_str(&format!("note: {note}\n"));
    }
    out
}

fn us(summary: &Summary, pick: impl Fn(&Summary) -> u64) -> String {
    if summary.count == 0 {
        "-".into()
    } else {
        human_ns(pick(summary))
    }
}

/// Writes `--gantt` (the measured schedule, stacked over `simulated` when there is one) and
/// `--trace` (the measured schedule as a Chrome trace).
pub(super) fn write_outputs(
    args: &Args,
    title: String,
    measured: &Trace,
    simulated: Option<&Trace>,
) -> Result<(), Failure> {
    let options = GanttOptions {
        title: Some(title),
        ..crate::commands::simulate::gantt_view(args.gantt_window, args.gantt_by)
    };
    if let Some(path) = &args.gantt {
        let svg = match simulated {
            Some(sim) => render_levels_svg(
                &[
                    ("measured".to_string(), measured),
                    ("simulated".to_string(), sim),
                ],
                &options,
            ),
            None => render_svg(measured, &options),
        };
        write_output(path, svg)?;
        eprintln!("wrote Gantt chart {}", path.display());
    }
    if let Some(path) = &args.trace {
        let mut buffer = Vec::new();
        kairos_trace::chrome::write_chrome_trace(measured, &mut buffer)
            .map_err(|e| Failure::environment(format!("cannot encode the trace: {e}")))?;
        write_output(path, buffer)?;
        eprintln!(
            "wrote Perfetto trace {} (open it in https://ui.perfetto.dev)",
            path.display()
        );
    }
    Ok(())
}
