//! One run across the processes of a job: the setup exchange that numbers
//! the world's ranks and picks a route to every process ([`setup`]), the
//! accesses the hosts move for their ranks ([`transfer`]), the receive
//! thread ([`receive`]) and what it does with each message ([`deliver`]),
//! world syncs and window exchange ([`sync`]) and abort, all as typed
//! [`message`]s over the job's transport.
//!
//! A world sync is a counted barrier: each host tells every other how many
//! data messages it has sent it, and waits until all have arrived and it
//! has received all that it was told of. So every access issued before a
//! barrier is delivered when the barrier ends, whatever order the
//! transport keeps between channels.

mod comm_sync;
mod deliver;
mod inbox;
mod laid;
mod lending;
mod message;
mod receive;
mod setup;
mod symmetric;
mod sync;
mod transfer;
pub(crate) mod wire;

pub(crate) use setup::{InboxMemory, RunMemory};
pub(crate) use sync::Syncs;

use crate::runtime::Runtime;
use crate::transport::Job;
use dcuda_device::abi::{Route, WindowEntry};
use message::Message;
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{mpsc, Mutex};

/// A peer allocation mapped here: its address and length.
type Mapped = (u64, u64);

/// The world of one run, shared by the progress and receive threads.
pub(crate) struct World {
    pub job: Job,
    runtime: Runtime,
    /// This run's number among the runs of the job, from 0.
    run: u32,
    /// The run's data and control channels.
    data: u32,
    control: u32,
    /// World rank of every process's rank 0, and one past the last.
    pub firsts: Vec<u32>,
    /// How this process reaches every process.
    pub routes: Mutex<Vec<Route>>,
    /// Addresses (here) of each direct peer's notification counters.
    pub peer_counters: Vec<u64>,
    /// This process's NVSHMEM heap, and the symmetric addresses (here) of
    /// every other process's counters in theirs (0: none).
    symmetric: Option<crate::nvshmem::Symmetric>,
    pub symmetric_counters: Vec<u64>,
    /// [`PE_CALLS`](dcuda_device::abi::PE_CALLS) where `DCUDA_NVSHMEM_CALLS=1`.
    pub nvshmem_calls: u32,
    /// Data messages sent to / received from each process.
    sent: Vec<AtomicU64>,
    received: Vec<AtomicU64>,
    /// This process's window entries as of the last exchange: the receive
    /// thread checks accesses against them. `[MAX_WINDOWS][ranks]`.
    mirror: Mutex<Vec<WindowEntry>>,
    /// Host-mapped counters: remote notifications `[ranks][TAGS]` and
    /// host-completed accesses `[ranks]` (host addresses).
    remote_counters: usize,
    host_done: usize,
    /// Device address of this process's mailboxes `[ranks][MAILBOX_WORDS]`.
    mailboxes: u64,
    /// Device address of this process's staging areas `[ranks][2][STAGE_HALF]`.
    stages: u64,
    /// Device flag telling the ranks to read their remote counters; set
    /// before the first remote notification.
    remote_active: u64,
    remote_seen: AtomicBool,
    /// The first failure seen: (process, message); `failed` says whether
    /// there is one without taking the lock (the progress loop asks often).
    failure: Mutex<Option<(u32, String)>>,
    failed: AtomicBool,
    /// Control messages the receive thread passes to the progress thread.
    control_rx: Mutex<mpsc::Receiver<(u32, Vec<u8>)>>,
    control_tx: Mutex<mpsc::Sender<(u32, Vec<u8>)>>,
    stop: AtomicBool,
    /// Gets in flight, per device rank: `(start, end)` of each one's local
    /// destination. Replies are written only inside one of them.
    gets: Mutex<HashMap<u32, Vec<(u64, u64)>>>,
    /// Peer allocations mapped here (IPC), unmapped when the run ends.
    mappings: Mutex<HashMap<(u32, [u8; 64]), Mapped>>,
    /// Device addresses of the run's window table and peer table.
    table: u64,
    peers: u64,
    /// Whether the world barrier runs between the leaders, following the
    /// routes (every process maps every other's memory: agreed by all at
    /// setup, dropped by all at once), and the device flag that says so.
    pub all_direct: AtomicBool,
    leader_barrier: u64,
    /// Device addresses of the communicator tables and split exchange.
    comm_tables: u64,
    comm_exchange: u64,
    /// Two-sided messages from other processes for this process's ranks.
    inbox: Mutex<inbox::Inbox>,
    /// Mapped pinned memory of a staging half where the receive thread
    /// puts a typed piece before it places it (none until the first).
    laid_scratch: Mutex<Option<laid::Scratch>>,
    /// Pinned memory lent to the transport for large pieces.
    lending: std::sync::Arc<lending::Lending>,
}

