//! Marks drawn over the bars: deadline misses and aborts (named), mode changes, discarded jobs,
//! and in the per-task view the release and deadline arrows of every job; each with its legend
//! entry.

use super::scale::TimeScale;
use super::style::{task_name, MarkKey};
use super::{
    line, text, CHAR_WIDTH, LABEL_WIDTH, MARGIN, MARKER_SPACE, MODE_LABEL_SPACE, PLOT_WIDTH,
    ROW_HEIGHT,
};
use crate::{Trace, TraceEvent};
use kairos_model::Instant;
use svg::node::element::{Group, Polygon, Text, Title};

pub(super) const MISS_COLOUR: &str = "#d00000";
pub(super) const MODE_COLOUR: &str = "#6a3d9a";
const DISCARD_COLOUR: &str = "#555";
const ARROW_COLOUR: &str = "#333";

/// A filled polygon through `points` (triangles of the marks, the optional deadline's diamond).
pub(super) fn polygon(points: &[(f64, f64)], fill: &str) -> Polygon {
    let text: Vec<String> = points.iter().map(|(x, y)| format!("{x},{y}")).collect();
    Polygon::new()
        .set("points", text.join(" "))
        .set("fill", fill)
}

/// A red line and triangle at each miss or abort, the task named beside the triangle where
/// the name does not run into the previous one (hover for every detail).
pub(super) fn misses(trace: &Trace, scale: &TimeScale, top: f64, bottom: f64) -> Group {
    let mut group = Group::new().set("class", "misses");
    let mut free_from = f64::MIN;
    for event in &trace.events {
        let (what, task, job, at) = match *event {
            TraceEvent::DeadlineMiss { task, job, at } => ("deadline miss", task, job, at),
            TraceEvent::Abort { task, job, at } => ("abort", task, job, at),
            _ => continue,
        };
        if !scale.shows_instant(at.as_nanos()) {
            continue;
        }
        let x = scale.x(at.as_nanos());
        let base = top - 10.0;
        let name = task_name(trace, task);
        let tooltip = Title::new(format!("{what}: {name} job {job} at {at}"));
        let mut mark = Group::new()
            .set("class", "miss")
            .add(tooltip)
            .add(line((x, base), (x, bottom), MISS_COLOUR).set("stroke-width", 1.5))
            .add(polygon(
                &[(x - 5.0, base), (x + 5.0, base), (x, top)],
                MISS_COLOUR,
            ));
        let label = format!("{name}#{job}");
        let width = label.chars().count() as f64 * CHAR_WIDTH;
        if x + 7.0 >= free_from && x + 7.0 + width <= LABEL_WIDTH + PLOT_WIDTH + MARGIN {
            mark = mark.add(
                text(label, x + 7.0, base + 2.0)
                    .set("class", "miss-label")
                    .set("fill", MISS_COLOUR)
                    .set("font-size", 10),
            );
            free_from = x + 10.0 + width;
        }
        group = group.add(mark);
    }
    group
}

/// A dashed line across every row at each mode change, labelled "FROM -> TO" above the rows
/// (starting at `top`); hover for the instant.
pub(super) fn mode_changes(trace: &Trace, scale: &TimeScale, top: f64, bottom: f64) -> Group {
    let mut group = Group::new().set("class", "mode-changes");
    for event in &trace.events {
        let TraceEvent::ModeChange { at, from, to } = *event else {
            continue;
        };
        if !scale.shows_instant(at.as_nanos()) {
            continue;
        }
        let x = scale.x(at.as_nanos());
        let label = format!("{} -> {}", trace.level_name(from), trace.level_name(to));
        let tooltip = Title::new(format!("mode change {label} at {at}"));
        group = group.add(
            Group::new()
                .set("class", "mode-change")
                .add(tooltip)
                .add(mode_line((x, top + MODE_LABEL_SPACE - 2.0), (x, bottom)))
                .add(mode_label(label, x, top + 11.0)),
        );
    }
    group
}

fn mode_line(from: (f64, f64), to: (f64, f64)) -> svg::node::element::Line {
    line(from, to, MODE_COLOUR)
        .set("stroke-width", 2)
        .set("stroke-dasharray", "6,3")
}

/// "FROM -> TO" right of the line at `x`, or left of it when it would run past the plot.
fn mode_label(label: String, x: f64, y: f64) -> Text {
    let width = label.chars().count() as f64 * CHAR_WIDTH;
    let fits_right = x + 3.0 + width <= LABEL_WIDTH + PLOT_WIDTH + MARGIN;
    let (x, anchor) = if fits_right {
        (x + 3.0, "start")
    } else {
        (x - 3.0, "end")
    };
    text(label, x, y)
        .set("text-anchor", anchor)
        .set("fill", MODE_COLOUR)
        .set("font-weight", "bold")
}

fn cross(x: f64, y: f64) -> Group {
    Group::new()
        .add(line((x - 4.0, y - 4.0), (x + 4.0, y + 4.0), DISCARD_COLOUR))
        .add(line((x - 4.0, y + 4.0), (x + 4.0, y - 4.0), DISCARD_COLOUR))
}

