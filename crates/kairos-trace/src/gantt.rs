//! Render a [`Trace`] as a Gantt chart in SVG; open the file in any web browser.
//!
//! One row per core, one coloured bar per execution segment (hover for "TASK job J [start, end)"),
//! red markers across all rows at deadline misses and aborts, a time axis with round tick labels
//! and a legend of task colours. [`GanttOptions::window`] restricts the chart to a time window.
//!
//! Mixed-criticality runs (Pautet, Robert, Tardieu, "Litmus-RT plugins for global static scheduling of mixed criticality systems", section 6, G-MCRES mode changes) add
//! a labelled vertical line across all cores at every mode change ("LO -> HI", level names from
//! [`Trace::level_name`]) and a grey cross at every discarded job. [`render_levels_svg`] stacks
//! one chart per criticality level, e.g. the scheduling tables of one system (section 5).

use std::borrow::Cow;

use kairos_model::{Duration, Instant};
use svg::node::element::{Group, Line, Polygon, Rectangle, Text, Title};
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
const LEGEND_LINE: f64 = 20.0;
/// Bars narrower than this carry no task name.
const MIN_LABEL_WIDTH: f64 = 30.0;
/// Rough width of one character at the 11px font used in bars and the legend.
const CHAR_WIDTH: f64 = 6.5;
const MISS_COLOUR: &str = "#d00000";
const MODE_COLOUR: &str = "#6a3d9a";
const DISCARD_COLOUR: &str = "#555";
/// Room above the rows for mode-change labels, only in traces that have mode changes.
const MODE_LABEL_SPACE: f64 = 16.0;
/// Vertical room between stacked panels of [`render_levels_svg`].
const PANEL_GAP: f64 = 12.0;
/// Twelve colours that stay apart from each other and from the miss red.
const PALETTE: [&str; 12] = [
    "#4e79a7", "#f28e2b", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#ff9da7",
    "#bab0ac", "#1f3b73", "#8cd17d", "#a0cbe8",
];

/// What part of a trace to draw, and how to caption it.
#[derive(Clone, Debug, Default)]
pub struct GanttOptions {
    /// `[from, to)` to draw; the whole trace, `[0, end)`, when absent.
    pub window: Option<(Instant, Instant)>,
    pub title: Option<String>,
}

/// The chart as an SVG document. Never panics: an empty window, no cores, or a window after the
/// end of the trace give a small SVG with a note saying so.
pub fn render_svg(trace: &Trace, options: &GanttOptions) -> String {
    let (panel, height) = panel(trace, options.title.as_deref(), options.window, MARGIN);
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
    let window = options.window.or(Some((Instant::ZERO, end)));
    let empty = ["nothing to draw: no panels".to_string()];
    let notes: &[String] = if panels.is_empty() { &empty } else { &[] };
    let (header, header_height) = header(options.title.as_deref(), notes, MARGIN);
    let mut body = Group::new()
        .set("font-family", "sans-serif")
        .set("font-size", 11)
        .add(header);
    let mut bottom = MARGIN + header_height;
    for (caption, trace) in panels {
        let (panel, height) = panel(trace, Some(caption), window, bottom);
        body = body.add(panel.set("class", "panel"));
        bottom += height + PANEL_GAP;
    }
    document(body, bottom)
}

/// The whole SVG around `body`, whose content ends at `bottom`.
fn document(body: Group, bottom: f64) -> String {
    let (width, height) = (LABEL_WIDTH + PLOT_WIDTH + MARGIN, bottom + MARGIN);
    Document::new()
        .set("width", width)
        .set("height", height)
        .set("viewBox", (0, 0, width, height))
        .add(rect("background", (0.0, 0.0), (width, height), "white"))
        .add(body)
        .to_string()
}

