//! Render a [`Trace`] as a Gantt chart in SVG; open the file in any web browser.
//!
//! One row per core ([`RowsBy::Cores`], the default) or per task ([`RowsBy::Tasks`]), one
//! coloured bar per execution segment (hover for "TASK job J [start, end) on core C"; in the task
//! view the bar is labelled with its core), red markers across all rows at deadline misses and
//! aborts, named `task#job`, a time axis with round tick labels and a legend of the task colours
//! and of the marks present. The task view adds an up arrow at every release and a down arrow at
//! every deadline. Past twelve tasks the colours repeat with a hatching (`style`).
//! [`GanttOptions::window`] restricts the chart to a time window. A run through servers (the
//! VCPUs of hierarchical scheduling) shows, in the per-core view, which VCPU held each core in a
//! strip above the jobs it ran.
//!
//! Mixed-criticality runs (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static
//! scheduling of mixed criticality systems", section 6, G-MCRES mode changes) add a labelled
//! vertical line across all rows at every mode change ("LO -> HI", level names from
//! [`Trace::level_name`]) and a grey cross at every discarded job. [`render_levels_svg`] stacks
//! one chart per criticality level, e.g. the scheduling tables of one system (section 5).

mod marks;
mod parts;
mod scale;
mod servers;
mod style;

use kairos_model::{Instant, Part};
use marks::{arrows, discards, keys, misses, mode_changes};
use scale::{time_axis, TimeScale};
use style::{colour, definitions, fit_label, hatch_overlay, legend, task_name};
use svg::node::element::{Group, Line, Rectangle, Text, Title};
use svg::Document;

use crate::{Trace, TraceEvent};

const LABEL_WIDTH: f64 = 70.0;
const PLOT_WIDTH: f64 = 1200.0;
const MARGIN: f64 = 20.0;
const ROW_HEIGHT: f64 = 28.0;
const BAR_INSET: f64 = 3.0;
const TITLE_HEIGHT: f64 = 28.0;
const NOTE_HEIGHT: f64 = 18.0;
const MARKER_SPACE: f64 = 12.0;
const AXIS_HEIGHT: f64 = 34.0;
/// Bars narrower than this carry no label.
const MIN_LABEL_WIDTH: f64 = 30.0;
/// Rough width of one character at the 11px font used in bars and the legend.
const CHAR_WIDTH: f64 = 6.5;
/// Room above the rows for mode-change labels, only in traces that have mode changes.
const MODE_LABEL_SPACE: f64 = 16.0;
/// Vertical room between stacked panels of [`render_levels_svg`].
const PANEL_GAP: f64 = 12.0;

/// What the rows of the chart are.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RowsBy {
    /// One row per core: who runs where (the default).
    #[default]
    Cores,
    /// One row per task, with its releases and deadlines: when each task runs.
    Tasks,
}

/// What part of a trace to draw, how, and how to caption it.
#[derive(Clone, Debug, Default)]
pub struct GanttOptions {
    /// `[from, to)` to draw; the whole trace, `[0, end)`, when absent.
    pub window: Option<(Instant, Instant)>,
    pub title: Option<String>,
    pub rows: RowsBy,
}

/// The chart as an SVG document. Never panics: an empty window, no cores, or a window after the
/// end of the trace give a small SVG with a note saying so.
pub fn render_svg(trace: &Trace, options: &GanttOptions) -> String {
    let view = View {
        window: options.window,
        rows: options.rows,
    };
    let (panel, height) = panel(trace, options.title.as_deref(), view, MARGIN);
    document(
        Group::new()
            .set("font-family", "sans-serif")
            .set("font-size", 11)
            .add(panel),
        MARGIN + height,
    )
}

/// One chart per `(caption, trace)` panel, stacked top to bottom in one SVG with the same time
/// window (`options.window`, or `[0, longest end)`) so instants line up between panels;
/// `options.title` heads the whole document. Meant for the tables of one system, one per level.
/// Never panics: an empty list gives a small SVG with a note.
pub fn render_levels_svg(panels: &[(String, &Trace)], options: &GanttOptions) -> String {
    let end = panels
        .iter()
        .map(|(_, trace)| trace.end)
        .max()
        .unwrap_or(Instant::ZERO);
    let view = View {
        window: options.window.or(Some((Instant::ZERO, end))),
        rows: options.rows,
    };
    let empty = ["nothing to draw: no panels".to_string()];
    let notes: &[String] = if panels.is_empty() { &empty } else { &[] };
    let (header, header_height) = header(options.title.as_deref(), notes, MARGIN);
    let mut body = Group::new()
        .set("font-family", "sans-serif")
        .set("font-size", 11)
        .add(header);
    let mut bottom = MARGIN + header_height;
    for (caption, trace) in panels {
        let (panel, height) = panel(trace, Some(caption), view, bottom);
        body = body.add(panel.set("class", "panel"));
        bottom += height + PANEL_GAP;
    }
    document(body, bottom)
}

