//! Mode changes and level panels in the Gantt chart.

use super::*;

/// The sample trace as a two-level run: a LO -> HI change at 1ms, a discard, a return at 4ms.
pub(super) fn mode_trace() -> Trace {
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
    // The mode-change lines on the chart (the legend key is a short one of its own).
    let lines: Vec<_> = parse_lines(&svg, MODE_COLOUR)
        .into_iter()
        .filter(|&(_, y2)| y2 >= rows_bottom)
        .collect();
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
        title: Some("tables".into()),
        ..GanttOptions::default()
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
