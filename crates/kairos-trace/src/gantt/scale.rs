//! Time on the x axis: the window's mapping onto the plot and the round tick marks.

use super::{line, round, text, LABEL_WIDTH, PLOT_WIDTH};
use kairos_model::Duration;
use svg::node::element::Group;

/// Maps nanoseconds inside `[from, to)` onto the plot's x range.
pub(super) struct TimeScale {
    pub from: u64,
    pub to: u64,
}

impl TimeScale {
    pub fn x(&self, ns: u64) -> f64 {
        let offset = ns.clamp(self.from, self.to) - self.from;
        round(LABEL_WIDTH + offset as f64 * PLOT_WIDTH / (self.to - self.from) as f64)
    }

    /// Instants at `to` count as inside: a deadline at the very end of the window (the simulator
    /// reports late jobs whose deadline is the end of the run) still gets its marker.
    pub fn shows_instant(&self, ns: u64) -> bool {
        (self.from..=self.to).contains(&ns)
    }

    /// `[start, end)` cut to the window, or `None` when nothing of it is inside.
    pub fn clip(&self, start: u64, end: u64) -> Option<(u64, u64)> {
        let (start, end) = (start.max(self.from), end.min(self.to));
        (start < end).then_some((start, end))
    }
}

pub(super) fn time_axis(scale: &TimeScale, top: f64, bottom: f64) -> Group {
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
pub(super) fn ticks(scale: &TimeScale) -> Vec<u64> {
    let step = nice_step(scale.to - scale.from);
    let first = scale.from.div_ceil(step).checked_mul(step);
    std::iter::successors(first, |ns| ns.checked_add(step))
        .take_while(|&ns| ns <= scale.to)
        .collect()
}

pub(super) fn nice_step(span: u64) -> u64 {
    let distance_from_ten = |step: u64| (span as f64 / step as f64 - 10.0).abs();
    let candidates = (0..19u32).flat_map(|k| [1, 2, 5].map(|m| m * 10u64.pow(k)));
    candidates
        .min_by(|a, b| distance_from_ten(*a).total_cmp(&distance_from_ten(*b)))
        .unwrap_or(1)
}