impl World {
    /// This process's index.
    pub fn me(&self) -> u32 {
        self.job.process()
    }

    fn processes(&self) -> u32 {
        self.job.processes()
    }

    /// Ranks in the world.
    pub fn size(&self) -> u32 {
        *self.firsts.last().unwrap_or(&0)
    }

    /// World rank of this process's rank 0.
    pub fn first(&self) -> u32 {
        self.firsts[self.me() as usize]
    }

    fn ranks(&self) -> u32 {
        self.firsts[self.me() as usize + 1] - self.first()
    }

    /// The process holding world rank `world` (`None` outside the world).
    pub fn process_of(&self, world: u32) -> Option<u32> {
        if world >= self.size() {
            return None;
        }
        Some((self.firsts.partition_point(|&f| f <= world) - 1) as u32)
    }

    fn others(&self) -> impl Iterator<Item = u32> + '_ {
        let me = self.me();
        (0..self.processes()).filter(move |&p| p != me)
    }

    /// Tells the world where the run put its window and peer tables, and
    /// the device flag of the leaders' barrier.
    pub fn attach(&mut self, table: u64, peers: u64, leader_barrier: u64) {
        self.table = table;
        self.peers = peers;
        self.leader_barrier = leader_barrier;
    }

    /// Tells the world where the run put its communicator tables and
    /// split exchange.
    pub fn attach_comms(&mut self, tables: u64, exchange: u64) {
        self.comm_tables = tables;
        self.comm_exchange = exchange;
    }

    /// Records the first failure of the run.
    pub fn fail(&self, process: u32, message: String) {
        let mut f = self.failure.lock().unwrap_or_else(|e| e.into_inner());
        if f.is_none() {
            *f = Some((process, message));
            self.failed.store(true, Ordering::Release);
        }
    }

    /// The first failure, if any.
    pub fn failure(&self) -> Option<(u32, String)> {
        if !self.failed.load(Ordering::Acquire) {
            return None;
        }
        self.failure
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Tells every other process that this one failed.
    pub fn broadcast_abort(&self, message: &str) {
        for p in self.others() {
            let msg = Message::Abort(message.to_string()).encode();
            let _ = self.job.transport.send(p, self.control, msg);
        }
        // Give the messages a moment to leave before the run's end.
        let until = std::time::Instant::now() + std::time::Duration::from_secs(2);
        while matches!(self.job.transport.progress(), Ok(n) if n > 0)
            && std::time::Instant::now() < until
        {
            std::thread::yield_now();
        }
    }
}

impl Drop for World {
    fn drop(&mut self) {
        let scratch = self
            .laid_scratch
            .get_mut()
            .unwrap_or_else(|e| e.into_inner());
        if let Some(s) = scratch.take() {
            s.free(&*self.runtime.device);
        }
        // Sends from lent memory complete once their receivers have them,
        // which the run's last sync saw; the transport learns it when it
        // progresses.
        let until = std::time::Instant::now() + std::time::Duration::from_secs(2);
        while self.lending.lent() > 0 && std::time::Instant::now() < until {
            if self.job.transport.progress().is_err() {
                break;
            }
            std::thread::yield_now();
        }
        if self.lending.lent() > 0 {
            self.lending.leak();
        }
        if let Some(peers) = self.runtime.device.peers() {
            for (_, (a, _)) in self
                .mappings
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .drain()
            {
                peers.ipc_close(a);
            }
        }
    }
}
