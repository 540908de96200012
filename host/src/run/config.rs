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
    /// Runtime memory per rank in bytes: device memory, pinned host memory.
    pub memory_per_rank: (usize, usize),
}
