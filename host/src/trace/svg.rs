//! An SVG timeline drawn without a viewer: ranks as rows (or groups of
//! ranks, when there are more than the rows asked for), time across,
//! each phase in a colour of its own and the runtime's calls in two
//! (communicating, waiting). A row's colour at each of its columns is
//! what most of its ranks were doing at that moment, innermost first.

use super::{Activity, SpanKind, Trace};
use std::collections::HashMap;
use std::fmt::Write as _;

const COLUMNS: usize = 1000;
const LEFT: f64 = 90.0;
const ROW: f64 = 14.0;
const TOP: f64 = 40.0;
/// Phase colours, in order of first appearance; then the calls' colours.
const PALETTE: [&str; 8] = [
    "#4e79a7", "#59a14f", "#b07aa1", "#76b7b2", "#edc948", "#9c755f", "#bab0ac", "#ff9da7",
];
const COMMUNICATE: &str = "#f28e2b";
const WAIT: &str = "#e15759";

/// What a rank does at a moment: nothing (0), a phase (1 + its index),
/// or a call.
type State = u16;
const COMM_STATE: State = State::MAX - 1;
const WAIT_STATE: State = State::MAX;

/// The timeline of `t` with at most `max_rows` rows.
pub fn timeline(t: &Trace, max_rows: u32) -> String {
    let ranks = t.ranks().max(1);
    let per_row = ranks.div_ceil(max_rows.max(1));
    let rows = ranks.div_ceil(per_row) as usize;
    let (origin, end) = t.bounds();
    let span = (end - origin).max(1) as f64;
    let mut phases: Vec<String> = Vec::new();
    let mut index: HashMap<String, State> = HashMap::new();
    // Each rank's state per column, painted outer to inner.
    let mut states = vec![0 as State; ranks as usize * COLUMNS];
    let mut order: Vec<&super::Span> = t.spans.iter().collect();
    order.sort_by_key(|s| s.depth);
    let first = t.processes.first().map_or(0, |p| p.first_rank);
    for s in order {
        let state = match (&s.kind, s.kind.activity()) {
            (SpanKind::Phase(name), _) => *index.entry(name.clone()).or_insert_with(|| {
                phases.push(name.clone());
                phases.len() as State
            }),
            (_, Some(Activity::Wait)) => WAIT_STATE,
            _ => COMM_STATE,
        };
        let col = |ns: u64| ((ns - origin) as f64 / span * COLUMNS as f64) as usize;
        let (a, b) = (col(s.start_ns), col(s.end_ns).max(col(s.start_ns) + 1));
        let row = (s.rank - first) as usize * COLUMNS;
        for c in a.min(COLUMNS - 1)..b.min(COLUMNS) {
            states[row + c] = state;
        }
    }
    let width = LEFT + COLUMNS as f64 + 20.0;
    let height = TOP + rows as f64 * ROW + 70.0;
    let colour = |s: State| match s {
        COMM_STATE => COMMUNICATE,
        WAIT_STATE => WAIT,
        p => PALETTE[(p as usize - 1) % PALETTE.len()],
    };
    let mut out = String::new();
    let _ = write!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" font-family="sans-serif" font-size="11"><rect width="100%" height="100%" fill="white"/><text x="{LEFT}" y="20" font-size="14">{} ranks, {:.1} us{}</text>"#,
        ranks,
        span / 1e3,
        if per_row > 1 {
            format!(", {per_row} ranks a row (the state most of them are in)")
        } else {
            String::new()
        }
    );
    for r in 0..rows {
        let y = TOP + r as f64 * ROW;
        let (lo, hi) = (r as u32 * per_row, ((r as u32 + 1) * per_row).min(ranks));
        let label = if per_row > 1 {
            format!("{}-{}", first + lo, first + hi - 1)
        } else {
            format!("rank {}", first + lo)
        };
        let _ = write!(out, r#"<text x="4" y="{}">{label}</text>"#, y + ROW - 3.0);
        let mut run: Option<(usize, State)> = None;
        for c in 0..=COLUMNS {
            let s = (c < COLUMNS).then(|| majority(&states, (lo, hi), c));
            if run.map(|(_, st)| Some(st)) != Some(s) {
                if let Some((start, st)) = run.filter(|&(_, st)| st != 0) {
                    let _ = write!(
                        out,
                        r#"<rect x="{}" y="{y}" width="{}" height="{}" fill="{}"/>"#,
                        LEFT + start as f64,
                        c - start,
                        ROW - 2.0,
                        colour(st)
                    );
                }
                run = s.map(|s| (c, s));
            }
        }
    }
    let axis = TOP + rows as f64 * ROW + 14.0;
    for i in 0..=4 {
        let x = LEFT + COLUMNS as f64 * i as f64 / 4.0;
        let _ = write!(
            out,
            r#"<text x="{x}" y="{axis}" text-anchor="middle">{:.1} us</text>"#,
            span / 1e3 * i as f64 / 4.0
        );
    }
    let mut x = LEFT;
    let legend = phases
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), PALETTE[i % PALETTE.len()]))
        .chain([("communicate", COMMUNICATE), ("wait", WAIT)]);
    for (name, fill) in legend {
        let y = axis + 20.0;
        let _ = write!(
            out,
            r#"<rect x="{x}" y="{}" width="12" height="12" fill="{fill}"/><text x="{}" y="{}">{}</text>"#,
            y - 10.0,
            x + 16.0,
            y,
            escape(name)
        );
        x += 30.0 + 7.0 * name.len() as f64;
    }
    out.push_str("</svg>\n");
    out
}

/// The state most ranks `lo..hi` are in at column `c` (ties: the lowest).
fn majority(states: &[State], (lo, hi): (u32, u32), c: usize) -> State {
    let mut counts: Vec<(State, u32)> = Vec::new();
    for r in lo..hi {
        let s = states[r as usize * COLUMNS + c];
        match counts.iter_mut().find(|(k, _)| *k == s) {
            Some((_, n)) => *n += 1,
            None => counts.push((s, 1)),
        }
    }
    counts.sort_by_key(|&(s, n)| (std::cmp::Reverse(n), s));
    counts.first().map_or(0, |&(s, _)| s)
}

fn escape(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}