/// The window and the rows of one panel.
#[derive(Clone, Copy)]
struct View {
    window: Option<(Instant, Instant)>,
    rows: RowsBy,
}

/// The whole SVG around `body`, whose content ends at `bottom`. The `svg` crate escapes markup
/// but passes characters XML forbids (a name's control character), which would make the file
/// unreadable: they are dropped here, whatever let them through.
fn document(body: Group, bottom: f64) -> String {
    let (width, height) = (LABEL_WIDTH + PLOT_WIDTH + MARGIN, bottom + MARGIN);
    let svg = Document::new()
        .set("width", width)
        .set("height", height)
        .set("viewBox", (0, 0, width, height))
        .add(definitions())
        .add(rect("background", (0.0, 0.0), (width, height), "white"))
        .add(body)
        .to_string();
    kairos_model::names::xml_safe(&svg).into_owned()
}

/// Caption, notes and chart of one trace, starting at `top`; returns them and their height.
fn panel(trace: &Trace, title: Option<&str>, view: View, top: f64) -> (Group, f64) {
    let (from, to) = view.window.unwrap_or((Instant::ZERO, trace.end));
    let rows = row_count(trace, view.rows);
    let notes = notes(trace, from, to, rows);
    let (header, header_height) = header(title, &notes, top);
    let mut group = Group::new().add(header);
    let mut bottom = top + header_height;
    if from < to && rows > 0 {
        let scale = TimeScale {
            from: from.as_nanos(),
            to: to.as_nanos(),
        };
        let (chart, chart_height) = chart(trace, &scale, (view.rows, rows), bottom);
        group = group.add(chart);
        bottom += chart_height;
    }
    (group, bottom - top)
}

/// Title and notes above the chart, from `top`; returns them and their height.
fn header(title: Option<&str>, notes: &[String], top: f64) -> (Group, f64) {
    let mut group = Group::new();
    let mut y = top;
    if let Some(title) = title {
        group = group.add(
            text(title, MARGIN, y + 16.0)
                .set("font-size", 16)
                .set("font-weight", "bold"),
        );
        y += TITLE_HEIGHT;
    }
    for note in notes {
        group = group.add(
            text(note, LABEL_WIDTH, y + 12.0)
                .set("class", "note")
                .set("fill", "#666"),
        );
        y += NOTE_HEIGHT;
    }
    (group, y - top)
}

/// Rows, axis, bars, miss, discard, mode-change (and in the task view release and deadline)
/// marks and the legend, starting at `top`; returns them and their height.
fn chart(trace: &Trace, scale: &TimeScale, (by, rows): (RowsBy, usize), top: f64) -> (Group, f64) {
    let label_space = if has(trace, |e| matches!(e, TraceEvent::ModeChange { .. })) {
        MODE_LABEL_SPACE
    } else {
        0.0
    };
    let plot_top = top + label_space + MARKER_SPACE;
    let plot_bottom = plot_top + rows as f64 * ROW_HEIGHT;
    let mut keys = keys(trace, scale, by == RowsBy::Tasks);
    keys.extend(parts::keys(trace, scale, by == RowsBy::Tasks));
    let (legend, legend_height) = legend(&trace.task_names, keys, plot_bottom + AXIS_HEIGHT);
    let mut chart = Group::new()
        .add(row_bands(trace, by, rows, plot_top))
        .add(time_axis(scale, plot_top, plot_bottom))
        .add(segments(trace, scale, by, plot_top));
    if by == RowsBy::Cores && servers::present(trace) {
        chart = chart.add(servers::strips(trace, scale, plot_top));
    }
    if by == RowsBy::Tasks {
        chart = chart.add(arrows(trace, scale, plot_top));
        chart = chart.add(parts::optional_deadlines(trace, scale, plot_top));
    }
    chart = chart.add(misses(trace, scale, plot_top, plot_bottom));
    if has(trace, |e| matches!(e, TraceEvent::PartEnd { .. })) {
        chart = chart.add(parts::cuts(
            trace,
            scale,
            plot_top,
            rows,
            by == RowsBy::Tasks,
        ));
    }
    if has(trace, |e| matches!(e, TraceEvent::Discard { .. })) {
        chart = chart.add(discards(trace, scale, plot_top));
    }
    if label_space > 0.0 {
        chart = chart.add(mode_changes(trace, scale, top, plot_bottom));
    }
    (
        chart.add(legend),
        plot_bottom + AXIS_HEIGHT + legend_height - top,
    )
}

fn has(trace: &Trace, kind: fn(&TraceEvent) -> bool) -> bool {
    trace.events.iter().any(kind)
}

/// Per core: every declared core and any core a segment was recorded on beyond them. Per task:
/// every named task and any task a segment names beyond them.
fn row_count(trace: &Trace, by: RowsBy) -> usize {
    match by {
        RowsBy::Cores => trace
            .segments()
            .map(|(core, ..)| core + 1)
            .fold(trace.cores, usize::max),
        RowsBy::Tasks => trace
            .segments()
            .map(|(_, task, ..)| task + 1)
            .fold(trace.task_names.len(), usize::max),
    }
}

