//! Task colours and the legend.
//!
//! Twelve colours that stay apart from each other and from the miss red; past twelve tasks the
//! colours repeat with a hatching (four patterns: none, `/`, `\`, crossed), so 48 tasks stay
//! distinguishable, and the per-task row view (`RowsBy::Tasks`) names every task on its row.

use super::{rect, text, CHAR_WIDTH, LABEL_WIDTH, PLOT_WIDTH};
use crate::Trace;
use std::borrow::Cow;
use svg::node::element::{Definitions, Group, Line, Pattern, Rectangle};

const PALETTE: [&str; 12] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#ff9da7",
    "#bab0ac", "#1f3b73", "#8cd17d", "#a0cbe8",
];
const LEGEND_LINE: f64 = 20.0;
/// Hatching patterns after the plain one, as stroke angles in degrees (crossed = both).
const HATCHES: [&[i32]; 3] = [&[45], &[-45], &[45, -45]];

pub(super) fn colour(task: usize) -> &'static str {
    PALETTE[task % PALETTE.len()]
}

/// The hatching of `task` (1-based index into [`HATCHES`]), or `None` for the first twelve.
fn hatch(task: usize) -> Option<usize> {
    match (task / PALETTE.len()) % (HATCHES.len() + 1) {
        0 => None,
        k => Some(k),
    }
}

/// The SVG patterns the bars refer to (`url(#hatch-K)`).
pub(super) fn definitions() -> Definitions {
    HATCHES
        .iter()
        .enumerate()
        .fold(Definitions::new(), |defs, (k, angles)| {
            let pattern = angles.iter().fold(
                Pattern::new()
                    .set("id", format!("hatch-{}", k + 1))
                    .set("patternUnits", "userSpaceOnUse")
                    .set("width", 6)
                    .set("height", 6),
                |pattern, angle| {
                    pattern.add(
                        Line::new()
                            .set("x1", 0)
                            .set("y1", 0)
                            .set("x2", 0)
                            .set("y2", 6)
                            .set("stroke", "white")
                            .set("stroke-width", 2)
                            .set("transform", format!("rotate({angle} 3 3)")),
                    )
                },
            );
            defs.add(pattern)
        })
}

/// The hatching over a task's bar or swatch, if the task has one.
pub(super) fn hatch_overlay(task: usize, at: (f64, f64), size: (f64, f64)) -> Option<Rectangle> {
    hatch(task)
        .map(|k| rect("hatch", at, size, &format!("url(#hatch-{k})")).set("pointer-events", "none"))
}

pub(super) fn task_name(trace: &Trace, task: usize) -> Cow<'_, str> {
    trace
        .task_names
        .get(task)
        .map_or_else(|| format!("task {task}").into(), |name| name.into())
}

/// The task name, shortened with "…" to fit `width` px; none when not even one letter fits or
/// the room is under `min_width`.
pub(super) fn fit_label(name: &str, width: f64, min_width: f64) -> Option<String> {
    let room = ((width - 6.0) / CHAR_WIDTH) as usize;
    if width <= min_width || room == 0 {
        return None;
    }
    if name.chars().count() <= room {
        return Some(name.to_string());
    }
    Some(name.chars().take(room - 1).chain(['…']).collect())
}

/// A mark the chart uses, for the legend: what it looks like and what it means.
pub(super) struct MarkKey {
    pub label: &'static str,
    pub swatch: Group,
}

/// Colour swatches with task names, then the marks present, wrapped into lines; returns the
/// legend and its height.
pub(super) fn legend(task_names: &[String], marks: Vec<MarkKey>, top: f64) -> (Group, f64) {
    let mut group = Group::new().set("class", "legend");
    let (mut x, mut y) = (LABEL_WIDTH, top);
    let mut place = |width: f64| {
        if x > LABEL_WIDTH && x + width > LABEL_WIDTH + PLOT_WIDTH {
            (x, y) = (LABEL_WIDTH, y + LEGEND_LINE);
        }
        let at = (x, y);
        x += width;
        at
    };
    for (task, name) in task_names.iter().enumerate() {
        let (sx, sy) = place(36.0 + name.chars().count() as f64 * CHAR_WIDTH);
        group = group.add(rect("swatch", (sx, sy), (12.0, 12.0), colour(task)));
        if let Some(overlay) = hatch_overlay(task, (sx, sy), (12.0, 12.0)) {
            group = group.add(overlay);
        }
        group = group.add(text(name.as_str(), sx + 18.0, sy + 10.0));
    }
    for mark in marks {
        let (mx, my) = place(36.0 + mark.label.len() as f64 * CHAR_WIDTH);
        let swatch = mark
            .swatch
            .set("transform", format!("translate({mx} {my})"));
        group =
            group
                .add(swatch.set("class", "mark-key"))
                .add(text(mark.label, mx + 18.0, my + 10.0));
    }
    let height = if x == LABEL_WIDTH && y == top {
        0.0
    } else {
        y - top + LEGEND_LINE
    };
    (group, height)
}
