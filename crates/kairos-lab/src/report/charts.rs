//! The page's response-time chart: one row per task, the spread of its jobs' response times
//! (10th to 90th percentile as a box, the median as a tick, the extremes as whiskers) against
//! its deadline. Written as SVG text directly: a few rectangles and lines, where a plotting
//! library would need a font file at run time to measure its labels.

use kairos_model::Workload;

const ROW: f64 = 22.0;
const LEFT: f64 = 130.0;
const WIDTH: f64 = 760.0;

/// The chart for one policy's `responses` (per task, ns).
pub fn responses_svg(workload: &Workload, responses: &[Vec<u64>]) -> String {
    let longest = workload
        .tasks
        .iter()
        .map(|t| t.deadline.as_nanos())
        .chain(responses.iter().flatten().copied())
        .max()
        .unwrap_or(1)
        .max(1) as f64;
    let x = |ns: u64| LEFT + WIDTH * ns as f64 / longest;
    let height = ROW * (workload.tasks.len() as f64 + 1.5);
    let mut out = format!(
        r#"<svg class="responses" xmlns="http://www.w3.org/2000/svg" width="{w}" height="{height}" viewBox="0 0 {w} {height}" font-family="sans-serif" font-size="11">"#,
        w = LEFT + WIDTH + 20.0
    );
    for (i, task) in workload.tasks.iter().enumerate() {
        let y = ROW * (i as f64 + 0.5);
        out.push_str(&format!(
            r#"<text x="{}" y="{}" text-anchor="end">{}</text>"#,
            LEFT - 8.0,
            y + 12.0,
            super::html::escape(&task.name)
        ));
        let deadline = x(task.deadline.as_nanos());
        out.push_str(&format!(
            r##"<line x1="{deadline}" x2="{deadline}" y1="{}" y2="{}" stroke="#c0392b" stroke-width="2"><title>deadline</title></line>"##,
            y + 1.0,
            y + ROW - 3.0
        ));
        let mut times = responses.get(i).cloned().unwrap_or_default();
        if times.is_empty() {
            out.push_str(&format!(
                r##"<text x="{LEFT}" y="{}" fill="#777">no completed job</text>"##,
                y + 12.0
            ));
            continue;
        }
        times.sort_unstable();
        let q = |p: f64| times[((times.len() - 1) as f64 * p).round() as usize];
        let (lo, p10, p50, p90, hi) = (times[0], q(0.1), q(0.5), q(0.9), times[times.len() - 1]);
        let mid = y + ROW / 2.0;
        out.push_str(&format!(
            r##"<line x1="{}" x2="{}" y1="{mid}" y2="{mid}" stroke="#555"/><rect x="{}" y="{}" width="{}" height="{}" fill="#5b8ff9" opacity="0.8"><title>{} jobs: min {}, p10 {}, median {}, p90 {}, max {} (ns)</title></rect><line x1="{}" x2="{}" y1="{}" y2="{}" stroke="#111" stroke-width="2"/>"##,
            x(lo),
            x(hi),
            x(p10),
            y + 4.0,
            (x(p90) - x(p10)).max(1.0),
            ROW - 10.0,
            times.len(),
            lo,
            p10,
            p50,
            p90,
            hi,
            x(p50),
            x(p50),
            y + 3.0,
            y + ROW - 5.0
        ));
    }
    let axis_y = ROW * (workload.tasks.len() as f64 + 0.7);
    out.push_str(&format!(
        r##"<line x1="{LEFT}" x2="{}" y1="{axis_y}" y2="{axis_y}" stroke="#333"/><text x="{LEFT}" y="{}">0</text><text x="{}" y="{}" text-anchor="end">{}</text></svg>"##,
        LEFT + WIDTH,
        axis_y + 14.0,
        LEFT + WIDTH,
        axis_y + 14.0,
        kairos_model::Duration::from_nanos(longest as u64)
    ));
    out
}
