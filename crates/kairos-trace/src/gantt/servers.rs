//! Servers (VCPUs) in the per-core view: a strip along the top of each core's row shows which
//! VCPU held the core (hover for its name and interval), the jobs it ran below it in the same
//! row. Traces without servers draw no strip and keep the full bar height.

use super::scale::TimeScale;
use super::style::fit_label;
use super::{rect, text, BAR_INSET, MIN_LABEL_WIDTH, ROW_HEIGHT};
use crate::{Trace, TraceEvent};
use svg::node::element::{Group, Title};

/// Height of the strip, and the room the job bars give up for it.
pub(super) const STRIP: f64 = 10.0;

/// Greys and muted tones, distinct from the task palette, one per server (repeating).
const SERVER_TONES: [&str; 6] = [
    "#5b5b5b", "#8c6d46", "#4f6d7a", "#7a4f6d", "#6d7a4f", "#46658c",
];

/// Whether the trace ran through servers.
pub(super) fn present(trace: &Trace) -> bool {
    !trace.server_names.is_empty()
}

/// The strips of every server segment, rows from `top`.
pub(super) fn strips(trace: &Trace, scale: &TimeScale, top: f64) -> Group {
    let mut group = Group::new().set("class", "servers");
    for event in &trace.events {
        let TraceEvent::ServerSegment {
            core,
            server,
            start,
            end,
        } = *event
        else {
            continue;
        };
        let Some((from, to)) = scale.clip(start.as_nanos(), end.as_nanos()) else {
            continue;
        };
        let (x, width) = (scale.x(from), (scale.x(to) - scale.x(from)).max(0.5));
        let y = top + core as f64 * ROW_HEIGHT + BAR_INSET / 2.0;
        let name =
            (trace.server_names.get(server)).map_or(format!("server {server}"), Clone::clone);
        let tone = SERVER_TONES[server % SERVER_TONES.len()];
        let tooltip = Title::new(format!("VCPU {name} [{start}, {end}) on core {core}"));
        group = group.add(rect("server", (x, y), (width, STRIP), tone).add(tooltip));
        if let Some(label) = fit_label(&name, width, MIN_LABEL_WIDTH) {
            group = group.add(
                text(label, x + width / 2.0, y + STRIP - 2.0)
                    .set("text-anchor", "middle")
                    .set("font-size", 9)
                    .set("fill", "white")
                    .set("pointer-events", "none"),
            );
        }
    }
    group
}

#[cfg(test)]
mod tests {
    use crate::gantt::{render_svg, GanttOptions};
    use crate::{Trace, TraceEvent};
    use kairos_model::Instant;

    fn trace(server_names: Vec<String>) -> Trace {
        let at = Instant::from_nanos;
        Trace {
            task_names: vec!["dom/t".into()],
            levels: Vec::new(),
            cores: 1,
            end: at(10_000),
            optional_deadlines: Vec::new(),
            server_names,
            events: vec![
                TraceEvent::Segment {
                    core: 0,
                    task: 0,
                    job: 0,
                    start: at(0),
                    end: at(5_000),
                },
                TraceEvent::ServerSegment {
                    core: 0,
                    server: 0,
                    start: at(0),
                    end: at(6_000),
                },
            ],
        }
    }

    #[test]
    fn the_core_view_shows_which_vcpu_held_the_core_above_its_jobs() {
        let svg = render_svg(&trace(vec!["dom/v0".into()]), &GanttOptions::default());
        assert!(svg.contains("class=\"server\""), "{svg}");
        assert!(svg.contains("VCPU dom/v0 [0ns, 6us) on core 0"), "{svg}");
        // The job's bar gives up the strip's height.
        assert!(svg.contains("height=\"12\""), "{svg}");
        let plain = render_svg(&trace(Vec::new()), &GanttOptions::default());
        assert!(!plain.contains("class=\"server\"") && plain.contains("height=\"22\""));
    }
}
