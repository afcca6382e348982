//! The chart options `simulate` and `run` take from their command lines; the files a trace
//! becomes are written by `kairos_lab::simulate::pictures`.

use kairos_model::Instant;
use kairos_trace::gantt::GanttOptions;

/// `--gantt-window` and `--gantt-by` as chart options (the title is set per chart).
pub(crate) fn gantt_view(
    window: Option<(Instant, Instant)>,
    rows: kairos_trace::gantt::RowsBy,
) -> GanttOptions {
    GanttOptions {
        window,
        rows,
        title: None,
    }
}
