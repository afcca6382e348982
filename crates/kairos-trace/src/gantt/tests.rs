//! The Gantt renderer, checked on the SVG it writes (parsed back).

use super::marks::MODE_COLOUR;
use super::scale::{nice_step, ticks};
use super::*;
use kairos_model::Duration;
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
        optional_deadlines: Vec::new(),
        server_names: Vec::new(),
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
    assert!(texts
        .iter()
        .any(|t| t == "ctrl job 0 [1.5ms, 2ms) on core 0"));
    assert!(texts.iter().any(|t| t == "abort: video job 0 at 4ms"));
    assert!(texts.iter().any(|t| t == "core 1") && !texts.iter().any(|t| t == "core 2"));
}

#[test]
fn window_drops_and_clips_segments() {
    let options = GanttOptions {
        window: Some((ms(1), ms(3))),
        title: Some("zoom".into()),
        ..GanttOptions::default()
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
                ..GanttOptions::default()
            },
        ),
        (
            sample_trace(),
            GanttOptions {
                window: Some((ms(3), ms(1))),
                ..GanttOptions::default()
            },
        ),
        (
            sample_trace(),
            GanttOptions {
                window: Some((ms(9), ms(10))),
                ..GanttOptions::default()
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
    assert_eq!(fit_label("ctrl", MIN_LABEL_WIDTH, MIN_LABEL_WIDTH), None);
    assert_eq!(
        fit_label("ctrl", 60.0, MIN_LABEL_WIDTH).as_deref(),
        Some("ctrl")
    );
    assert_eq!(
        fit_label("a_long_task_name", 60.0, MIN_LABEL_WIDTH).as_deref(),
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
        optional_deadlines: Vec::new(),
        server_names: Vec::new(),
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

/// 48 tasks get 48 different (colour, hatching) pairs, in the bars and in the legend.
#[test]
fn many_tasks_stay_apart_by_colour_and_hatching() {
    let tasks = 48;
    let trace = Trace {
        levels: Vec::new(),
        optional_deadlines: Vec::new(),
        server_names: Vec::new(),
        task_names: (0..tasks).map(|i| format!("t{i}")).collect(),
        cores: 1,
        end: ms(tasks as u64),
        events: (0..tasks)
            .map(|t| bar(0, t, t as u64 * 1_000, t as u64 * 1_000 + 900))
            .collect(),
    };
    let svg = render_svg(&trace, &GanttOptions::default());
    let bars = elements(&svg, "rect", "job");
    let hatches = elements(&svg, "rect", "hatch");
    assert_eq!(bars.len(), tasks);
    // Each hatched bar has its overlay at its own x; pair the two.
    let look = |i: usize| {
        let (x, y) = (number(&bars[i], "x"), number(&bars[i], "y"));
        let hatch = hatches
            .iter()
            .find(|h| number(h, "x") == x && number(h, "y") == y)
            .map(|h| h["fill"].to_string());
        (bars[i]["fill"].to_string(), hatch)
    };
    let looks: std::collections::BTreeSet<_> = (0..tasks).map(look).collect();
    assert_eq!(looks.len(), tasks, "two tasks look alike");
    assert_eq!(look(12).0, look(0).0, "colours repeat after twelve...");
    assert_ne!(look(12).1, look(0).1, "...with a hatching");
    // The legend shows the hatching too: 36 hatched bars and 36 hatched swatches.
    assert_eq!(hatches.len(), 2 * 36);
}

/// Every mark present has a legend entry; the miss names its task and job on the chart.
#[test]
fn the_legend_explains_the_marks_and_misses_are_named() {
    let texts = texts(&render_svg(&mode_trace(), &GanttOptions::default()));
    for key in ["deadline miss (task#job)", "discarded job", "mode change"] {
        assert!(texts.iter().any(|t| t == key), "{key}");
    }
    assert!(
        !texts.iter().any(|t| t == "release"),
        "arrows only in the task view"
    );
    let svg = render_svg(&sample_trace(), &GanttOptions::default());
    let labels = elements(&svg, "text", "miss-label");
    assert_eq!(labels.len(), 2);
    assert!(texts.iter().any(|t| t == "ctrl#0") && texts.iter().any(|t| t == "video#0"));
}

/// The task view: one row per task, named; bars labelled with their core; an up arrow at each
/// release and a down arrow at each deadline, on the task's row.
#[test]
fn task_rows_show_releases_and_deadlines() {
    let mut trace = sample_trace();
    trace.events.push(TraceEvent::Release {
        task: 2,
        job: 0,
        at: ms(2),
        deadline: ms(4),
    });
    let options = GanttOptions {
        rows: RowsBy::Tasks,
        ..GanttOptions::default()
    };
    let svg = render_svg(&trace, &options);
    let texts = texts(&svg);
    let rows = elements(&svg, "rect", "row");
    assert_eq!(rows.len(), 3, "one row per task");
    for name in ["ctrl", "log", "video", "c1", "release", "deadline"] {
        assert!(texts.iter().any(|t| t == name), "{name}");
    }
    let release = elements(&svg, "g", "release");
    let deadline = elements(&svg, "g", "deadline");
    assert_eq!((release.len(), deadline.len()), (1, 1));
    assert!(texts.iter().any(|t| t == "release: video job 0 at 2ms"));
    assert!(texts.iter().any(|t| t == "deadline: video job 0 at 4ms"));
    // video's bar sits on the third row.
    let bars = elements(&svg, "rect", "job");
    let third_row = number(&rows[2], "y");
    assert_eq!(number(&bars[3], "y"), third_row + BAR_INSET);
}

mod modes;
use modes::mode_trace;

/// Names reach the chart from anywhere (a file, a library caller): whatever they hold, the SVG
/// has only characters XML allows, and the rest of each name is kept.
#[test]
fn characters_xml_forbids_never_reach_the_svg() {
    let mut trace = sample_trace();
    trace.task_names = vec!["ct\0rl".into(), "l\u{1}og".into(), "vid\u{FFFF}eo\t".into()];
    let title = Some("ti\u{1b}tle".to_string());
    for rows in [RowsBy::Cores, RowsBy::Tasks] {
        let options = GanttOptions {
            title: title.clone(),
            rows,
            ..GanttOptions::default()
        };
        let svg = render_svg(&trace, &options);
        let bad: Vec<char> = svg
            .chars()
            .filter(|&c| !kairos_model::names::is_xml_char(c))
            .collect();
        assert!(bad.is_empty(), "{bad:?} in the SVG");
        let shown = texts(&svg);
        for name in ["ctrl", "title"] {
            assert!(
                shown.iter().any(|t| t.contains(name)),
                "{name} not in {shown:?}"
            );
        }
    }
}
