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
