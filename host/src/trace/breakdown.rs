//! The breakdown plot: where the time went, as stacked bars of computing,
//! communicating and waiting: the whole run, each phase over all ranks,
//! and the ranks in at most `max_rows` groups of consecutive ranks. Each
//! bar is its own 100%, labelled with its total and overlap ratio.

use super::summary::{Split, Summary};
use std::fmt::Write as _;

const LEFT: f64 = 170.0;
const WIDTH: f64 = 600.0;
const ROW: f64 = 18.0;
const TOP: f64 = 40.0;
const COLORS: [(&str, &str); 3] = [
    ("compute", "#4e79a7"),
    ("communicate", "#f28e2b"),
    ("wait", "#e15759"),
];

/// The bars' rows: (label, split), the run's total first.
pub fn rows(s: &Summary, max_rows: usize) -> Vec<(String, Split)> {
    let mut rows = vec![("all ranks, total".to_string(), s.total)];
    for (phase, split) in &s.phases {
        rows.push((format!("all ranks, {phase}"), *split));
    }
    let ranks: Vec<(u32, Split)> = s
        .ranks
        .iter()
        .map(|(&r, phases)| (r, phases.values().fold(Split::default(), |a, b| a.plus(b))))
        .collect();
    let per = ranks.len().div_ceil(max_rows.max(1)).max(1);
    for group in ranks.chunks(per) {
        let (first, last) = (group[0].0, group[group.len() - 1].0);
        let label = if first == last {
            format!("rank {first}")
        } else {
            format!("ranks {first}-{last}")
        };
        rows.push((
            label,
            group.iter().fold(Split::default(), |a, (_, b)| a.plus(b)),
        ));
    }
    rows
}

/// The SVG.
pub fn breakdown(s: &Summary, max_rows: usize) -> String {
    let rows = rows(s, max_rows);
    let height = TOP + ROW * rows.len() as f64 + 40.0;
    let mut svg = format!(
        "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{height}\" font-family=\"sans-serif\" font-size=\"11\"><rect width=\"100%\" height=\"100%\" fill=\"white\"/><text x=\"{LEFT}\" y=\"20\" font-size=\"14\">Where the time went: compute, communicate, wait (each bar 100%)</text>",
        LEFT + WIDTH + 170.0
    );
    for (i, (label, split)) in rows.iter().enumerate() {
        let y = TOP + ROW * i as f64;
        let _ = write!(
            svg,
            "<text x=\"4\" y=\"{}\">{}</text>",
            y + 12.0,
            escape(label)
        );
        let total = split.total_ns().max(1) as f64;
        let mut x = LEFT;
        for (ns, (_, color)) in [split.compute_ns, split.communicate_ns, split.wait_ns]
            .into_iter()
            .zip(COLORS)
        {
            let w = WIDTH * ns as f64 / total;
            if w > 0.0 {
                let _ = write!(svg, "<rect x=\"{x:.2}\" y=\"{y}\" width=\"{w:.2}\" height=\"{}\" fill=\"{color}\"/>", ROW - 3.0);
            }
            x += w;
        }
        let _ = write!(
            svg,
            "<text x=\"{}\" y=\"{}\">{:.3} ms of rank time, overlap {:.3}</text>",
            LEFT + WIDTH + 6.0,
            y + 12.0,
            split.total_ns() as f64 / 1e6,
            split.overlap()
        );
    }
    let y = TOP + ROW * rows.len() as f64 + 16.0;
    for (i, (name, color)) in COLORS.iter().enumerate() {
        let x = LEFT + 130.0 * i as f64;
        let _ = write!(svg, "<rect x=\"{x}\" y=\"{}\" width=\"12\" height=\"12\" fill=\"{color}\"/><text x=\"{}\" y=\"{}\">{name}</text>", y - 10.0, x + 16.0, y);
    }
    svg.push_str("</svg>\n");
    svg
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn split(c: u64, m: u64, w: u64) -> Split {
        Split {
            compute_ns: c,
            communicate_ns: m,
            wait_ns: w,
        }
    }

    #[test]
    fn bars_are_shares_of_their_own_total() {
        let mut s = Summary::default();
        for r in 0..10u32 {
            let mut phases = BTreeMap::new();
            phases.insert("halo".to_string(), split(600, 300, 100 * r as u64));
            s.ranks.insert(r, phases);
        }
        s.phases.insert("halo".into(), split(6000, 3000, 4500));
        s.total = split(6000, 3000, 4500);
        let rows = rows(&s, 4);
        // The total, one phase, then ranks in groups of three (10 in ≤ 4 rows).
        let labels: Vec<&str> = rows.iter().map(|(l, _)| l.as_str()).collect();
        assert_eq!(
            labels,
            [
                "all ranks, total",
                "all ranks, halo",
                "ranks 0-2",
                "ranks 3-5",
                "ranks 6-8",
                "rank 9"
            ]
        );
        assert_eq!(rows[5].1, split(600, 300, 900));
        let svg = breakdown(&s, 4);
        // Rank 9: 600 of 1800 ns computing is a third of the bar's 600 px.
        assert!(
            svg.contains("width=\"200.00\" height=\"15\" fill=\"#4e79a7\""),
            "{svg}"
        );
        assert!(
            svg.contains("0.002 ms of rank time, overlap 0.500"),
            "{svg}"
        );
    }
}
