//! Host-side transfer plans: moving arrays between the host and the ranks'
//! windows, and between the windows of neighbouring ranks, across the
//! processes of a job (the patterns of seed 003, MCL).
//!
//! Every process holds its ranks' parts in one buffer (device memory or
//! mapped host memory), [`Part::len`] elements a rank, rank `i` of the
//! process at `i * len`: the layout a rank kernel's windows usually have. A
//! plan is made once, collectively, from a [`Placement`] (which process
//! holds which ranks, on which node) and the pattern's layout, and is used
//! again and again:
//!
//! * [`ScatterPlan`]: a host array of one process to the ranks' parts, by
//!   blocks, cyclically or by counts and displacements ([`Split`]), and
//!   [`gather`](ScatterPlan::gather) back;
//! * [`BroadcastPlan`]: a host array of one process to every rank's part;
//! * [`HaloPlan`]: slices of ranks' parts (runs, rows or columns) copied
//!   into other ranks' parts between kernel runs: boundary exchange, with
//!   [`HaloPlan::line`] and [`HaloPlan::grid`] for the common shapes.
//!
//! Each plan's `explain` says which route every pair of processes takes.
//! The rule: inside a process, copies on the device (host to device, or
//! device to device, one per contiguous run); between the root of a
//! scatter, gather or broadcast and a process whose GPU its own GPU can map
//! (same node, peer access, `DCUDA_PEER_ACCESS` not 0, the other's buffer
//! in device memory), peer copies: the root maps the other's buffer
//! through CUDA IPC and copies between its host array and it directly
//! (a broadcast does so when every process is such a peer); between any
//! other processes, and for halo exchanges, pieces staged through host
//! memory over the job's transport, several in flight, each written to
//! the device as it arrives while the next is on the wire.

mod broadcast;
mod halo;
mod halo_shapes;
mod parts;
mod peer;
mod scatter;
mod split;
mod wire;

pub use broadcast::BroadcastPlan;
pub use halo::{HaloPlan, Slice};
pub use halo_shapes::Grid;
pub use parts::{Part, Parts};
pub use scatter::ScatterPlan;
pub use split::Split;

use crate::error::{Error, Result};
use crate::runtime::Runtime;
use crate::transport::{all_gather, Transport};
use std::fmt::Write as _;
use std::sync::Arc;

/// Which process holds which ranks: every process's rank count, in
/// process order (ranks are numbered through the processes in order, as
/// in a run), and every process's node.
#[derive(Clone)]
pub struct Placement {
    counts: Vec<u32>,
    nodes: Vec<u32>,
    /// For every pair of processes, whether peer copies join them.
    peers: Arc<Vec<Vec<bool>>>,
    process: u32,
    transport: Option<Arc<dyn Transport>>,
}

impl Placement {
    /// Collective over the job's processes: this process holds
    /// `ranks_here` ranks (a run's `RankInfo::ranks_on_device`).
    pub fn new(rt: &Runtime, ranks_here: u32) -> Result<Placement> {
        let Some(job) = rt.job() else {
            return Ok(Placement {
                counts: vec![ranks_here],
                nodes: vec![0],
                peers: Arc::new(vec![vec![false]]),
                process: 0,
                transport: None,
            });
        };
        let t = &*job.transport;
        let all = all_gather(t, wire::SETUP_CHANNEL, ranks_here.to_le_bytes().to_vec())?;
        let counts = all
            .iter()
            .map(|m| u32::from_le_bytes(m[..4].try_into().unwrap_or_default()))
            .collect();
        let peers = peer::pairs(rt, t, &job.nodes, job.process())?;
        Ok(Placement {
            counts,
            nodes: job.nodes.clone(),
            peers: Arc::new(peers),
            process: job.process(),
            transport: Some(job.transport.clone()),
        })
    }

    /// Ranks in the job.
    pub fn ranks(&self) -> u32 {
        self.counts.iter().sum()
    }

    /// This process's index.
    pub fn process(&self) -> u32 {
        self.process
    }

