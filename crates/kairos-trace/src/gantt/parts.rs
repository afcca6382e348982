//! Parts of imprecise jobs (Chishiro and Yamasaki's evaluation of G-RMWP and P-RMWP) in the chart: each bar drawn in its part's style (the
//! mandatory part solid, the optional part pale, the wind-up part solid with a dark band), a
//! scissors-like mark where an optional part was cut or skipped, in the per-task view each
//! job's optional deadline, and their legend entries. A trace without part ends draws exactly
//! as before.

use super::marks::polygon;
use super::scale::TimeScale;
use super::style::{task_name, MarkKey};
use super::{line, rect, ROW_HEIGHT};
use crate::{PartOutcome, Trace, TraceEvent};
use kairos_model::Part;
use std::collections::HashMap;
use svg::node::element::{Group, Rectangle, Title};

const CUT_COLOUR: &str = "#e66101";
/// How opaque an optional part's bar is.
pub(super) const OPTIONAL_OPACITY: f64 = 0.4;
const WINDUP_BAND: f64 = 4.0;

/// The part each segment ran, in the order of `trace.segments()` (all mandatory without part
/// ends): a segment closes before the part end that splits it, so the part at its event is
/// the one it ran.
pub(super) fn segment_parts(trace: &Trace) -> Vec<Part> {
    let mut current: HashMap<(usize, u64), Part> = HashMap::new();
    let mut parts = Vec::new();
    for event in &trace.events {
        match *event {
            TraceEvent::Segment { task, job, .. } => {
                parts.push(*current.get(&(task, job)).unwrap_or(&Part::Mandatory));
            }
            TraceEvent::PartEnd {
                task, job, next, ..
            } => {
                current.insert((task, job), next);
            }
            _ => {}
        }
    }
    parts
}

/// The dark band along the bottom of a wind-up bar.
pub(super) fn windup_band((x, y): (f64, f64), (width, height): (f64, f64)) -> Rectangle {
    rect(
        "windup",
        (x, y + height - WINDUP_BAND),
        (width, WINDUP_BAND),
        "#222",
    )
    .set("pointer-events", "none")
}

/// A short orange tick with a cross over the task's row (per task) or across the chart (per
/// core) at each optional part that was cut or skipped.
pub(super) fn cuts(
    trace: &Trace,
    scale: &TimeScale,
    top: f64,
    rows: usize,
    per_task: bool,
) -> Group {
    let mut group = Group::new().set("class", "cuts");
    for event in &trace.events {
        let TraceEvent::PartEnd {
            task,
            job,
            at,
            outcome,
            ..
        } = *event
        else {
            continue;
        };
        let what = match outcome {
            PartOutcome::Cut => "optional part cut",
            PartOutcome::Skipped => "optional part skipped",
            PartOutcome::Completed => continue,
        };
        if !scale.shows_instant(at.as_nanos()) {
            continue;
        }
        let x = scale.x(at.as_nanos());
        let (y0, y1) = match per_task {
            true => (
                top + task as f64 * ROW_HEIGHT,
                top + (task + 1) as f64 * ROW_HEIGHT,
            ),
            false => (top, top + rows as f64 * ROW_HEIGHT),
        };
        let tooltip = Title::new(format!(
            "{what}: {} job {job} at {at}",
            task_name(trace, task)
        ));
        group = group.add(
            Group::new()
                .set("class", "cut")
                .add(tooltip)
                .add(scissors(x, y0).add(line((x, y0), (x, y1), CUT_COLOUR))),
        );
    }
    group
}

/// Per-task view: a dotted orange line over the task's row at each job's optional deadline
/// (release + the task's optional deadline), with a small diamond on top.
pub(super) fn optional_deadlines(trace: &Trace, scale: &TimeScale, top: f64) -> Group {
    let mut group = Group::new().set("class", "optional-deadlines");
    for event in &trace.events {
        let TraceEvent::Release { task, job, at, .. } = *event else {
            continue;
        };
        let Some(Some(od)) = trace.optional_deadlines.get(task) else {
            continue;
        };
        let when = at + *od;
        if !scale.shows_instant(when.as_nanos()) {
            continue;
        }
        let x = scale.x(when.as_nanos());
        let row_top = top + task as f64 * ROW_HEIGHT;
        let tooltip = Title::new(format!(
            "optional deadline: {} job {job} at {when}",
            task_name(trace, task)
        ));
        group = group.add(
            od_mark(x, row_top + 3.0, row_top + ROW_HEIGHT - 2.0)
                .set("class", "optional-deadline")
                .add(tooltip),
        );
    }
    group
}

fn od_mark(x: f64, top: f64, bottom: f64) -> Group {
    let diamond = [
        (x, top - 3.0),
        (x + 3.0, top),
        (x, top + 3.0),
        (x - 3.0, top),
    ];
    Group::new()
        .add(
            line((x, top), (x, bottom), CUT_COLOUR)
                .set("stroke-dasharray", "2,2")
                .set("stroke-width", 1.2),
        )
        .add(polygon(&diamond, CUT_COLOUR))
}

