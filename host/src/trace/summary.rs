//! Where each rank's time went: per phase, the time computing (inside
//! the phase, outside any runtime call), communicating (puts, gets,
//! notifications, sends, collectives) and waiting (waits, barriers,
//! receives, flushes), per rank and in total, and the overlap ratio: the
//! share of the time in which ranks did not wait (1.0: communication
//! entirely hidden behind work).

use super::{Activity, Span, SpanKind, Trace};
use std::collections::BTreeMap;
use std::fmt;

/// Time outside every phase is reported under this name.
pub const OUTSIDE: &str = "(outside phases)";

/// Nanoseconds of each kind.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Split {
    /// Outside runtime calls.
    pub compute_ns: u64,
    /// In calls that move data or signals.
    pub communicate_ns: u64,
    /// In calls that wait for others.
    pub wait_ns: u64,
}

impl Split {
    /// All of it.
    pub fn total_ns(&self) -> u64 {
        self.compute_ns + self.communicate_ns + self.wait_ns
    }

    /// The share not spent waiting (1.0 for no time at all).
    pub fn overlap(&self) -> f64 {
        match self.total_ns() {
            0 => 1.0,
            t => 1.0 - self.wait_ns as f64 / t as f64,
        }
    }

    /// The sum of two splits.
    pub fn plus(&self, o: &Split) -> Split {
        let mut s = *self;
        s.add(o);
        s
    }

    fn add(&mut self, o: &Split) {
        self.compute_ns += o.compute_ns;
        self.communicate_ns += o.communicate_ns;
        self.wait_ns += o.wait_ns;
    }
}

/// A traced run's summary.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    /// Per rank, per phase.
    pub ranks: BTreeMap<u32, BTreeMap<String, Split>>,
    /// Per phase, all ranks together.
    pub phases: BTreeMap<String, Split>,
    /// All ranks, all phases.
    pub total: Split,
    /// Spans lost to full buffers, as in the trace.
    pub dropped: u64,
    /// Phases never ended, as in the trace.
    pub unclosed: u64,
    /// Where spans were dropped, the end of the time every rank recorded
    /// (ns): the sums stop there.
    pub window_end_ns: Option<u64>,
}

/// Summarises `t`.
pub fn summarise(t: &Trace) -> Summary {
    let mut s = Summary {
        dropped: t.dropped,
        unclosed: t.unclosed,
        window_end_ns: (t.dropped > 0).then(|| recorded_by_all(t)),
        ..Summary::default()
    };
    let mut at = 0;
    while at < t.spans.len() {
        let rank = t.spans[at].rank;
        let n = t.spans[at..].iter().take_while(|x| x.rank == rank).count();
        let spans = &t.spans[at..at + n];
        let phases = match s.window_end_ns {
            Some(end) => rank_split(&clipped(spans, end)),
            None => rank_split(spans),
        };
        for (name, split) in &phases {
            s.phases.entry(name.clone()).or_default().add(split);
            s.total.add(split);
        }
        s.ranks.insert(rank, phases);
        at += n;
    }
    s
}

/// The end of the time every rank recorded: the earliest of the ranks'
/// last span ends. A full buffer keeps a rank's first spans, and ranks
/// with more calls a step fill theirs sooner; summed to the end of each
/// one's own record, they would compare different numbers of steps.
fn recorded_by_all(t: &Trace) -> u64 {
    let mut last: BTreeMap<u32, u64> = BTreeMap::new();
    for x in &t.spans {
        let e = last.entry(x.rank).or_default();
        *e = (*e).max(x.end_ns);
    }
    last.into_values().min().unwrap_or(0)
}

/// `spans` up to `end`: those that start before it, cut there.
fn clipped(spans: &[Span], end: u64) -> Vec<Span> {
    spans
        .iter()
        .filter(|x| x.start_ns < end)
        .map(|x| Span {
            end_ns: x.end_ns.min(end),
            ..x.clone()
        })
        .collect()
}

