//! What a run is asked to be, and what it reports.

use std::time::Duration;

/// How to run a rank kernel.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RunConfig {
    pub(super) threads_per_rank: u32,
    pub(super) ranks: Option<u32>,
    /// `None`: `DCUDA_WATCHDOG_SECS` (read when the run starts).
    pub(super) watchdog: Option<Option<Duration>>,
    pub(super) notification_start: u32,
    /// `None`: `DCUDA_TRACE` (read when the run starts).
    pub(super) trace: Option<std::path::PathBuf>,
    /// `None`: `DCUDA_TRACE_SPANS`, else 4096.
    pub(super) trace_spans: Option<u32>,
}

impl RunConfig {
    /// Ranks of `threads_per_rank` threads (a multiple of 32, at most
    /// 1024), as many as can be co-resident.
    ///
    /// 128 or 256 threads suit most kernels. A rank is one block, and a
    /// block's threads share a multiprocessor's 65,536 registers: ranks of
    /// 1024 threads need kernels of at most 64 registers per thread: small
    /// kernels fit, kernels calling the runtime in loops (56 to 72 measured
    /// on sm_90) do not. A run that does not fit fails with an error giving
    /// the kernel's register count.
    pub fn new(threads_per_rank: u32) -> Self {
        RunConfig {
            threads_per_rank,
            ranks: None,
            watchdog: None,
            notification_start: 0,
            trace: None,
            trace_spans: None,
        }
    }

    /// The watchdog's default patience.
    pub const DEFAULT_WATCHDOG: Duration = Duration::from_secs(10);

    /// Run `ranks` ranks instead of as many as fit (more is an error).
    pub fn ranks(mut self, ranks: u32) -> Self {
        self.ranks = Some(ranks);
        self
    }

    /// Abort the run, with a report of what every rank waits on, when all
    /// unfinished ranks have waited without progress this long
    /// (default 10 s, or `DCUDA_WATCHDOG_SECS`; 0 turns it off).
    pub fn watchdog(mut self, after: Option<Duration>) -> Self {
        self.watchdog = Some(after);
        self
    }

    /// The watchdog's patience for a run starting now: the program's, else
    /// `DCUDA_WATCHDOG_SECS`, else the default.
    pub(super) fn patience(&self) -> crate::Result<Option<Duration>> {
        match self.watchdog {
            Some(w) => Ok(w),
            None => Ok(crate::config::WATCHDOG_SECS
                .seconds()?
                .unwrap_or(Some(Self::DEFAULT_WATCHDOG))),
        }
    }

    /// Start every notification counter at `start` (tests use values near
    /// the wrap-around).
    pub fn notification_start(mut self, start: u32) -> Self {
        self.notification_start = start;
        self
    }

    /// Trace the run: every rank's phases ([`Rank::trace_begin`]) and
    /// runtime calls, written after the run to `path` as Chrome trace
    /// JSON (Perfetto and `chrome://tracing` open it), with an SVG timeline
    /// (`path` with `.svg`) and a summary (`.txt`) beside it, and returned
    /// in [`RunReport::trace`]. Without it, `DCUDA_TRACE` decides. In a
    /// job, every process must trace (process 0 writes the files).
    ///
    /// [`Rank::trace_begin`]: dcuda_device::Rank::trace_begin
    pub fn trace(mut self, path: impl Into<std::path::PathBuf>) -> Self {
        self.trace = Some(path.into());
        self
    }

    /// Spans each rank of a traced run can record (32 bytes each; default
    /// `DCUDA_TRACE_SPANS`, else 4096). Spans beyond are counted and
    /// reported as dropped.
    pub fn trace_spans(mut self, spans: u32) -> Self {
        self.trace_spans = Some(spans.max(1));
        self
    }

    /// Spans per rank of a traced run.
    pub(super) fn trace_capacity(&self) -> crate::Result<u32> {
        match self.trace_spans {
            Some(n) => Ok(n),
            None => Ok(crate::config::TRACE_SPANS.number(true)?.unwrap_or(4096) as u32),
        }
    }

    /// Where this run's trace goes: the program's path, else `DCUDA_TRACE`.
    pub(super) fn trace_path(&self) -> Option<std::path::PathBuf> {
        self.trace
            .clone()
            .or_else(|| crate::config::TRACE.value().map(Into::into))
    }

    /// Threads per rank.
    pub fn threads_per_rank(&self) -> u32 {
        self.threads_per_rank
    }
}

/// Where this process's ranks sit, as dCUDA's `dcuda_rank_info`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RankInfo {
    /// Ranks in the job.
    pub rank_count: u32,
    /// Ranks on this device (this process runs them).
    pub ranks_on_device: u32,
    /// World rank of this device's first rank.
    pub first_rank: u32,
    /// Devices used on this node, and this one's index.
    pub device_count: u32,
    /// This device's index on the node.
    pub device_index: u32,
    /// Nodes in the job, and this one's index.
    pub node_count: u32,
    /// This node's index.
    pub node_index: u32,
    /// Processes in the job.
    pub process_count: u32,
    /// This process's index.
    pub process_index: u32,
}

/// A host-measured timer.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct TimerRecord {
    /// The id the kernel gave it.
    pub id: u32,
    /// Time between `start_timer` and `stop_timer` (once all ranks called each).
    pub elapsed: Duration,
}

/// What a run produced besides its memory effects.
#[derive(Clone, Debug, Default)]
pub struct RunReport {
    /// Ranks that ran.
    pub ranks: u32,
    /// From launch to the end of the kernel, measured on the host.
    pub elapsed: Duration,
    /// Timers the kernel started and stopped, in the order they stopped.
    pub timers: Vec<TimerRecord>,
    /// Log messages, `(device rank, text)`, in the order they arrived (they
    /// were also printed live).
    pub logs: Vec<(u32, String)>,
    /// Host round trips served.
    pub host_calls: u64,
    /// Transfers between processes that this process's host carried for
    /// its ranks (puts, gets, notifications, messages and message
    /// payloads): none where every transfer takes the direct route.
    pub host_transfers: u64,
    /// Runtime memory per rank in bytes: device memory, pinned host memory.
    pub memory_per_rank: (usize, usize),
    /// The timeline of a traced run ([`RunConfig::trace`]): every
    /// process's ranks.
    pub trace: Option<crate::trace::Trace>,
}
