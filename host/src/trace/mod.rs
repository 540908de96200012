//! Timelines of traced runs ([`RunConfig::trace`](crate::RunConfig::trace),
//! `DCUDA_TRACE`): each rank's phases and runtime calls, read from the
//! device after the run, placed on the hosts' clock, gathered from every
//! process, and written as Chrome trace JSON ([`chrome`]), an SVG timeline
//! ([`svg`]) and a summary of computing, communicating and waiting
//! ([`summary`]).
//!
//! Clocks: each GPU's spans carry its `%globaltimer`. At the end of the
//! run, device rank 0 reads it just before and just after a host round
//! trip in which the host reads its own clock (`CLOCK_REALTIME`); the
//! offset is the host's reading minus the midpoint of the two, with at
//! most half the round trip as its error (recorded per process). The
//! processes of one node share that clock; across nodes the hosts' clocks
//! must be synchronised (NTP, PTP).

pub mod breakdown;
pub mod chrome;
pub(crate) mod collect;
pub mod predict;
pub mod summary;
pub mod svg;

pub(crate) use collect::TraceMemory;
pub use predict::{predict, Prediction};

/// The host clock now: ns since the Unix epoch (`CLOCK_REALTIME`), the
/// clock spans are placed on.
pub fn unix_ns() -> u64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as u64)
}

/// What a span is.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SpanKind {
    /// A user phase (`trace_begin` .. `trace_end`), by name.
    Phase(String),
    /// A runtime call, by name (`put_notify`, `wait_notifications`, ...).
    Call(&'static str),
}

/// How a runtime call spends a rank's time in the summary.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Activity {
    /// Moving data or signals: puts, gets, notifications, sends,
    /// collectives, window and communicator management.
    Communicate,
    /// Waiting for others: notifications, matches, barriers, receives,
    /// probes, flushes.
    Wait,
}

impl SpanKind {
    /// The name shown in timelines.
    pub fn name(&self) -> &str {
        match self {
            SpanKind::Phase(n) => n,
            SpanKind::Call(n) => n,
        }
    }

    /// A runtime call's activity (`None` for a phase).
    pub fn activity(&self) -> Option<Activity> {
        match self {
            SpanKind::Phase(_) => None,
            SpanKind::Call(
                "wait_notifications" | "wait_match" | "barrier" | "recv" | "probe" | "flush",
            ) => Some(Activity::Wait),
            SpanKind::Call(_) => Some(Activity::Communicate),
        }
    }
}

/// One span of one rank, on the hosts' clock.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Span {
    /// World rank.
    pub rank: u32,
    /// Its process.
    pub process: u32,
    /// Start, ns since the Unix epoch (host clock).
    pub start_ns: u64,
    /// End, as `start_ns`.
    pub end_ns: u64,
    /// What it is.
    pub kind: SpanKind,
    /// A call's peer rank in its communicator (target, source, root).
    pub peer: Option<u32>,
    /// A call's bytes (a wait's count).
    pub bytes: u64,
    /// Phases and calls it is inside (0: outermost).
    pub depth: u32,
}

/// One process of a traced run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ProcessClock {
    /// World rank of its first rank.
    pub first_rank: u32,
    /// Its ranks.
    pub ranks: u32,
    /// Host clock minus device clock (ns).
    pub offset_ns: i64,
    /// The offset's error bound (ns): half the host round trip.
    pub uncertainty_ns: u64,
}

/// The timeline of a traced run, every process's ranks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Trace {
    /// Every span, by rank, then start.
    pub spans: Vec<Span>,
    /// Every process, in order.
    pub processes: Vec<ProcessClock>,
    /// Spans that did not fit the ranks' buffers (`DCUDA_TRACE_SPANS`).
    pub dropped: u64,
    /// Phases never ended (nested deeper than 8, or no `trace_end`).
    pub unclosed: u64,
}

impl Trace {
    /// Ranks in the run.
    pub fn ranks(&self) -> u32 {
        self.processes.iter().map(|p| p.ranks).sum()
    }

    /// The earliest start and latest end of any span (ns).
    pub fn bounds(&self) -> (u64, u64) {
        let start = self.spans.iter().map(|s| s.start_ns).min().unwrap_or(0);
        let end = self.spans.iter().map(|s| s.end_ns).max().unwrap_or(start);
        (start, end)
    }

    /// Writes the Chrome trace JSON to `path`, the SVG timeline beside it
    /// (`.svg`), the summary (`.txt`) and the breakdown plot
    /// (`.breakdown.svg`).
    pub fn write(&self, path: &std::path::Path) -> std::io::Result<()> {
        if let Some(dir) = path.parent().filter(|d| !d.as_os_str().is_empty()) {
            std::fs::create_dir_all(dir)?;
        }
        std::fs::write(path, chrome::json(self))?;
        std::fs::write(path.with_extension("svg"), svg::timeline(self, 64))?;
        let summary = summary::summarise(self);
        std::fs::write(path.with_extension("txt"), summary.to_string())?;
        std::fs::write(
            path.with_extension("breakdown.svg"),
            breakdown::breakdown(&summary, 32),
        )
    }
}