/// One rank's spans (sorted by start, outer first) split by innermost
/// phase: a phase's own time less its inner phases' is computing, except
/// for the calls directly in it.
fn rank_split(spans: &[Span]) -> BTreeMap<String, Split> {
    let mut out: BTreeMap<String, Split> = BTreeMap::new();
    let first = spans.iter().map(|s| s.start_ns).min().unwrap_or(0);
    let last = spans.iter().map(|s| s.end_ns).max().unwrap_or(first);
    // Open phases: (name, end); the outside is the bottom of the stack.
    let mut open: Vec<(String, u64)> = vec![(OUTSIDE.into(), u64::MAX)];
    out.entry(OUTSIDE.into()).or_default().compute_ns += last - first;
    for s in spans {
        while open.len() > 1 && open.last().is_some_and(|&(_, end)| end <= s.start_ns) {
            open.pop();
        }
        let parent = open.last().map(|(n, _)| n.clone()).unwrap_or_default();
        let dur = s.end_ns - s.start_ns;
        let p = out.entry(parent).or_default();
        p.compute_ns = p.compute_ns.saturating_sub(dur);
        match (&s.kind, s.kind.activity()) {
            (SpanKind::Phase(name), _) => {
                out.entry(name.clone()).or_default().compute_ns += dur;
                open.push((name.clone(), s.end_ns));
            }
            (_, Some(Activity::Wait)) => out.entry(open_name(&open)).or_default().wait_ns += dur,
            _ => out.entry(open_name(&open)).or_default().communicate_ns += dur,
        }
    }
    out
}

fn open_name(open: &[(String, u64)]) -> String {
    open.last().map(|(n, _)| n.clone()).unwrap_or_default()
}

impl fmt::Display for Summary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let us = |ns: u64| ns as f64 / 1e3;
        let row = |f: &mut fmt::Formatter<'_>, who: &str, phase: &str, s: &Split| {
            writeln!(
                f,
                "{who:>8} {phase:<20} {:>12.1} {:>12.1} {:>12.1} {:>8.3}",
                us(s.compute_ns),
                us(s.communicate_ns),
                us(s.wait_ns),
                s.overlap()
            )
        };
        writeln!(
            f,
            "{:>8} {:<20} {:>12} {:>12} {:>12} {:>8}",
            "rank", "phase", "compute us", "comm us", "wait us", "overlap"
        )?;
        for (phase, split) in &self.phases {
            row(f, "all", phase, split)?;
        }
        row(f, "all", "(total)", &self.total)?;
        for (rank, phases) in &self.ranks {
            for (phase, split) in phases {
                row(f, &rank.to_string(), phase, split)?;
            }
        }
        if self.dropped > 0 || self.unclosed > 0 {
            writeln!(
                f,
                "incomplete: {} spans dropped (raise DCUDA_TRACE_SPANS), {} phases never ended",
                self.dropped, self.unclosed
            )?;
        }
        if let Some(end) = self.window_end_ns {
            writeln!(
                f,
                "every rank summed up to {end} ns (host clock), where the first rank's buffer was full"
            )?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn span(rank: u32, start_ns: u64, end_ns: u64, kind: SpanKind) -> Span {
        Span {
            rank,
            process: 0,
            start_ns,
            end_ns,
            kind,
            peer: None,
            bytes: 0,
            depth: 0,
        }
    }

    /// Rank 0 recorded until 100 ns, rank 1 until 300 ns.
    fn trace(dropped: u64) -> Trace {
        let phase = || SpanKind::Phase("step".into());
        Trace {
            spans: vec![
                span(0, 0, 100, phase()),
                span(1, 0, 80, phase()),
                span(1, 80, 120, SpanKind::Call("wait_notifications")),
                span(1, 120, 300, phase()),
            ],
            dropped,
            ..Trace::default()
        }
    }

    #[test]
    fn with_spans_dropped_every_rank_is_summed_over_the_time_all_recorded() {
        let s = summarise(&trace(3));
        assert_eq!(s.window_end_ns, Some(100));
        let one = &s.ranks[&1];
        assert_eq!(one["step"].compute_ns, 80);
        assert_eq!(one[OUTSIDE].wait_ns, 20);
        assert_eq!(one[OUTSIDE].compute_ns, 0);
        assert!(s.to_string().contains("summed up to 100 ns"), "{s}");
    }

    #[test]
    fn a_complete_trace_is_summed_whole() {
        let s = summarise(&trace(0));
        assert_eq!(s.window_end_ns, None);
        assert_eq!(s.ranks[&1]["step"].compute_ns, 260);
        assert_eq!(s.ranks[&1][OUTSIDE].wait_ns, 40);
    }
}
