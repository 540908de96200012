//! A minimal SVG line chart: no plotting dependency for a few curves.

use std::fmt::Write as _;

const W: f64 = 720.0;
const H: f64 = 420.0;
const M: f64 = 60.0;
const COLORS: [&str; 4] = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd"];

/// Curves of `(x, y)` points; `log_x` plots log2(x).
pub fn lines(
    title: &str,
    x_label: &str,
    y_label: &str,
    log_x: bool,
    series: &[(&str, Vec<(f64, f64)>)],
) -> String {
    let fx = |x: f64| if log_x { x.max(1.0).log2() } else { x };
    let pts: Vec<(f64, f64)> = series
        .iter()
        .flat_map(|(_, s)| s.iter().map(|&(x, y)| (fx(x), y)))
        .collect();
    let (x0, x1) = pts
        .iter()
        .fold((f64::MAX, f64::MIN), |(a, b), p| (a.min(p.0), b.max(p.0)));
    let y1 = pts.iter().fold(0.0f64, |a, p| a.max(p.1)) * 1.1;
    let (x1, y1) = (
        if x1 > x0 { x1 } else { x0 + 1.0 },
        if y1 > 0.0 { y1 } else { 1.0 },
    );
    let sx = |x: f64| M + (fx(x) - x0) / (x1 - x0) * (W - 2.0 * M);
    let sy = |y: f64| H - M - y / y1 * (H - 2.0 * M);
    let mut svg = format!("<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{W}\" height=\"{H}\" font-family=\"sans-serif\" font-size=\"12\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    let _ = writeln!(
        svg,
        "<text x=\"{}\" y=\"24\" text-anchor=\"middle\" font-size=\"16\">{title}</text>",
        W / 2.0
    );
    let _ = writeln!(svg, "<line x1=\"{M}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"black\"/><line x1=\"{M}\" y1=\"{M}\" x2=\"{M}\" y2=\"{}\" stroke=\"black\"/>", H - M, W - M, H - M, H - M);
    for i in 0..=4 {
        let y = y1 * i as f64 / 4.0;
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{y:.1}</text>",
            M - 6.0,
            sy(y) + 4.0
        );
        let x = x0 + (x1 - x0) * i as f64 / 4.0;
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>",
            M + (x - x0) / (x1 - x0) * (W - 2.0 * M),
            H - M + 18.0,
            if log_x {
                format!("2^{x:.0}")
            } else {
                format!("{x:.0}")
            }
        );
    }
    let _ = writeln!(
        svg,
        "<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{x_label}</text>",
        W / 2.0,
        H - 16.0
    );
    let _ = writeln!(svg, "<text x=\"16\" y=\"{}\" transform=\"rotate(-90 16 {})\" text-anchor=\"middle\">{y_label}</text>", H / 2.0, H / 2.0);
    for (i, (name, s)) in series.iter().enumerate() {
        let c = COLORS[i % COLORS.len()];
        let path: Vec<String> = s
            .iter()
            .map(|&(x, y)| format!("{:.1},{:.1}", sx(x), sy(y)))
            .collect();
        let _ = writeln!(
            svg,
            "<polyline fill=\"none\" stroke=\"{c}\" stroke-width=\"2\" points=\"{}\"/>",
            path.join(" ")
        );
        let _ = writeln!(
            svg,
            "<text x=\"{}\" y=\"{}\" fill=\"{c}\">{name}</text>",
            M + 10.0,
            M + 16.0 * (i as f64 + 1.0)
        );
    }
    svg.push_str("</svg>\n");
    svg
}
