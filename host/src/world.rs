//! One run across the processes of a job: the setup exchange that numbers
//! the world's ranks and picks a route to every process, the accesses the
//! hosts move for their ranks, the receive thread that delivers them,
//! window exchange, world syncs (counted barriers) and abort.
//!
//! Every global step is built on the network manager's point-to-point
//! messages. A world sync is a counted barrier: each host tells every other
//! how many data messages it has sent it, and waits until all have arrived
//! and it has received all that it was told of. So every access issued
//! before a barrier is delivered when the barrier ends, whatever order the
//! transport keeps between channels.

use crate::error::{Error, Result};
use crate::network::wire::{Reader, Writer};
use crate::network::{all_gather, Job, RUN_CHANNELS};
use crate::runtime::Runtime;
use dcuda_device::runtime::{
    Peer, Route, Transfer, WindowEntry, MAX_WINDOWS, NO_TAG, NO_WINDOW, TAGS,
};
use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
use std::sync::{mpsc, Arc, Mutex};

/// Accesses larger than this are sent in pieces of this size, so that the
/// staging copy of one piece overlaps the network transfer of the last.
pub(crate) const CHUNK: usize = 1 << 20;

/// Runs started by this process; every process starts the same runs in
/// the same order, so the count names a run across the job.
static RUNS: AtomicU32 = AtomicU32::new(0);

/// Message kinds.
const PUT: u8 = 1;
const GET: u8 = 2;
const GET_REPLY: u8 = 3;
const SETUP: u8 = 10;
const SYNC: u8 = 11;
const ABORT: u8 = 12;

/// Set `DCUDA_PEER_ACCESS=0` to send all traffic between GPUs of a node
/// through the network manager (for tests and comparison).
fn peer_access_allowed() -> bool {
    !matches!(
        std::env::var("DCUDA_PEER_ACCESS").as_deref().map(str::trim),
        Ok("0") | Ok("off") | Ok("no") | Ok("false")
    )
}

/// What one process tells the others before a run.
struct Setup {
    ranks: u32,
    node: u32,
    /// Its GPU's PCI bus id (empty for the emulator).
    pci: String,
    /// IPC handle and offset of its notification counters (GPU only).
    counters: Option<([u8; 64], u64)>,
}

/// A window entry as sent at window exchange, with an IPC handle where the
/// memory can be mapped by a peer.
struct SharedEntry {
    entry: WindowEntry,
    ipc: Option<([u8; 64], u64)>,
}

/// A world sync's message from one process.
struct SyncMessage {
    sent: u64,
    window: Option<(u32, Vec<SharedEntry>)>,
}

/// The world of one run, shared by the progress and receive threads.
pub(crate) struct World {
    pub job: Job,
    runtime: Runtime,
    data: u32,
    control: u32,
    /// World rank of every process's rank 0, and one past the last.
    pub firsts: Vec<u32>,
    /// How this process reaches every process.
    pub routes: Mutex<Vec<Route>>,
    /// Addresses (here) of each direct peer's notification counters.
    pub peer_counters: Vec<u64>,
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
    /// Peer allocations mapped here (IPC), unmapped when the run ends.
    mappings: Mutex<HashMap<(u32, [u8; 64]), u64>>,
    /// Device addresses of the run's window table and peer table.
    table: u64,
    peers: u64,
}

// SAFETY: the raw addresses are of memory that outlives the run; every
// access goes through atomics or the runtime's copies.
unsafe impl Send for World {}
// SAFETY: as above.
unsafe impl Sync for World {}

/// World-sync state of the progress thread.
#[derive(Default)]
pub(crate) struct Syncs {
    next: u32,
    arrived: HashMap<u32, Vec<Option<SyncMessage>>>,
    pending: Option<(u32, Option<u32>)>,
}