fn scissors(x: f64, y: f64) -> Group {
    Group::new()
        .add(line((x - 3.0, y - 6.0), (x + 3.0, y), CUT_COLOUR).set("stroke-width", 1.5))
        .add(line((x + 3.0, y - 6.0), (x - 3.0, y), CUT_COLOUR).set("stroke-width", 1.5))
}

/// Legend entries for the parts, when the trace has part ends (and for the optional
/// deadlines, in the per-task view of a trace that has them); the cut mark's entry only when
/// the chart's window shows a cut.
pub(super) fn keys(trace: &Trace, scale: &TimeScale, per_task: bool) -> Vec<MarkKey> {
    let (mut any, mut cut) = (false, false);
    for e in &trace.events {
        if let TraceEvent::PartEnd { outcome, at, .. } = *e {
            any = true;
            cut |= outcome != PartOutcome::Completed && scale.shows_instant(at.as_nanos());
        }
    }
    if !any {
        return Vec::new();
    }
    let bar = |fill: &str| rect("swatch", (0.0, 0.0), (12.0, 12.0), fill);
    let mut keys = vec![
        MarkKey {
            label: "mandatory part",
            swatch: Group::new().add(bar("#888")),
        },
        MarkKey {
            label: "optional part",
            swatch: Group::new().add(bar("#888").set("fill-opacity", OPTIONAL_OPACITY)),
        },
        MarkKey {
            label: "wind-up part",
            swatch: Group::new()
                .add(bar("#888"))
                .add(windup_band((0.0, 0.0), (12.0, 12.0))),
        },
    ];
    if per_task && !trace.optional_deadlines.is_empty() {
        keys.push(MarkKey {
            label: "optional deadline",
            swatch: od_mark(6.0, 3.0, 12.0),
        });
    }
    if cut {
        keys.push(MarkKey {
            label: "optional part cut or skipped",
            swatch: scissors(6.0, 6.0).add(line((6.0, 6.0), (6.0, 12.0), CUT_COLOUR)),
        });
    }
    keys
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gantt::{render_svg, GanttOptions};
    use kairos_model::Instant;

    fn at(ns: u64) -> Instant {
        Instant::from_nanos(ns)
    }

    #[test]
    fn each_segment_is_drawn_in_its_part_and_cuts_are_marked() {
        let segment = |start, end| TraceEvent::Segment {
            core: 0,
            task: 0,
            job: 0,
            start: at(start),
            end: at(end),
        };
        let end = |t, part, outcome, next| TraceEvent::PartEnd {
            task: 0,
            job: 0,
            at: at(t),
            part,
            outcome,
            next,
        };
        let trace = Trace {
            task_names: vec!["slam".into()],
            cores: 1,
            end: at(100),
            optional_deadlines: vec![Some(kairos_model::Duration::from_nanos(50))],
            events: vec![
                TraceEvent::Release {
                    task: 0,
                    job: 0,
                    at: at(0),
                    deadline: at(100),
                },
                segment(0, 20),
                end(20, Part::Mandatory, PartOutcome::Completed, Part::Optional),
                segment(20, 50),
                end(50, Part::Optional, PartOutcome::Cut, Part::Windup),
                segment(50, 60),
                TraceEvent::Completion {
                    task: 0,
                    job: 0,
                    at: at(60),
                },
            ],
            ..Trace::default()
        };
        assert_eq!(
            segment_parts(&trace),
            vec![Part::Mandatory, Part::Optional, Part::Windup]
        );
        let svg = render_svg(&trace, &GanttOptions::default());
        assert!(
            svg.contains("optional part cut: slam job 0 at 50ns"),
            "{svg}"
        );
        assert_eq!(
            svg.matches("class=\"windup\"").count(),
            2,
            "the bar and the legend"
        );
        assert!(svg.contains("[20ns, 50ns) on core 0, optional part"));
        // Optional deadlines have a row only in the per-task view.
        let od = "optional deadline: slam job 0 at 50ns";
        assert!(!svg.contains(od), "{svg}");
        let by_task = GanttOptions {
            rows: crate::gantt::RowsBy::Tasks,
            ..GanttOptions::default()
        };
        let svg = render_svg(&trace, &by_task);
        assert!(svg.contains(od), "{svg}");
        let legend = svg.split("class=\"legend\"").nth(1).expect("a legend");
        assert!(legend.contains("optional deadline"), "legend entry: {svg}");
        assert!(legend.contains("optional part cut or skipped"), "{svg}");
        // A window without the cut draws no cut and has no legend entry for it.
        let before_the_cut = GanttOptions {
            window: Some((at(0), at(40))),
            ..by_task
        };
        let svg = render_svg(&trace, &before_the_cut);
        let legend = svg.split("class=\"legend\"").nth(1).expect("a legend");
        assert!(legend.contains("optional part"), "{svg}");
        assert!(!legend.contains("cut or skipped"), "{svg}");
        assert!(!svg.contains("optional part cut:"), "{svg}");
    }
}