fn notes(trace: &Trace, from: Instant, to: Instant, rows: usize) -> Vec<String> {
    let mut notes = Vec::new();
    if rows == 0 {
        notes.push("nothing to draw: the trace has no rows (no cores or no tasks)".to_string());
    }
    if from >= to {
        notes.push(format!("nothing to draw: empty window [{from}, {to})"));
    } else if from >= trace.end {
        notes.push(format!(
            "nothing in [{from}, {to}): the trace ends at {}",
            trace.end
        ));
    }
    notes
}

/// The shaded band and label of every row: `core N`, or the task's name cut to fit.
fn row_bands(trace: &Trace, by: RowsBy, rows: usize, top: f64) -> Group {
    (0..rows).fold(Group::new().set("class", "rows"), |group, row| {
        let y = top + row as f64 * ROW_HEIGHT;
        let shade = if row % 2 == 0 { "#f4f4f4" } else { "#ffffff" };
        let label = match by {
            RowsBy::Cores => format!("core {row}"),
            RowsBy::Tasks => {
                fit_label(&task_name(trace, row), LABEL_WIDTH - 2.0, 0.0).unwrap_or_default()
            }
        };
        group
            .add(rect(
                "row",
                (LABEL_WIDTH, y),
                (PLOT_WIDTH, ROW_HEIGHT),
                shade,
            ))
            .add(
                text(label, LABEL_WIDTH - 8.0, y + ROW_HEIGHT / 2.0 + 4.0)
                    .set("text-anchor", "end"),
            )
    })
}

fn segments(trace: &Trace, scale: &TimeScale, by: RowsBy, top: f64) -> Group {
    let mut group = Group::new().set("class", "segments");
    let parts = parts::segment_parts(trace);
    // Under a VCPU strip in the per-core view of a run through servers.
    let strip = match by == RowsBy::Cores && servers::present(trace) {
        true => servers::STRIP,
        false => 0.0,
    };
    for ((core, task, job, start, end), part) in trace.segments().zip(parts) {
        let Some((from, to)) = scale.clip(start.as_nanos(), end.as_nanos()) else {
            continue;
        };
        let row = match by {
            RowsBy::Cores => core,
            RowsBy::Tasks => task,
        };
        let (x, width) = (scale.x(from), (scale.x(to) - scale.x(from)).max(0.5));
        let y = top + row as f64 * ROW_HEIGHT + BAR_INSET + strip;
        let size = (width, ROW_HEIGHT - 2.0 * BAR_INSET - strip);
        let name = task_name(trace, task);
        let part_name = match part {
            Part::Mandatory => String::new(),
            other => format!(", {} part", other.name()),
        };
        let tooltip = Title::new(format!(
            "{name} job {job} [{start}, {end}) on core {core}{part_name}"
        ));
        let mut bar = rect("job", (x, y), size, colour(task));
        if part == Part::Optional {
            bar = bar.set("fill-opacity", parts::OPTIONAL_OPACITY);
        }
        // A white edge separates back-to-back jobs, but would hide bars only a few pixels wide.
        let bar = if width >= 4.0 {
            bar.set("stroke", "white")
        } else {
            bar
        };
        group = group.add(bar.add(tooltip));
        if let Some(overlay) = hatch_overlay(task, (x, y), size) {
            group = group.add(overlay);
        }
        if part == Part::Windup {
            group = group.add(parts::windup_band((x, y), size));
        }
        let label = match by {
            RowsBy::Cores => name.into_owned(),
            RowsBy::Tasks => format!("c{core}"),
        };
        if let Some(label) = fit_label(&label, width, MIN_LABEL_WIDTH) {
            let centre = (x + width / 2.0, y + size.1 / 2.0 + 4.0);
            group = group.add(
                text(label, centre.0, centre.1)
                    .set("text-anchor", "middle")
                    .set("pointer-events", "none"),
            );
        }
    }
    group
}

fn rect(class: &str, (x, y): (f64, f64), (width, height): (f64, f64), fill: &str) -> Rectangle {
    Rectangle::new()
        .set("class", class)
        .set("x", x)
        .set("y", y)
        .set("width", width)
        .set("height", height)
        .set("fill", fill)
}

fn text(content: impl Into<String>, x: f64, y: f64) -> Text {
    Text::new(content).set("x", x).set("y", y)
}

fn line(from: (f64, f64), to: (f64, f64), colour: &str) -> Line {
    Line::new()
        .set("x1", from.0)
        .set("y1", from.1)
        .set("x2", to.0)
        .set("y2", to.1)
        .set("stroke", colour)
}

/// Two decimals are plenty for pixels and keep the SVG small.
fn round(px: f64) -> f64 {
    (px * 100.0).round() / 100.0
}

#[cfg(test)]
mod tests;