/// A grey cross on the strip above the rows at each discarded job (the job has no core then).
pub(super) fn discards(trace: &Trace, scale: &TimeScale, plot_top: f64) -> Group {
    let mut group = Group::new().set("class", "discards");
    for event in &trace.events {
        let TraceEvent::Discard { task, job, at } = *event else {
            continue;
        };
        if !scale.shows_instant(at.as_nanos()) {
            continue;
        }
        let (x, y) = (scale.x(at.as_nanos()), plot_top - MARKER_SPACE / 2.0);
        let name = task_name(trace, task);
        let tooltip = Title::new(format!("discarded: {name} job {job} at {at}"));
        group = group.add(cross(x, y).set("class", "discard").add(tooltip));
    }
    group
}

fn up_arrow(x: f64, top: f64, bottom: f64) -> Group {
    Group::new()
        .add(line((x, bottom), (x, top + 4.0), ARROW_COLOUR))
        .add(polygon(
            &[(x - 3.0, top + 5.0), (x + 3.0, top + 5.0), (x, top)],
            ARROW_COLOUR,
        ))
}

fn down_arrow(x: f64, top: f64, bottom: f64) -> Group {
    Group::new()
        .add(line((x, top), (x, bottom - 4.0), ARROW_COLOUR))
        .add(polygon(
            &[
                (x - 3.0, bottom - 5.0),
                (x + 3.0, bottom - 5.0),
                (x, bottom),
            ],
            ARROW_COLOUR,
        ))
}

/// Per-task view: on the row of each job's task, an up arrow at its release and a down arrow
/// at its deadline (half a row tall, so a deadline that is the next release stays readable).
pub(super) fn arrows(trace: &Trace, scale: &TimeScale, plot_top: f64) -> Group {
    let mut group = Group::new().set("class", "arrows");
    for event in &trace.events {
        let TraceEvent::Release {
            task,
            job,
            at,
            deadline,
        } = *event
        else {
            continue;
        };
        let row_top = plot_top + task as f64 * ROW_HEIGHT;
        let middle = row_top + ROW_HEIGHT / 2.0;
        let name = task_name(trace, task);
        if scale.shows_instant(at.as_nanos()) {
            let arrow = up_arrow(scale.x(at.as_nanos()), row_top + 2.0, middle);
            let tooltip = Title::new(format!("release: {name} job {job} at {at}"));
            group = group.add(arrow.set("class", "release").add(tooltip));
        }
        if scale.shows_instant(deadline.as_nanos()) {
            let arrow = down_arrow(
                scale.x(deadline.as_nanos()),
                middle,
                row_top + ROW_HEIGHT - 2.0,
            );
            let tooltip = Title::new(format!("deadline: {name} job {job} at {deadline}"));
            group = group.add(arrow.set("class", "deadline").add(tooltip));
        }
    }
    group
}

/// Legend entries for the marks the chart's window shows (and the arrows in the per-task
/// view): a chart of a window drawn from a trace recorded for that window has the same legend
/// as one drawn from the whole run's.
pub(super) fn keys(trace: &Trace, scale: &TimeScale, with_arrows: bool) -> Vec<MarkKey> {
    let shown = |at: Instant| scale.shows_instant(at.as_nanos());
    let has = |f: &dyn Fn(&TraceEvent) -> bool| trace.events.iter().any(f);
    let mut keys = Vec::new();
    let arrow = |e: &TraceEvent| matches!(*e, TraceEvent::Release { at, deadline, .. } if shown(at) || shown(deadline));
    if with_arrows && has(&arrow) {
        keys.push(MarkKey {
            label: "release",
            swatch: up_arrow(6.0, 0.0, 12.0),
        });
        keys.push(MarkKey {
            label: "deadline",
            swatch: down_arrow(6.0, 0.0, 12.0),
        });
    }
    if has(&|e| {
        matches!(
            *e,
            TraceEvent::DeadlineMiss { at, .. } | TraceEvent::Abort { at, .. } if shown(at)
        )
    }) {
        let swatch = Group::new()
            .add(line((6.0, 0.0), (6.0, 12.0), MISS_COLOUR))
            .add(polygon(&[(1.0, 0.0), (11.0, 0.0), (6.0, 6.0)], MISS_COLOUR));
        keys.push(MarkKey {
            label: "deadline miss (task#job)",
            swatch,
        });
    }
    if has(&|e| matches!(*e, TraceEvent::Discard { at, .. } if shown(at))) {
        keys.push(MarkKey {
            label: "discarded job",
            swatch: cross(6.0, 6.0),
        });
    }
    if has(&|e| matches!(e, TraceEvent::ModeChange { .. })) {
        let swatch = Group::new().add(mode_line((6.0, 0.0), (6.0, 12.0)));
        keys.push(MarkKey {
            label: "mode change",
            swatch,
        });
    }
    keys
}