/// Caption, notes and chart of one trace, starting at `top`; returns them and their height.
fn panel(
    trace: &Trace,
    title: Option<&str>,
    window: Option<(Instant, Instant)>,
    top: f64,
) -> (Group, f64) {
    let (from, to) = window.unwrap_or((Instant::ZERO, trace.end));
    let rows = row_count(trace);
    let notes = notes(trace, from, to, rows);
    let (header, header_height) = header(title, &notes, top);
    let mut group = Group::new().add(header);
    let mut bottom = top + header_height;
    if from < to && rows > 0 {
        let scale = TimeScale {
            from: from.as_nanos(),
            to: to.as_nanos(),
        };
        let (chart, chart_height) = chart(trace, &scale, rows, bottom);
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

/// Core rows, axis, bars, miss, discard and mode-change markers and legend, starting at `top`;
/// returns them and their height.
fn chart(trace: &Trace, scale: &TimeScale, rows: usize, top: f64) -> (Group, f64) {
    let label_space = if has_mode_changes(trace) {
        MODE_LABEL_SPACE
    } else {
        0.0
    };
    let plot_top = top + label_space + MARKER_SPACE;
    let plot_bottom = plot_top + rows as f64 * ROW_HEIGHT;
    let (legend, legend_height) = legend(&trace.task_names, plot_bottom + AXIS_HEIGHT);
    let mut chart = Group::new()
        .add(core_rows(rows, plot_top))
        .add(time_axis(scale, plot_top, plot_bottom))
        .add(segments(trace, scale, plot_top))
        .add(misses(trace, scale, plot_top, plot_bottom));
    if has_discards(trace) {
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

fn has_mode_changes(trace: &Trace) -> bool {
    trace
        .events
        .iter()
        .any(|e| matches!(e, TraceEvent::ModeChange { .. }))
}

fn has_discards(trace: &Trace) -> bool {
    trace
        .events
        .iter()
        .any(|e| matches!(e, TraceEvent::Discard { .. }))
}

/// Maps nanoseconds inside `[from, to)` onto the plot's x range.
struct TimeScale {
    from: u64,
    to: u64,
}

impl TimeScale {
    fn x(&self, ns: u64) -> f64 {
        let offset = ns.clamp(self.from, self.to) - self.from;
        round(LABEL_WIDTH + offset as f64 * PLOT_WIDTH / (self.to - self.from) as f64)
    }

    /// Instants at `to` count as inside: a deadline at the very end of the window (the simulator
    /// reports late jobs whose deadline is the end of the run) still gets its marker.
    fn shows_instant(&self, ns: u64) -> bool {
        (self.from..=self.to).contains(&ns)
    }

    /// `[start, end)` cut to the window, or `None` when nothing of it is inside.
    fn clip(&self, start: u64, end: u64) -> Option<(u64, u64)> {
        let (start, end) = (start.max(self.from), end.min(self.to));
        (start < end).then_some((start, end))
    }
}

/// Enough rows for every declared core and for any segment recorded on a core beyond them.
fn row_count(trace: &Trace) -> usize {
    trace
        .segments()
        .map(|(core, ..)| core + 1)
        .fold(trace.cores, usize::max)
}

fn notes(trace: &Trace, from: Instant, to: Instant, rows: usize) -> Vec<String> {
    let mut notes = Vec::new();
    if rows == 0 {
        notes.push("nothing to draw: the trace has no cores".to_string());
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

fn core_rows(rows: usize, top: f64) -> Group {
    (0..rows).fold(Group::new().set("class", "cores"), |group, core| {
        let y = top + core as f64 * ROW_HEIGHT;
        let shade = if core % 2 == 0 { "#f4f4f4" } else { "#ffffff" };
        let label = format!("core {core}");
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

fn time_axis(scale: &TimeScale, top: f64, bottom: f64) -> Group {
    let axis = Group::new().set("class", "axis").add(line(
        (LABEL_WIDTH, bottom),
        (LABEL_WIDTH + PLOT_WIDTH, bottom),
        "#333",
    ));
    ticks(scale).into_iter().fold(axis, |axis, ns| {
        let x = scale.x(ns);
        let label = Duration::from_nanos(ns).to_string();
        axis.add(line((x, top), (x, bottom), "#ddd"))
            .add(line((x, bottom), (x, bottom + 5.0), "#333"))
            .add(text(label, x, bottom + 18.0).set("text-anchor", "middle"))
    })
}

/// Multiples of a round step (1, 2 or 5 × 10^k ns) inside the window, about ten of them.
fn ticks(scale: &TimeScale) -> Vec<u64> {
    let step = nice_step(scale.to - scale.from);
    let first = scale.from.div_ceil(step).checked_mul(step);
    std::iter::successors(first, |ns| ns.checked_add(step))
        .take_while(|&ns| ns <= scale.to)
        .collect()
}

fn nice_step(span: u64) -> u64 {
    let distance_from_ten = |step: u64| (span as f64 / step as f64 - 10.0).abs();
    let candidates = (0..19u32).flat_map(|k| [1, 2, 5].map(|m| m * 10u64.pow(k)));
    candidates
        .min_by(|a, b| distance_from_ten(*a).total_cmp(&distance_from_ten(*b)))
        .unwrap_or(1)
}

fn segments(trace: &Trace, scale: &TimeScale, top: f64) -> Group {
    let mut group = Group::new().set("class", "segments");
    for (core, task, job, start, end) in trace.segments() {
        let Some((from, to)) = scale.clip(start.as_nanos(), end.as_nanos()) else {
            continue;
        };
        let (x, width) = (scale.x(from), (scale.x(to) - scale.x(from)).max(0.5));
        let y = top + core as f64 * ROW_HEIGHT + BAR_INSET;
        let name = task_name(trace, task);
        let tooltip = Title::new(format!("{name} job {job} [{start}, {end})"));
        let bar = rect(
            "job",
            (x, y),
            (width, ROW_HEIGHT - 2.0 * BAR_INSET),
            colour(task),
        );
        // A white edge separates back-to-back jobs, but would hide bars only a few pixels wide.
        let bar = if width >= 4.0 {
            bar.set("stroke", "white")
        } else {
            bar
        };
        group = group.add(bar.add(tooltip));
        if let Some(label) = fit_label(&name, width) {
            let centre = (x + width / 2.0, y + ROW_HEIGHT / 2.0 + 1.0);
            group = group.add(
                text(label, centre.0, centre.1)
                    .set("text-anchor", "middle")
                    .set("pointer-events", "none"),
            );
        }
    }
    group
}

/// The task name, shortened with "…" to fit a bar `width` px wide; none for narrow bars.
fn fit_label(name: &str, width: f64) -> Option<String> {
    let room = ((width - 6.0) / CHAR_WIDTH) as usize;
    if width <= MIN_LABEL_WIDTH || room == 0 {
        return None;
    }
    if name.chars().count() <= room {
        return Some(name.to_string());
    }
    Some(name.chars().take(room - 1).chain(['…']).collect())
}

fn misses(trace: &Trace, scale: &TimeScale, top: f64, bottom: f64) -> Group {
    let mut group = Group::new().set("class", "misses");
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
        let marker = Polygon::new().set(
            "points",
            format!("{},{base} {},{base} {x},{top}", x - 5.0, x + 5.0),
        );
        let name = task_name(trace, task);
        let tooltip = Title::new(format!("{what}: {name} job {job} at {at}"));
        group = group.add(
            Group::new()
                .set("class", "miss")
                .add(tooltip)
                .add(line((x, base), (x, bottom), MISS_COLOUR).set("stroke-width", 1.5))
                .add(marker.set("fill", MISS_COLOUR)),
        );
    }
    group
}

/// A dashed line across every core at each mode change, labelled "FROM -> TO" above the rows
/// (starting at `top`); hover for the instant.
fn mode_changes(trace: &Trace, scale: &TimeScale, top: f64, bottom: f64) -> Group {
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
                .add(
                    line((x, top + MODE_LABEL_SPACE - 2.0), (x, bottom), MODE_COLOUR)
                        .set("stroke-width", 2)
                        .set("stroke-dasharray", "6,3"),
                )
                .add(mode_label(label, x, top + 11.0)),
        );
    }
    group
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

/// A grey cross on the row above the cores at each discarded job (the job has no core then).
fn discards(trace: &Trace, scale: &TimeScale, plot_top: f64) -> Group {
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
        group = group.add(
            Group::new()
                .set("class", "discard")
                .add(tooltip)
                .add(line((x - 4.0, y - 4.0), (x + 4.0, y + 4.0), DISCARD_COLOUR))
                .add(line((x - 4.0, y + 4.0), (x + 4.0, y - 4.0), DISCARD_COLOUR)),
        );
    }
    group
}

/// Colour swatches with task names, wrapped into lines; returns the legend and its height.
fn legend(task_names: &[String], top: f64) -> (Group, f64) {
    let mut group = Group::new().set("class", "legend");
    let (mut x, mut y) = (LABEL_WIDTH, top);
    for (task, name) in task_names.iter().enumerate() {
        let entry_width = 36.0 + name.chars().count() as f64 * CHAR_WIDTH;
        if x > LABEL_WIDTH && x + entry_width > LABEL_WIDTH + PLOT_WIDTH {
            (x, y) = (LABEL_WIDTH, y + LEGEND_LINE);
        }
        let swatch = rect("swatch", (x, y), (12.0, 12.0), colour(task));
        group = group.add(swatch).add(text(name, x + 18.0, y + 10.0));
        x += entry_width;
    }
    let height = if task_names.is_empty() {
        0.0
    } else {
        y - top + LEGEND_LINE
    };
    (group, height)
}

fn colour(task: usize) -> &'static str {
    PALETTE[task % PALETTE.len()]
}

fn task_name(trace: &Trace, task: usize) -> Cow<'_, str> {
    trace
        .task_names
        .get(task)
        .map_or_else(|| format!("task {task}").into(), |name| name.into())
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
mod tests {
    use super::*;
    use svg::node::Attributes;
    use svg::parser::Event;

    fn ms(n: u64) -> Instant {
        Instant::from_nanos(n * 1_000_000)
    }

    fn bar(core: usize, task: usize, start_us: u64, end_us: u64) -> TraceEvent {
        let at = |us: u64| Instant::from_nanos(us * 1_000);
        TraceEvent::Segment {
            core,
            task,
            job: 0,
            start: at(start_us),
            end: at(end_us),
        }
    }

    /// Four bars on two cores, one miss at 2ms and one abort at 4ms.
    fn sample_trace() -> Trace {
        Trace {
            levels: Vec::new(),
            task_names: vec!["ctrl".into(), "log".into(), "video".into()],
            cores: 2,
            end: ms(5),
            events: vec![
                bar(0, 0, 0, 500),
                bar(1, 1, 0, 1_000),
                bar(0, 0, 1_500, 2_000),
                bar(1, 2, 2_500, 3_500),
                TraceEvent::DeadlineMiss {
                    task: 0,
                    job: 0,
                    at: ms(2),
                },
                TraceEvent::Abort {
                    task: 2,
                    job: 0,
                    at: ms(4),
                },
            ],
        }
    }

    /// Attributes of every element `name` with `class`, parsed back from the SVG (which must parse).
    fn elements(svg: &str, name: &str, class: &str) -> Vec<Attributes> {
        let parser = svg::read(svg).expect("SVG parses");
        let events = parser.filter_map(|event| match event {
            Event::Error(error) => panic!("invalid SVG: {error:?}"),
            Event::Tag(tag, _, attributes) if tag == name => Some(attributes),
            _ => None,
        });
        events
            .filter(|a| a.get("class").is_some_and(|c| &**c == class))
            .collect()
    }

    /// Every text node (labels and tooltips), trimmed and unescaped; the `svg` crate puts
    /// newlines around them.
    fn texts(svg: &str) -> Vec<String> {
        let parser = svg::read(svg).expect("SVG parses");
        let unescape = |text: &str| text.replace("&gt;", ">").replace("&lt;", "<");
        let texts = parser.filter_map(|event| match event {
            Event::Text(text) => Some(unescape(text.trim())),
            _ => None,
        });
        texts.collect()
    }

    fn number(attributes: &Attributes, name: &str) -> f64 {
        attributes[name].parse().expect("numeric attribute")
    }

    #[test]
    fn one_bar_per_segment_and_a_marker_per_miss() {
        let svg = render_svg(&sample_trace(), &GanttOptions::default());
        assert_eq!(elements(&svg, "rect", "job").len(), 4);
        assert_eq!(elements(&svg, "g", "miss").len(), 2);
        let texts = texts(&svg);
        assert!(texts.iter().any(|t| t == "ctrl job 0 [1.5ms, 2ms)"));
        assert!(texts.iter().any(|t| t == "abort: video job 0 at 4ms"));
        assert!(texts.iter().any(|t| t == "core 1") && !texts.iter().any(|t| t == "core 2"));
    }

    #[test]
    fn window_drops_and_clips_segments() {
        let options = GanttOptions {
            window: Some((ms(1), ms(3))),
            title: Some("zoom".into()),
        };
        let svg = render_svg(&sample_trace(), &options);
        let bars = elements(&svg, "rect", "job");
        assert_eq!(
            bars.len(),
            2,
            "bars ending at or before 1ms are outside [1ms, 3ms)"
        );
        let right = |b: &Attributes| number(b, "x") + number(b, "width");
        assert!(bars.iter().all(|b| number(b, "x") >= LABEL_WIDTH));
        assert!(bars.iter().all(|b| right(b) <= LABEL_WIDTH + PLOT_WIDTH));
        assert_eq!(
            right(&bars[1]),
            LABEL_WIDTH + PLOT_WIDTH,
            "2.5ms..3.5ms is cut at 3ms"
        );
        assert_eq!(
            elements(&svg, "g", "miss").len(),
            1,
            "only the miss at 2ms is inside"
        );
    }

    #[test]
    fn nothing_to_draw_still_gives_a_valid_svg_with_a_note() {
        let no_cores = Trace {
            end: ms(1),
            ..Trace::default()
        };
        let cases = [
            (Trace::default(), GanttOptions::default()),
            (no_cores, GanttOptions::default()),
            (
                sample_trace(),
                GanttOptions {
                    window: Some((ms(2), ms(2))),
                    title: None,
                },
            ),
            (
                sample_trace(),
                GanttOptions {
                    window: Some((ms(3), ms(1))),
                    title: None,
                },
            ),
            (
                sample_trace(),
                GanttOptions {
                    window: Some((ms(9), ms(10))),
                    title: None,
                },
            ),
        ];
        for (trace, options) in cases {
            let svg = render_svg(&trace, &options);
            assert!(!elements(&svg, "text", "note").is_empty(), "{options:?}");
            assert!(elements(&svg, "rect", "job").is_empty());
        }
    }

    #[test]
    fn ticks_are_round_and_about_ten() {
        let labels: Vec<String> = ticks(&TimeScale {
            from: 0,
            to: 100_000_000,
        })
        .into_iter()
        .map(|ns| Duration::from_nanos(ns).to_string())
        .collect();
        assert_eq!(labels.first().map(String::as_str), Some("0ns"));
        assert_eq!(labels[1..3], ["10ms", "20ms"]);
        assert_eq!(labels.len(), 11);
        for (from, to) in [(0, 7), (3, 1_300), (1_234_567, 98_765_432), (5, u64::MAX)] {
            let ticks = ticks(&TimeScale { from, to });
            let step = nice_step(to - from);
            assert!((6..=15).contains(&ticks.len()), "{from}..{to}: {ticks:?}");
            assert!(ticks
                .iter()
                .all(|&t| t % step == 0 && (from..=to).contains(&t)));
        }
    }

    #[test]
    fn labels_only_fit_wide_bars() {
        assert_eq!(fit_label("ctrl", MIN_LABEL_WIDTH), None);
        assert_eq!(fit_label("ctrl", 60.0).as_deref(), Some("ctrl"));
        assert_eq!(
            fit_label("a_long_task_name", 60.0).as_deref(),
            Some("a_long_…")
        );
        let svg = render_svg(&sample_trace(), &GanttOptions::default());
        assert!(
            texts(&svg).iter().any(|t| t == "video"),
            "a 1ms bar is 240px wide"
        );
    }

    #[test]
    fn legend_wraps_many_tasks() {
        let task_names = (0..60).map(|i| format!("sensor_fusion_{i}")).collect();
        let trace = Trace {
            levels: Vec::new(),
            task_names,
            cores: 1,
            end: ms(1),
            events: vec![],
        };
        let swatches = elements(
            &render_svg(&trace, &GanttOptions::default()),
            "rect",
            "swatch",
        );
        assert_eq!(swatches.len(), 60);
        let lines: std::collections::BTreeSet<u64> =
            swatches.iter().map(|s| number(s, "y") as u64).collect();
        assert!(lines.len() > 1);
        let right_edge = swatches.iter().map(|s| number(s, "x")).fold(0.0, f64::max);
        assert!(right_edge < LABEL_WIDTH + PLOT_WIDTH);
    }

    /// The sample trace as a two-level run: a LO -> HI change at 1ms, a discard, a return at 4ms.
    fn mode_trace() -> Trace {
        let mut trace = sample_trace();
        trace.levels = vec!["LO".into(), "HI".into()];
        trace.events.extend([
            TraceEvent::ModeChange {
                at: ms(1),
                from: 0,
                to: 1,
            },
            TraceEvent::Discard {
                task: 1,
                job: 0,
                at: ms(1),
            },
            TraceEvent::ModeChange {
                at: ms(4),
                from: 1,
                to: 0,
            },
        ]);
        trace
    }

    #[test]
    fn mode_changes_are_labelled_lines_across_all_cores() {
        let svg = render_svg(&mode_trace(), &GanttOptions::default());
        assert_eq!(elements(&svg, "g", "mode-change").len(), 2);
        assert_eq!(elements(&svg, "g", "discard").len(), 1);
        let texts = texts(&svg);
        assert!(texts.iter().any(|t| t == "LO -> HI"));
        assert!(texts.iter().any(|t| t == "HI -> LO"));
        assert!(texts.iter().any(|t| t == "mode change LO -> HI at 1ms"));
        assert!(texts.iter().any(|t| t == "discarded: log job 0 at 1ms"));
        let rows = elements(&svg, "rect", "row");
        let rows_bottom = rows
            .iter()
            .map(|r| number(r, "y") + number(r, "height"))
            .fold(0.0, f64::max);
        let rows_top = rows.iter().map(|r| number(r, "y")).fold(f64::MAX, f64::min);
        let lines = parse_lines(&svg, MODE_COLOUR);
        assert_eq!(lines.len(), 2);
        for (y1, y2) in lines {
            assert!(y1 <= rows_top && y2 >= rows_bottom, "{y1}..{y2}");
        }
    }

    /// `(y1, y2)` of every line stroked with `colour`.
    fn parse_lines(svg: &str, colour: &str) -> Vec<(f64, f64)> {
        let parser = svg::read(svg).expect("SVG parses");
        parser
            .filter_map(|event| match event {
                Event::Tag("line", _, a) if a.get("stroke").is_some_and(|c| &**c == colour) => {
                    Some((number(&a, "y1"), number(&a, "y2")))
                }
                _ => None,
            })
            .collect()
    }

    #[test]
    fn traces_without_modes_keep_their_layout() {
        let plain = render_svg(&sample_trace(), &GanttOptions::default());
        assert!(elements(&plain, "g", "mode-change").is_empty());
        let row_y = |svg: &str| number(&elements(svg, "rect", "row")[0], "y");
        let moded = render_svg(&mode_trace(), &GanttOptions::default());
        assert_eq!(row_y(&moded), row_y(&plain) + MODE_LABEL_SPACE);
    }

    #[test]
    fn level_panels_stack_with_one_caption_each() {
        let lo = sample_trace();
        let mut hi = sample_trace();
        hi.end = ms(8);
        let panels = [("table LO".to_string(), &lo), ("table HI".to_string(), &hi)];
        let options = GanttOptions {
            window: None,
            title: Some("tables".into()),
        };
        let svg = render_levels_svg(&panels, &options);
        assert_eq!(elements(&svg, "g", "panel").len(), 2);
        let texts = texts(&svg);
        for caption in ["tables", "table LO", "table HI"] {
            assert!(texts.iter().any(|t| t == caption), "{caption}");
        }
        let rows = elements(&svg, "rect", "row");
        assert_eq!(rows.len(), 4, "two cores per panel");
        assert!(number(&rows[2], "y") > number(&rows[1], "y") + ROW_HEIGHT);
        // One shared window, [0, 8ms): the same bar sits at the same x in both panels.
        let bars = elements(&svg, "rect", "job");
        assert_eq!(bars.len(), 8);
        assert_eq!(number(&bars[3], "x"), number(&bars[7], "x"));
        assert_eq!(number(&bars[3], "x"), LABEL_WIDTH + PLOT_WIDTH * 2.5 / 8.0);
        let empty = render_levels_svg(&[], &GanttOptions::default());
        assert!(!elements(&empty, "text", "note").is_empty());
    }
}
