//! What kairos's plots share (plotters): the font, a colour-blind-safe palette, the legend
//! panel beside a plot and tick labels without trailing zeros. Experiments, benchmarks and the
//! platform tools draw with them, so every figure reads alike.

use plotters::coord::Shift;
use plotters::prelude::*;

/// Fonts tried for text, in order (Debian's fonts-dejavu-core provides the first).
const FONT_FILES: [&str; 2] = [
    "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf",
    "/usr/share/fonts/TTF/DejaVuSans.ttf",
];

/// What to tell the user when [`register_font`] found no font, so nothing was drawn.
pub const NO_FONT: &str =
    "warning: no plot drawn: no DejaVuSans.ttf found (install fonts-dejavu-core)";

/// Okabe and Ito's colour-blind-safe palette, without its yellow (unreadable on white).
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0, 114, 178),
    RGBColor(213, 94, 0),
    RGBColor(0, 158, 115),
    RGBColor(204, 121, 167),
    RGBColor(230, 159, 0),
    RGBColor(86, 180, 233),
    RGBColor(0, 0, 0),
];

/// Makes the first of `FONT_FILES` that reads plotters' "sans-serif"; false when none does
/// (plotters draws no text without a font).
pub fn register_font() -> bool {
    FONT_FILES.iter().any(|path| {
        std::fs::read(path).is_ok_and(|bytes| {
            // plotters keeps fonts for the life of the process; one leak per run.
            let bytes: &'static [u8] = Box::leak(bytes.into_boxed_slice());
            plotters::style::register_font("sans-serif", FontStyle::Normal, bytes).is_ok()
        })
    })
}

/// What drawing gives, whatever the backend's error type.
pub type DrawResult = Result<(), Box<dyn std::error::Error>>;

/// Pieces of a horizontal dashed line from `x0` to `x1` at `y`, in pixels.
pub fn dashed_segment(x0: i32, x1: i32, y: i32, on: u32, off: u32) -> Vec<Vec<(i32, i32)>> {
    (x0..x1)
        .step_by((on + off) as usize)
        .map(|x| vec![(x, y), ((x + on as i32).min(x1), y)])
        .collect()
}

/// One entry of a legend drawn beside a plot: a line sample (dashed or not) and its label.
pub struct LegendEntry {
    pub label: String,
    pub color: RGBColor,
    pub dashed: bool,
}

/// Legend entries stacked in `area` (the panel right of the plot, so no data is hidden).
pub fn draw_legend<B: DrawingBackend>(
    area: &DrawingArea<B, Shift>,
    entries: &[LegendEntry],
) -> DrawResult
where
    B::ErrorType: 'static,
{
    let font = ("sans-serif", 14).into_font().color(&BLACK);
    for (i, entry) in entries.iter().enumerate() {
        let y = 60 + 24 * i as i32;
        let style = entry.color.stroke_width(if entry.dashed { 1 } else { 2 });
        let pieces = match entry.dashed {
            true => dashed_segment(8, 44, y, 6, 4),
            false => vec![vec![(8, y), (44, y)]],
        };
        for piece in pieces {
            area.draw(&PathElement::new(piece, style))?;
        }
        area.draw(&Text::new(entry.label.clone(), (52, y - 8), font.clone()))?;
    }
    Ok(())
}

/// A tick label without trailing zeros: 2, 2.5, 0.25.
pub fn trimmed(v: f64) -> String {
    let text = format!("{v:.3}");
    text.trim_end_matches('0').trim_end_matches('.').to_string()
}