fn peer_error(call: &'static str, reason: String) -> Error {
    Error::Network { call, reason }
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

    /// The process holding world rank `world`.
    pub fn process_of(&self, world: u32) -> u32 {
        (self.firsts.partition_point(|&f| f <= world) - 1) as u32
    }

    /// Exchanges setup with every process (all of them start the same run
    /// now) and decides routes. `counters` is this process's notification
    /// counter array on the device.
    pub fn setup(
        job: Job,
        runtime: &Runtime,
        ranks: u32,
        counters: u64,
        remote_counters: usize,
        host_done: usize,
        remote_active: u64,
    ) -> Result<World> {
        let run = RUNS.fetch_add(1, Ordering::Relaxed);
        // Channels of this run; MPI guarantees tags up to 32767. Setup has
        // its own: a process that is done with it may already send control
        // messages while another still gathers setups.
        let setup = RUN_CHANNELS + 3 * (run % 10000);
        let (data, control) = (setup + 1, setup + 2);
        let gpu = runtime.gpu();
        let me = Setup {
            ranks,
            node: job.node(),
            pci: match gpu {
                Some(g) => g.pci_bus_id()?,
                None => String::new(),
            },
            counters: match gpu {
                Some(g) => g.ipc_export(counters).ok(),
                None => None,
            },
        };
        let mut w = Writer::default()
            .u8(SETUP)
            .u32(me.ranks)
            .u32(me.node)
            .bytes(me.pci.as_bytes());
        w = put_ipc(w, me.counters);
        let all = all_gather(&*job.net, setup, w.0)?;
        let mut setups = Vec::new();
        for (p, msg) in all.iter().enumerate() {
            let mut r = Reader::new(msg, "setup");
            if r.u8()? != SETUP {
                return Err(peer_error("setup", format!("process {p} sent no setup")));
            }
            setups.push(Setup {
                ranks: r.u32()?,
                node: r.u32()?,
                pci: String::from_utf8_lossy(r.bytes()?).into_owned(),
                counters: get_ipc(&mut r)?,
            });
        }
        let mut firsts = vec![0u32];
        for s in &setups {
            firsts.push(firsts.last().unwrap() + s.ranks);
        }
        let n = setups.len();
        let (tx, rx) = mpsc::channel();
        let world = World {
            runtime: runtime.clone(),
            data,
            control,
            firsts,
            routes: Mutex::new(vec![Route::Host; n]),
            peer_counters: vec![0; n],
            sent: (0..n).map(|_| AtomicU64::new(0)).collect(),
            received: (0..n).map(|_| AtomicU64::new(0)).collect(),
            mirror: Mutex::new(vec![WindowEntry::default(); MAX_WINDOWS * ranks as usize]),
            remote_counters,
            host_done,
            remote_active,
            remote_seen: AtomicBool::new(false),
            failure: Mutex::new(None),
            failed: AtomicBool::new(false),
            control_rx: Mutex::new(rx),
            control_tx: Mutex::new(tx),
            stop: AtomicBool::new(false),
            mappings: Mutex::new(HashMap::new()),
            table: 0,
            peers: 0,
            job,
        };
        world.choose_routes(&setups)
    }

    /// Same device: local; another GPU of this node that this one can map:
    /// direct (unless `DCUDA_PEER_ACCESS=0`); anything else: the host.
    fn choose_routes(mut self, setups: &[Setup]) -> Result<World> {
        let me = self.me() as usize;
        let mine = &setups[me];
        let mut routes = vec![Route::Host; setups.len()];
        routes[me] = Route::Local;
        if let Some(gpu) = self.runtime.gpu() {
            for (p, s) in setups.iter().enumerate() {
                if p == me || !peer_access_allowed() || s.node != mine.node || s.pci.is_empty() {
                    continue;
                }
                if s.pci == mine.pci {
                    return Err(peer_error("setup", format!("processes {me} and {p} both use GPU {}: a persistent kernel needs a GPU of its own (run at most one process per GPU)", s.pci)));
                }
                let (Some((handle, offset)), true) = (s.counters, gpu.can_access_peer(&s.pci)?)
                else {
                    continue;
                };
                let base = self.map(p as u32, &handle)?;
                self.peer_counters[p] = base + offset;
                routes[p] = Route::Direct;
            }
        }
        self.routes = Mutex::new(routes);
        Ok(self)
    }

    /// Maps process `p`'s allocation `handle` here (once per run).
    fn map(&self, p: u32, handle: &[u8; 64]) -> Result<u64> {
        let gpu = self.runtime.gpu().expect("direct routes need a GPU");
        let mut maps = self.mappings.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(&a) = maps.get(&(p, *handle)) {
            return Ok(a);
        }
        let a = gpu.ipc_open(handle)?;
        maps.insert((p, *handle), a);
        Ok(a)
    }

    fn send_data(&self, to: u32, msg: Vec<u8>) -> Result<()> {
        self.sent[to as usize].fetch_add(1, Ordering::Relaxed);
        self.job.net.send(to, self.data, msg)
    }

    fn others(&self) -> impl Iterator<Item = u32> + '_ {
        let me = self.me();
        (0..self.processes()).filter(move |&p| p != me)
    }

    /// Marks one more access of device rank `rank` complete.
    fn complete(&self, rank: u32) {
        // SAFETY: `host_done` has one counter per rank, for the whole run.
        unsafe { AtomicU32::from_ptr((self.host_done as *mut u32).add(rank as usize)) }
            .fetch_add(1, Ordering::Release);
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
            let msg = Writer::default().u8(ABORT).bytes(message.as_bytes()).0;
            let _ = self.job.net.send(p, self.control, msg);
        }
        // Give the messages a moment to leave before the run's end.
        let until = std::time::Instant::now() + std::time::Duration::from_secs(2);
        while matches!(self.job.net.progress(), Ok(n) if n > 0) && std::time::Instant::now() < until
        {
            std::thread::yield_now();
        }
    }

    // ---- The progress thread: what local ranks ask for ----

    /// A put (or notification, `bytes == 0`) from device rank `rank` to
    /// world rank `target`: stages the source in pieces and sends them;
    /// the source may be reused once all are staged.
    /// With `inline`, `t.local` holds the data itself (at most 8 bytes).
    pub fn put(&self, rank: u32, t: &Transfer, tag: u32, inline: bool) -> Result<()> {
        let Transfer {
            target,
            window,
            offset,
            local,
            bytes,
        } = *t;
        let to = self.process_of(target);
        let source = self.first() + rank;
        for (done, piece, last) in pieces(bytes) {
            let mut w = Writer::default()
                .u8(PUT)
                .u32(source)
                .u32(target)
                .u32(window)
                .u64(offset + done)
                .u32(if last { tag } else { NO_TAG })
                .u64(piece);
            let start = w.0.len();
            if inline {
                w.0.extend_from_slice(&local.to_le_bytes()[..piece as usize]);
            } else {
                w.0.resize(start + piece as usize, 0);
                self.runtime.read_device(local + done, &mut w.0[start..])?;
            }
            self.send_data(to, w.0)?;
        }
        self.complete(rank);
        Ok(())
    }

    /// A get by device rank `rank`: asks the target's host for the data.
    pub fn get(&self, rank: u32, t: &Transfer, tag: u32) -> Result<()> {
        let msg = Writer::default()
            .u8(GET)
            .u32(self.first() + rank)
            .u32(t.target)
            .u32(t.window)
            .u64(t.offset)
            .u64(t.bytes)
            .u64(t.local)
            .u32(tag)
            .0;
        self.send_data(self.process_of(t.target), msg)
    }

    /// Starts the next world sync: a barrier, or the exchange of window
    /// `window`.
    pub fn start_sync(&self, syncs: &mut Syncs, window: Option<u32>) -> Result<()> {
        let seq = syncs.next;
        syncs.next += 1;
        let shared = match window {
            Some(id) => Some((id, self.own_entries(id)?)),
            None => None,
        };
        for p in self.others() {
            let mut w = Writer::default()
                .u8(SYNC)
                .u32(seq)
                .u64(self.sent[p as usize].load(Ordering::Relaxed));
            match &shared {
                None => w = w.u8(0),
                Some((id, entries)) => {
                    w = w.u8(1).u32(*id).u32(entries.len() as u32);
                    for e in entries {
                        w = put_entry(w, &e.entry);
                        w = put_ipc(w, e.ipc);
                    }
                }
            }
            self.job.net.send(p, self.control, w.0)?;
        }
        syncs.pending = Some((seq, window));
        Ok(())
    }

    /// Reads this process's entries of window `id` from the device, keeps
    /// them for the receive thread, and makes IPC handles where a peer
    /// could map them.
    fn own_entries(&self, id: u32) -> Result<Vec<SharedEntry>> {
        let ranks = self.ranks() as usize;
        let entries = self.read_entries(id as usize, self.first(), ranks)?;
        self.mirror.lock().unwrap_or_else(|e| e.into_inner())
            [id as usize * ranks..(id as usize + 1) * ranks]
            .copy_from_slice(&entries);
        let gpu = self.runtime.gpu();
        Ok(entries
            .into_iter()
            .map(|entry| SharedEntry {
                ipc: match gpu {
                    Some(g) if entry.live != 0 && entry.bytes > 0 => g.ipc_export(entry.base).ok(),
                    _ => None,
                },
                entry,
            })
            .collect())
    }

    /// `count` entries of window `id` from world rank `first` on, from the
    /// device table.
    fn read_entries(&self, id: usize, first: u32, count: usize) -> Result<Vec<WindowEntry>> {
        let mut entries = vec![WindowEntry::default(); count];
        // SAFETY: plain data, viewed as its bytes.
        let raw = unsafe {
            std::slice::from_raw_parts_mut(
                entries.as_mut_ptr() as *mut u8,
                std::mem::size_of_val(&entries[..]),
            )
        };
        self.runtime.read_device(self.entry_addr(id, first), raw)?;
        Ok(entries)
    }

    /// Writes `entries` of window `id` from world rank `first` on into the
    /// device table.
    fn write_entries(&self, id: usize, first: u32, entries: &[WindowEntry]) -> Result<()> {
        // SAFETY: plain data, viewed as its bytes.
        let raw = unsafe {
            std::slice::from_raw_parts(
                entries.as_ptr() as *const u8,
                std::mem::size_of_val(entries),
            )
        };
        self.runtime.write_device(self.entry_addr(id, first), raw)
    }

    /// The device address of world rank `first`'s entry of window `id`.
    fn entry_addr(&self, id: usize, first: u32) -> u64 {
        let index = id * self.size() as usize + first as usize;
        self.table + (index * std::mem::size_of::<WindowEntry>()) as u64
    }

    /// Tells the world where the run put its window and peer tables.
    pub fn attach(&mut self, table: u64, peers: u64) {
        self.table = table;
        self.peers = peers;
    }

    /// Takes control messages and finishes the pending sync when it can;
    /// returns whether it finished one.
    pub fn poll_syncs(&self, syncs: &mut Syncs) -> Result<bool> {
        let rx = self.control_rx.lock().unwrap_or_else(|e| e.into_inner());
        while let Ok((from, msg)) = rx.try_recv() {
            let mut r = Reader::new(&msg, "control");
            match r.u8()? {
                SYNC => {
                    let seq = r.u32()?;
                    let sent = r.u64()?;
                    let window = if r.u8()? == 1 {
                        let id = r.u32()?;
                        let n = r.u32()?;
                        let mut entries = Vec::with_capacity(n as usize);
                        for _ in 0..n {
                            let entry = get_entry(&mut r)?;
                            entries.push(SharedEntry {
                                entry,
                                ipc: get_ipc(&mut r)?,
                            });
                        }
                        Some((id, entries))
                    } else {
                        None
                    };
                    let slots = syncs
                        .arrived
                        .entry(seq)
                        .or_insert_with(|| (0..self.processes()).map(|_| None).collect());
                    slots[from as usize] = Some(SyncMessage { sent, window });
                }
                ABORT => {
                    let text = String::from_utf8_lossy(r.bytes()?).into_owned();
                    self.fail(from, text);
                }
                other => {
                    return Err(peer_error(
                        "control",
                        format!("process {from} sent unknown control message {other}"),
                    ))
                }
            }
        }
        drop(rx);
        let Some((seq, window)) = syncs.pending else {
            return Ok(false);
        };
        let Some(slots) = syncs.arrived.get(&seq) else {
            return Ok(false);
        };
        for p in self.others() {
            match &slots[p as usize] {
                Some(m) if self.received[p as usize].load(Ordering::Acquire) >= m.sent => {}
                _ => return Ok(false),
            }
        }
        let slots = syncs.arrived.remove(&seq).unwrap_or_default();
        syncs.pending = None;
        if let Some(id) = window {
            self.install_window(id, slots)?;
        }
        Ok(true)
    }

    /// Writes the other processes' entries of window `id` into the device
    /// table: mapped addresses for direct peers, their own for the rest.
    /// A peer whose memory cannot be mapped is reached through the host
    /// from now on.
    fn install_window(&self, id: u32, slots: Vec<Option<SyncMessage>>) -> Result<()> {
        for (p, slot) in slots.into_iter().enumerate() {
            let Some(SyncMessage {
                window: Some((_, entries)),
                ..
            }) = slot
            else {
                continue;
            };
            let mut route = self.routes.lock().unwrap_or_else(|e| e.into_inner())[p];
            if route == Route::Direct
                && entries
                    .iter()
                    .any(|e| e.entry.live != 0 && e.entry.bytes > 0 && e.ipc.is_none())
            {
                eprintln!("dcuda: process {}: window {id} of process {p} is not in memory that can be mapped (allocate it with Runtime::alloc); its traffic goes through the host from now on", self.me());
                self.demote(p as u32)?;
                route = Route::Host;
            }
            let mut row = Vec::with_capacity(entries.len());
            for e in entries {
                let mut entry = e.entry;
                entry.route = route as u16;
                if let (Route::Direct, Some((handle, offset))) = (route, e.ipc) {
                    entry.base = self.map(p as u32, &handle)? + offset;
                }
                row.push(entry);
            }
            self.write_entries(id as usize, self.firsts[p], &row)?;
        }
        Ok(())
    }

    /// Sends all traffic to process `p` through the host: its peer entry
    /// and every window entry of it already installed.
    fn demote(&self, p: u32) -> Result<()> {
        self.routes.lock().unwrap_or_else(|e| e.into_inner())[p as usize] = Route::Host;
        let route = self.peers
            + (p as usize * std::mem::size_of::<Peer>() + std::mem::offset_of!(Peer, route)) as u64;
        self.runtime
            .write_device(route, &(Route::Host as u32).to_le_bytes())?;
        let (first, ranks) = (
            self.firsts[p as usize],
            (self.firsts[p as usize + 1] - self.firsts[p as usize]) as usize,
        );
        for id in 0..MAX_WINDOWS {
            let mut row = self.read_entries(id, first, ranks)?;
            for e in &mut row {
                e.route = Route::Host as u16;
            }
            self.write_entries(id, first, &row)?;
        }
        Ok(())
    }

    // ---- The receive thread: what other processes send ----

    /// Starts the receive thread.
    pub fn start_receiver(self: &Arc<Self>) -> std::thread::JoinHandle<()> {
        let world = self.clone();
        std::thread::Builder::new()
            .name("dcuda-receive".into())
            .spawn(move || world.receive_loop())
            .expect("cannot start the receive thread")
    }

    /// Stops the receive thread (after the run's last sync).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    fn receive_loop(&self) {
        let mut idle = 0u32;
        let tx = self
            .control_tx
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        while !self.stop.load(Ordering::Acquire) {
            let mut busy = false;
            match self.job.net.try_recv(self.data) {
                Ok(Some((from, msg))) => {
                    busy = true;
                    if let Err(e) = self.deliver(from, &msg) {
                        self.fail(self.me(), e.to_string());
                    }
                    self.received[from as usize].fetch_add(1, Ordering::Release);
                }
                Ok(None) => {}
                Err(e) => self.fail(self.me(), e.to_string()),
            }
            match self.job.net.try_recv(self.control) {
                Ok(Some(m)) => {
                    busy = true;
                    let _ = tx.send(m);
                }
                Ok(None) => {}
                Err(e) => self.fail(self.me(), e.to_string()),
            }
            if let Err(e) = self.job.net.progress() {
                self.fail(self.me(), e.to_string());
            }
            idle = if busy { 0 } else { idle.saturating_add(1) };
            if idle > 10_000 {
                std::thread::yield_now();
            }
        }
    }

    /// The window entry of local device rank `dev` for an access of
    /// `bytes` at `offset`, checked.
    fn checked_entry(
        &self,
        source: u32,
        target: u32,
        window: u32,
        offset: u64,
        bytes: u64,
    ) -> Result<WindowEntry> {
        let ranks = self.ranks() as usize;
        let dev = (target - self.first()) as usize;
        let entry = if (window as usize) < MAX_WINDOWS {
            self.mirror.lock().unwrap_or_else(|e| e.into_inner())[window as usize * ranks + dev]
        } else {
            WindowEntry::default()
        };
        if entry.live == 0 {
            return Err(peer_error("remote access", format!("rank {source} accessed window {window} of rank {target}, which is not live there")));
        }
        if offset
            .checked_add(bytes)
            .is_none_or(|end| end > entry.bytes)
        {
            return Err(peer_error("remote access", format!("rank {source} accessed bytes {offset}..{} of window {window} of rank {target}, which has {} bytes", offset.saturating_add(bytes), entry.bytes)));
        }
        Ok(entry)
    }

    fn notify_local(&self, target: u32, tag: u32) {
        if tag == NO_TAG || tag as usize >= TAGS {
            return;
        }
        if !self.remote_seen.swap(true, Ordering::Relaxed) {
            // Before the first count: the ranks start reading the counters.
            if let Err(e) = self
                .runtime
                .write_device(self.remote_active, &1u32.to_le_bytes())
            {
                self.fail(self.me(), e.to_string());
            }
        }
        let at = (target - self.first()) as usize * TAGS + tag as usize;
        // SAFETY: the remote counters have `[ranks][TAGS]` entries, for the run.
        unsafe { AtomicU32::from_ptr((self.remote_counters as *mut u32).add(at)) }
            .fetch_add(1, Ordering::Release);
    }

    fn deliver(&self, from: u32, msg: &[u8]) -> Result<()> {
        let mut r = Reader::new(msg, "data");
        match r.u8()? {
            PUT => {
                let (source, target, window) = (r.u32()?, r.u32()?, r.u32()?);
                let (offset, tag) = (r.u64()?, r.u32()?);
                let data = r.bytes()?;
                if window != NO_WINDOW {
                    let e =
                        self.checked_entry(source, target, window, offset, data.len() as u64)?;
                    if !data.is_empty() {
                        self.runtime.write_device(e.base + offset, data)?;
                    }
                }
                self.notify_local(target, tag);
            }
            GET => {
                let (source, target, window) = (r.u32()?, r.u32()?, r.u32()?);
                let (offset, bytes, local, tag) = (r.u64()?, r.u64()?, r.u64()?, r.u32()?);
                let e = self.checked_entry(source, target, window, offset, bytes)?;
                let requester = source - self.firsts[from as usize];
                for (done, piece, last) in pieces(bytes) {
                    let mut w = Writer::default()
                        .u8(GET_REPLY)
                        .u32(requester)
                        .u64(local + done)
                        .u8(last as u8)
                        .u64(piece);
                    let start = w.0.len();
                    w.0.resize(start + piece as usize, 0);
                    self.runtime
                        .read_device(e.base + offset + done, &mut w.0[start..])?;
                    self.send_data(from, w.0)?;
                }
                self.notify_local(target, tag);
            }
            GET_REPLY => {
                let (rank, local, last) = (r.u32()?, r.u64()?, r.u8()? != 0);
                let data = r.bytes()?;
                if !data.is_empty() {
                    self.runtime.write_device(local, data)?;
                }
                if last {
                    self.complete(rank);
                }
            }
            other => {
                return Err(peer_error(
                    "receive",
                    format!("process {from} sent unknown data message {other}"),
                ))
            }
        }
        Ok(())
    }
}

