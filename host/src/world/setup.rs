//! The setup of a run's world: every process tells the others its ranks,
//! node, GPU and counters, and each picks a route to every other.

use super::inbox::Inbox;
pub(crate) use super::inbox::InboxMemory;
use super::message::{Message, Setup};
use super::symmetric::{nvshmem_calls, own_counters, peer_counters};
use super::World;
use crate::error::{Error, Result};
use crate::runtime::Runtime;
use crate::transport::{all_gather, Job, RUN_CHANNELS};
use dcuda_device::abi::{mailbox_offset, stage_offset, PeerLogs, Route, WindowEntry, MAX_WINDOWS};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{mpsc, Mutex};

/// Runs started by this process; every process starts the same runs in
/// the same order, so the count names a run across the job.
static RUNS: AtomicU32 = AtomicU32::new(0);

/// Set `DCUDA_PEER_ACCESS=0` to send all traffic between GPUs of a node
/// through the transport (for tests and comparison).
fn peer_access_allowed() -> Result<bool> {
    Ok(crate::config::PEER_ACCESS.switch()?.unwrap_or(true))
}

pub(super) fn peer_error(call: &'static str, reason: String) -> Error {
    Error::Network { call, reason }
}

/// This process's memory that the world needs to know: device addresses
/// of the notification counters (followed by the mailboxes) and the
/// remote-active flag, host addresses of the host-written counters.
pub(crate) struct RunMemory {
    pub counters: u64,
    pub remote_counters: usize,
    pub host_done: usize,
    pub remote_active: u64,
    /// Host addresses of the ranks' inboxes, their counters and wants.
    pub inbox: InboxMemory,
    /// Whether this process traces the run.
    pub traced: bool,
}

impl World {
    /// Gathers `data` from every process after the run (each calls it), on
    /// the run's setup channel; in process order.
    pub fn gather_after_run(&self, data: Vec<u8>) -> Result<Vec<Vec<u8>>> {
        all_gather(&*self.job.transport, self.data - 1, data)
    }

    /// Exchanges setup with every process (all of them start the same run
    /// now) and decides routes.
    pub fn setup(job: Job, runtime: &Runtime, ranks: u32, memory: RunMemory) -> Result<World> {
        let run = RUNS.fetch_add(1, Ordering::Relaxed);
        // Channels of this run; MPI guarantees tags up to 32767. Setup has
        // its own: a process that is done with it may already send control
        // messages while another still gathers setups.
        let setup = RUN_CHANNELS + 3 * (run % 10000);
        let (data, control) = (setup + 1, setup + 2);
        let peers = runtime.device.peers();
        let symmetric = runtime.device.symmetric();
        let me = Setup {
            ranks,
            node: job.node(),
            traced: memory.traced,
            pci: match peers {
                Some(p) => p.pci_bus_id()?,
                None => String::new(),
            },
            counters: match symmetric {
                // NVSHMEM's heap cannot be shared through CUDA IPC.
                Some(_) => None,
                None => peers.and_then(|p| p.ipc_export(memory.counters).ok()),
            },
            symmetric: own_counters(symmetric, memory.counters, ranks)?,
        };
        let all = all_gather(&*job.transport, setup, Message::Setup(me).encode())?;
        let mut setups = Vec::new();
        for (p, msg) in all.iter().enumerate() {
            match Message::decode(msg)? {
                Message::Setup(s) => setups.push(s),
                _ => return Err(peer_error("setup", format!("process {p} sent no setup"))),
            }
        }
        if let Some(p) = setups.iter().position(|s| s.traced != memory.traced) {
            let (a, b) = if memory.traced {
                (job.process(), p)
            } else {
                (p as u32, job.process() as usize)
            };
            let why = format!("process {a} traces this run (DCUDA_TRACE or RunConfig::trace) and process {b} does not: trace every process or none");
            return Err(peer_error("setup", why));
        }
        let mut firsts = vec![0u32];
        for s in &setups {
            firsts.push(firsts.last().unwrap_or(&0) + s.ranks);
        }
        let n = setups.len();
        let (tx, rx) = mpsc::channel();
        let world = World {
            run,
            runtime: runtime.clone(),
            data,
            control,
            firsts,
            routes: Mutex::new(vec![Route::Host; n]),
            peer_counters: vec![0; n],
            symmetric,
            symmetric_counters: peer_counters(job.process() as usize, symmetric, &setups)?,
            nvshmem_calls: nvshmem_calls(symmetric)?,
            sent: (0..n).map(|_| AtomicU64::new(0)).collect(),
            received: (0..n).map(|_| AtomicU64::new(0)).collect(),
            mirror: Mutex::new(vec![WindowEntry::default(); MAX_WINDOWS * ranks as usize]),
            remote_counters: memory.remote_counters,
            host_done: memory.host_done,
            remote_active: memory.remote_active,
            mailboxes: memory.counters + mailbox_offset(ranks),
            stages: memory.counters + stage_offset(ranks),
            remote_seen: AtomicBool::new(false),
            failure: Mutex::new(None),
            failed: AtomicBool::new(false),
            control_rx: Mutex::new(rx),
            control_tx: Mutex::new(tx),
            stop: AtomicBool::new(false),
            gets: Mutex::new(HashMap::new()),
            mappings: Mutex::new(HashMap::new()),
            table: 0,
            peers: 0,
            all_direct: AtomicBool::new(false),
            leader_barrier: 0,
            comm_tables: 0,
            comm_exchange: 0,
            inbox: Mutex::new(Inbox::new(memory.inbox, ranks)),
            laid_scratch: Mutex::new(None),
            lending: super::lending::Lending::new(runtime.device.clone()),
            job,
        };
        let world = world.choose_routes(&setups)?;
        // A route is direct only where both processes map each other: a
        // message to a mapped GPU is acknowledged over the mapping back.
        // Every process says which it maps.
        let mine: Vec<u8> = {
            let routes = world.routes.lock().unwrap_or_else(|e| e.into_inner());
            routes.iter().map(|&r| (r == Route::Direct) as u8).collect()
        };
        let all = all_gather(&*world.job.transport, setup, mine)?;
        world.keep_mutual_routes(&all);
        Ok(world)
    }

