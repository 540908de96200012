//! Network managers: how the hosts of a multi-process job talk to each
//! other. The runtime needs only tagged, non-blocking point-to-point
//! messages; everything global (setup, window exchange, barriers, abort)
//! is built on them in [`crate::world`], so a new transport (InfiniBand
//! verbs, say) implements [`NetworkManager`] and nothing else.

#[cfg(feature = "mpi")]
mod mpi;
pub(crate) mod wire;

use crate::error::{Error, Result};
use std::sync::{Arc, OnceLock};

/// A transport between the processes of one job.
///
/// Messages on one channel from one process arrive in the order they were
/// sent. Every call may come from several threads at once.
pub trait NetworkManager: Send + Sync {
    /// The transport's name, for messages ("MPI").
    fn name(&self) -> &'static str;
    /// This process's index, `0..processes()`.
    fn process(&self) -> u32;
    /// Processes in the job.
    fn processes(&self) -> u32;
    /// Queues `data` for process `to` on `channel`; never blocks.
    fn send(&self, to: u32, channel: u32, data: Vec<u8>) -> Result<()>;
    /// Advances queued sends; returns how many are still in flight.
    fn progress(&self) -> Result<usize>;
    /// A message that has arrived on `channel`, with its sender, if any.
    fn try_recv(&self, channel: u32) -> Result<Option<(u32, Vec<u8>)>>;
    /// Ends every process of the job (after printing `message`).
    fn abort(&self, message: &str) -> !;
}

/// This process's place in a job of several processes.
#[derive(Clone)]
pub struct Job {
    /// The transport.
    pub(crate) net: Arc<dyn NetworkManager>,
    /// Node of every process (processes on one host share a node index).
    pub(crate) nodes: Vec<u32>,
    /// This process's index among the processes of its node.
    pub(crate) local_index: u32,
    /// Processes on this node.
    pub(crate) local_count: u32,
}

impl Job {
    /// This process's index.
    pub fn process(&self) -> u32 {
        self.net.process()
    }

    /// Processes in the job.
    pub fn processes(&self) -> u32 {
        self.net.processes()
    }

    /// This process's node index.
    pub fn node(&self) -> u32 {
        self.nodes[self.process() as usize]
    }

    /// Nodes in the job.
    pub fn nodes(&self) -> u32 {
        self.nodes.iter().max().map_or(1, |m| m + 1)
    }
}

/// The channel for the job's own setup (host names); runs use channels
/// from [`RUN_CHANNELS`] on.
const SETUP_CHANNEL: u32 = 0;
/// The channel of [`Module::rank_info`](crate::Module::rank_info).
pub(crate) const INFO_CHANNEL: u32 = 1;
/// First channel of runs: each run has a setup, a data and a control
/// channel.
pub(crate) const RUN_CHANNELS: u32 = 2;

static JOB: OnceLock<std::result::Result<Option<Job>, String>> = OnceLock::new();

/// The job this process belongs to: `None` for a single process. Set up
/// on first use: under `mpirun` (or with `DCUDA_NETWORK=mpi`) through MPI.
pub fn job() -> Result<Option<Job>> {
    JOB.get_or_init(|| init().map_err(|e| e.to_string()))
        .clone()
        .map_err(|reason| Error::Network {
            call: "setup",
            reason,
        })
}

/// Whether a launcher started this process as part of a job.
fn launched_by_mpirun() -> bool {
    [
        "OMPI_COMM_WORLD_SIZE",
        "PMI_SIZE",
        "PMIX_RANK",
        "MPI_LOCALNRANKS",
    ]
    .iter()
    .any(|v| std::env::var_os(v).is_some())
}