impl Drop for World {
    fn drop(&mut self) {
        if let Some(g) = self.runtime.gpu() {
            for (_, a) in self
                .mappings
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .drain()
            {
                g.ipc_close(a);
            }
        }
    }
}

/// `(start, length, last)` of the pieces a transfer of `bytes` is sent in
/// (one empty piece for none).
fn pieces(bytes: u64) -> impl Iterator<Item = (u64, u64, bool)> {
    let chunk = CHUNK as u64;
    let n = bytes.div_ceil(chunk).max(1);
    (0..n).map(move |i| {
        let start = i * chunk;
        (start, (bytes - start).min(chunk), i + 1 == n)
    })
}

fn put_entry(w: Writer, e: &WindowEntry) -> Writer {
    w.u64(e.base)
        .u64(e.bytes)
        .u32(e.elem)
        .u32(e.live)
        .u32(e.comm as u32)
        .u32(e.matched)
}

fn get_entry(r: &mut Reader) -> Result<WindowEntry> {
    Ok(WindowEntry {
        base: r.u64()?,
        bytes: r.u64()?,
        elem: r.u32()?,
        live: r.u32()?,
        comm: r.u32()? as u16,
        route: 0,
        matched: r.u32()?,
    })
}

fn put_ipc(w: Writer, ipc: Option<([u8; 64], u64)>) -> Writer {
    match ipc {
        None => w.u8(0),
        Some((h, off)) => w.u8(1).bytes(&h).u64(off),
    }
}

fn get_ipc(r: &mut Reader) -> Result<Option<([u8; 64], u64)>> {
    if r.u8()? == 0 {
        return Ok(None);
    }
    let h: [u8; 64] = r
        .bytes()?
        .try_into()
        .map_err(|_| peer_error("decode", "an IPC handle of the wrong size".into()))?;
    Ok(Some((h, r.u64()?)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pieces_cover_the_transfer_once() {
        assert_eq!(pieces(0).collect::<Vec<_>>(), vec![(0, 0, true)]);
        assert_eq!(pieces(5).collect::<Vec<_>>(), vec![(0, 5, true)]);
        let c = CHUNK as u64;
        assert_eq!(
            pieces(2 * c + 3).collect::<Vec<_>>(),
            vec![(0, c, false), (c, c, false), (2 * c, 3, true)]
        );
        assert_eq!(pieces(c).collect::<Vec<_>>(), vec![(0, c, true)]);
    }
}