    /// Same device: local; another GPU of this node that this one can map:
    /// direct (unless `DCUDA_PEER_ACCESS=0`); anything else: the host.
    fn choose_routes(mut self, setups: &[Setup]) -> Result<World> {
        let me = self.me() as usize;
        let mine = &setups[me];
        let mut routes = vec![Route::Host; setups.len()];
        routes[me] = Route::Local;
        let runtime = self.runtime.clone();
        let allowed = peer_access_allowed()?;
        if self.symmetric.is_some() {
            tracing::debug!(target: "dcuda", "process {me}: NVSHMEM's heap cannot be mapped through CUDA IPC: window accesses to other processes take the NVSHMEM route, everything else the transport");
            self.routes = Mutex::new(routes);
            return Ok(self);
        }
        if let Some(peers) = runtime.device.peers() {
            for (p, s) in setups.iter().enumerate() {
                if p == me || !allowed || s.node != mine.node || s.pci.is_empty() {
                    continue;
                }
                if s.pci == mine.pci {
                    return Err(peer_error("setup", format!("processes {me} and {p} both use GPU {}: a persistent kernel needs a GPU of its own (run at most one process per GPU)", s.pci)));
                }
                let (Some((handle, offset)), true) = (s.counters, peers.can_access_peer(&s.pci)?)
                else {
                    continue;
                };
                // Its counters, mailboxes, staging areas and peer logs.
                let on_node = setups.iter().filter(|o| o.node == s.node).count() as u32;
                let area = PeerLogs {
                    ranks: s.ranks,
                    logs: PeerLogs::logs_for(on_node),
                };
                let what = "its notification counters";
                self.peer_counters[p] = self.map(p as u32, &handle, (offset, area.end()), what)?;
                routes[p] = Route::Direct;
            }
        }
        self.routes = Mutex::new(routes);
        Ok(self)
    }

    /// Keeps the direct routes that the other end has too (`maps[p][q]`:
    /// whether process `p` maps process `q`); the leaders' barrier needs
    /// every pair direct.
    fn keep_mutual_routes(&self, maps: &[Vec<u8>]) {
        let me = self.me() as usize;
        let mut routes = self.routes.lock().unwrap_or_else(|e| e.into_inner());
        for (p, route) in routes.iter_mut().enumerate() {
            let back = maps[p].get(me) == Some(&1);
            if *route == Route::Direct && !back {
                tracing::warn!("process {me}: process {p} does not map this GPU's memory, so the route to it goes through the host");
                *route = Route::Host;
            }
        }
        let direct: Vec<usize> = (0..routes.len())
            .filter(|&p| routes[p] == Route::Direct)
            .collect();
        tracing::debug!(
            "process {me}: the direct route to processes {direct:?}, the host route to the others"
        );
        let all = routes.iter().all(|&r| r != Route::Host);
        self.all_direct.store(all, Ordering::Relaxed);
    }

    /// Maps process `p`'s allocation `handle` here (once per run) and
    /// returns the address of `bytes` bytes at `offset` in it, which `p`
    /// named for `what`: an error if they are not all in the allocation,
    /// so that a wrong offset or length from another process is never
    /// accessed.
    pub(super) fn map(
        &self,
        p: u32,
        handle: &[u8; 64],
        (offset, bytes): (u64, u64),
        what: &str,
    ) -> Result<u64> {
        let peers = self
            .runtime
            .device
            .peers()
            .ok_or_else(|| peer_error("map", "direct routes need a GPU".into()))?;
        let mut maps = self.mappings.lock().unwrap_or_else(|e| e.into_inner());
        let (base, len) = match maps.get(&(p, *handle)) {
            Some(&mapped) => mapped,
            None => {
                let mapped = peers.ipc_open(handle)?;
                maps.insert((p, *handle), mapped);
                mapped
            }
        };
        check_range(p, (offset, bytes), len, what)?;
        Ok(base + offset)
    }
}

/// Fails unless `bytes` bytes at `offset` fit in an allocation of `len`
/// bytes of process `p` (`what`: what `p` sent them for).
pub(super) fn check_range(p: u32, (offset, bytes): (u64, u64), len: u64, what: &str) -> Result<()> {
    match offset.checked_add(bytes) {
        Some(end) if end <= len => Ok(()),
        _ => Err(peer_error(
            "map",
            format!("process {p} sent {what}: {bytes} bytes at offset {offset} of its GPU allocation, which has {len} bytes"),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::check_range;

    #[test]
    fn ranges_from_other_processes_are_checked_against_the_mapped_allocation() {
        assert!(check_range(1, (0, 4096), 4096, "a payload").is_ok());
        assert!(check_range(1, (4000, 96), 4096, "a payload").is_ok());
        let past = check_range(2, (4000, 97), 4096, "a message's payload").unwrap_err();
        let text = past.to_string();
        assert!(
            text.contains("process 2 sent a message's payload"),
            "{text}"
        );
        assert!(text.contains("97 bytes at offset 4000"), "{text}");
        assert!(text.contains("4096 bytes"), "{text}");
        // An offset and length whose sum overflows is refused, not wrapped.
        assert!(check_range(1, (u64::MAX, 2), u64::MAX, "a window").is_err());
    }
}