fn init() -> Result<Option<Job>> {
    let choice = std::env::var("DCUDA_NETWORK").unwrap_or_default();
    let net: Arc<dyn NetworkManager> = match choice.trim() {
        "none" => return Ok(None),
        "" if !launched_by_mpirun() => return Ok(None),
        "" | "mpi" => open_mpi()?,
        other => {
            return Err(Error::InvalidEnv {
                var: "DCUDA_NETWORK",
                value: other.into(),
                expected: "mpi or none",
            })
        }
    };
    if net.processes() == 1 {
        return Ok(None);
    }
    let nodes = exchange_hosts(&*net)?;
    let me = net.process() as usize;
    let local_index = nodes[..me].iter().filter(|&&n| n == nodes[me]).count() as u32;
    let local_count = nodes.iter().filter(|&&n| n == nodes[me]).count() as u32;
    Ok(Some(Job {
        net,
        nodes,
        local_index,
        local_count,
    }))
}

#[cfg(feature = "mpi")]
fn open_mpi() -> Result<Arc<dyn NetworkManager>> {
    Ok(Arc::new(mpi::MpiManager::init()?))
}

#[cfg(not(feature = "mpi"))]
fn open_mpi() -> Result<Arc<dyn NetworkManager>> {
    Err(Error::Network {
        call: "setup",
        reason: "this process was started by mpirun (or DCUDA_NETWORK=mpi), but dcuda was built without its `mpi` feature; enable it, or set DCUDA_NETWORK=none to run each process alone".into(),
    })
}

/// Messages an [`all_gather`] received for a later round of its channel:
/// a fast process may send its next round before a slow one has heard
/// everyone in this round. `(channel, sender, message)`.
static EARLY: std::sync::Mutex<Vec<(u32, u32, Vec<u8>)>> = std::sync::Mutex::new(Vec::new());

/// Sends `data` to every other process on `channel` and collects theirs,
/// in process order (this process's own at its index). Blocks: use it only
/// where every process takes part (setup). A channel may serve many rounds,
/// as long as only `all_gather` reads it.
pub(crate) fn all_gather(
    net: &dyn NetworkManager,
    channel: u32,
    data: Vec<u8>,
) -> Result<Vec<Vec<u8>>> {
    let (me, n) = (net.process(), net.processes());
    for p in (0..n).filter(|&p| p != me) {
        net.send(p, channel, data.clone())?;
    }
    let mut all: Vec<Option<Vec<u8>>> = vec![None; n as usize];
    all[me as usize] = Some(data);
    let take = |all: &mut Vec<Option<Vec<u8>>>,
                from: u32,
                msg: Vec<u8>,
                early: &mut Vec<(u32, u32, Vec<u8>)>| {
        if all[from as usize].is_none() {
            all[from as usize] = Some(msg);
        } else {
            early.push((channel, from, msg)); // The sender's next round.
        }
    };
    {
        let mut early = EARLY.lock().unwrap_or_else(|e| e.into_inner());
        let mine: Vec<_> = early.iter().filter(|e| e.0 == channel).cloned().collect();
        early.retain(|e| e.0 != channel);
        for (_, from, msg) in mine {
            take(&mut all, from, msg, &mut early);
        }
    }
    while all.iter().any(Option::is_none) {
        net.progress()?;
        match net.try_recv(channel)? {
            Some((from, msg)) => take(
                &mut all,
                from,
                msg,
                &mut EARLY.lock().unwrap_or_else(|e| e.into_inner()),
            ),
            None => std::thread::yield_now(),
        }
    }
    while net.progress()? > 0 {
        std::thread::yield_now();
    }
    Ok(all.into_iter().map(|m| m.unwrap_or_default()).collect())
}

/// Numbers the nodes by host name, in order of first appearance.
fn exchange_hosts(net: &dyn NetworkManager) -> Result<Vec<u32>> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "localhost".into());
    let names = all_gather(net, SETUP_CHANNEL, name.into_bytes())?;
    let mut seen: Vec<&[u8]> = Vec::new();
    Ok(names
        .iter()
        .map(|n| match seen.iter().position(|s| *s == n.as_slice()) {
            Some(i) => i as u32,
            None => {
                seen.push(n);
                seen.len() as u32 - 1
            }
        })
        .collect())
}