    /// Processes in the job.
    pub fn processes(&self) -> u32 {
        self.counts.len() as u32
    }

    /// The process holding world rank `rank`, and the rank's index there.
    pub fn owner(&self, rank: u32) -> Option<(u32, u32)> {
        let mut first = 0;
        for (p, &n) in self.counts.iter().enumerate() {
            if rank < first + n {
                return Some((p as u32, rank - first));
            }
            first += n;
        }
        None
    }

    /// The world ranks process `p` holds.
    pub fn ranks_of(&self, p: u32) -> std::ops::Range<u32> {
        let first: u32 = self.counts[..p as usize].iter().sum();
        first..first + self.counts[p as usize]
    }

    /// The job's transport (plans between processes have one).
    fn transport(&self) -> Result<&dyn Transport> {
        self.transport.as_deref().ok_or(Error::InvalidArgument {
            call: "transfer plan",
            reason: "data for another process, but this process is not part of a job".into(),
        })
    }

    /// Waits until this process's pieces have left.
    fn flush(&self) -> Result<()> {
        match &self.transport {
            Some(t) => wire::drain(&**t, 0),
            None => Ok(()),
        }
    }

    /// The route a scatter's, gather's or broadcast's data take between
    /// its root and process `to` (either way).
    pub fn route(&self, from: u32, to: u32) -> Route {
        let peers = self
            .peers
            .get(from as usize)
            .and_then(|r| r.get(to as usize));
        if from != to && peers == Some(&true) {
            Route::Peer
        } else {
            self.staged_route(from, to)
        }
    }

    /// The route between two processes without peer copies (halos).
    pub(super) fn staged_route(&self, from: u32, to: u32) -> Route {
        if from == to {
            Route::Local
        } else if self.nodes[from as usize] == self.nodes[to as usize] {
            Route::StagedOnNode
        } else {
            Route::Staged
        }
    }

    /// Checks that every process made the same plan: `what` describes it
    /// (its kind, sizes, element type); the error names the first process
    /// whose description differs, and both descriptions.
    fn agree(&self, call: &'static str, what: String) -> Result<()> {
        let Some(t) = &self.transport else {
            return Ok(());
        };
        let all = all_gather(&**t, wire::SETUP_CHANNEL, what.clone().into_bytes())?;
        for (p, other) in all.iter().enumerate() {
            if other != what.as_bytes() {
                return Err(Error::InvalidArgument {
                    call,
                    reason: format!(
                        "process {p} made another plan than process {}: {} there, {what} here",
                        self.process,
                        String::from_utf8_lossy(other)
                    ),
                });
            }
        }
        Ok(())
    }

    /// The routes between every pair of processes that exchange data, as
    /// lines for a plan's `explain`.
    fn explain_pairs(
        &self,
        pairs: impl IntoIterator<Item = (u32, u32, usize)>,
        route: impl Fn(u32, u32) -> Route,
    ) -> String {
        let mut out = String::new();
        for (from, to, bytes) in pairs {
            let _ = writeln!(
                out,
                "  process {from} -> process {to}: {bytes} bytes, {}",
                route(from, to)
            );
        }
        out
    }
}

/// How data goes from one process to another.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// The same process: copies on its device.
    Local,
    /// Another process on the same node whose GPU the root's maps: the
    /// root copies straight into or out of its buffer (CUDA IPC).
    Peer,
    /// Another process on the same node without peer copies (peer access
    /// off or impossible, or a halo exchange): staged through host memory
    /// over the transport.
    StagedOnNode,
    /// Another node: staged through host memory over the transport.
    Staged,
}

impl std::fmt::Display for Route {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Route::Local => "device copies in the process",
            Route::Peer => {
                "peer copies: the root maps the other process's device buffer (CUDA IPC; shared memory on the emulator) and copies straight between it and the host array (staged if the buffer is mapped host memory)"
            }
            Route::StagedOnNode => {
                "staged through host memory over the transport in pieces (same node, no peer copies)"
            }
            Route::Staged => "staged through host memory over the transport in pieces",
        })
    }
}
