//! The runtime's memory for one run: counters, tables, the command ring,
//! replies and the context every rank reads. Allocated before the launch,
//! dropped after the kernel ends.

use super::comm_memory::CommMemory;
use super::config::RunConfig;
use crate::error::Result;
use crate::memory::{DeviceBuffer, MappedBuffer};
use crate::runtime::Runtime;
use crate::world::{InboxMemory, RunMemory, World};
use dcuda_device::abi::ring::ll_word;
use dcuda_device::abi::{
    ErrorRecord, MatchRecord, MessageRecord, Peer, PeerLogs, RankContext, Reply, RingEntry, Route,
    WaitStatus, Want, WindowEntry, MAILBOX_WORDS, MATCH_LOG, MAX_WINDOWS, MSG_LOG, TAGS,
};
use dcuda_device::kernel::RankArgs;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::sync::Arc;

/// The runtime's memory for one run.
pub(crate) struct RunState {
    pub ranks: u32,
    pub world_size: u32,
    _local: DeviceBuffer<u32>,
    _remote: MappedBuffer<u32>,
    _host_done: MappedBuffer<u32>,
    _remote_active: DeviceBuffer<u32>,
    _peers: DeviceBuffer<u8>,
    _windows: DeviceBuffer<u8>,
    _barrier: DeviceBuffer<u32>,
    abort: DeviceBuffer<u32>,
    error: DeviceBuffer<u8>,
    status: MappedBuffer<u8>,
    pub ring: MappedBuffer<u8>,
    pub ring_len: u32,
    _ring_reserve: DeviceBuffer<u32>,
    pub ring_consumed: MappedBuffer<u32>,
    replies: MappedBuffer<u8>,
    _match_log: DeviceBuffer<u8>,
    _match_counters: DeviceBuffer<u32>,
    _messages: (
        DeviceBuffer<u8>,
        DeviceBuffer<u32>,
        DeviceBuffer<u8>,
        DeviceBuffer<u64>,
    ),
    _inbox: (MappedBuffer<u8>, MappedBuffer<u32>, MappedBuffer<u8>),
    _comms: CommMemory,
    /// The senders' reserved counts of the peer logs (several processes).
    _peer_reserved: Option<DeviceBuffer<u32>>,
    _leader_barrier: DeviceBuffer<u32>,
    pub context: DeviceBuffer<u8>,
    pub args: DeviceBuffer<u8>,
    pub memory_per_rank: (usize, usize),
    /// A traced run's span buffers.
    pub trace: Option<crate::trace::TraceMemory>,
}

fn bytes<T>(n: usize) -> usize {
    n * std::mem::size_of::<T>()
}

/// Copies plain bytes to a fresh device allocation.
fn upload_bytes(rt: &Runtime, raw: &[u8]) -> Result<DeviceBuffer<u8>> {
    let buf = rt.alloc::<u8>(raw.len())?;
    rt.write_device(buf.addr(), raw)?;
    Ok(buf)
}

impl RunState {
    /// Allocates the run's memory; in a job of several processes, also
    /// sets up the run's world with the other processes.
    pub fn new<A: RankArgs>(
        rt: &Runtime,
        ranks: u32,
        config: &RunConfig,
        args: &A,
    ) -> Result<(RunState, Option<Arc<World>>)> {
        let n = ranks as usize;
        // Four commands in flight per rank, and at least 128 (16 KiB of
        // 128-byte entries) for small runs.
        let ring_len = (n * 4).max(128).next_power_of_two() as u32;
        let counters = n * TAGS as usize;
        // The mailboxes, staging areas and peer logs follow the counters in
        // the same allocation (see `mailbox_offset`, `stage_offset`,
        // `peer_log_at`): a peer that maps one reaches all. Staging and peer
        // logs carry data between processes only, so a run of one leaves
        // them out.
        let node_index = |p: usize| -> u32 {
            rt.job().map_or(0, |job| {
                let nodes = &job.nodes;
                nodes[..p].iter().filter(|&&n| n == nodes[p]).count() as u32
            })
        };
        let peer_logs = rt.job().map_or(0, |job| {
            let me = job.nodes[job.process() as usize];
            PeerLogs::logs_for(job.nodes.iter().filter(|&&n| n == me).count() as u32)
        });
        let words = if rt.job().is_some() {
            let logs = PeerLogs {
                ranks,
                logs: peer_logs,
            };
            logs.end() as usize / 4
        } else {
            counters + n * MAILBOX_WORDS * 2
        };
        let mut initial = vec![config.notification_start; words];
        initial[counters..].fill(0);
        let local = rt.upload(&initial)?;
        // Written by the host, polled by the ranks: pinned host memory (the
        // fastest placement measured for host-to-device signals).
        let remote = rt.alloc_mapped::<u32>(counters)?;
        let host_done = rt.alloc_mapped::<u32>(n)?;
        let remote_active = rt.alloc::<u32>(1)?;
        // Two-sided messages: each rank's log (device) and inbox (host).
        let messages = rt.alloc::<u8>(bytes::<MessageRecord>(n * MSG_LOG))?;
        let message_counters = rt.alloc::<u32>(2 * n)?;
        let envelopes = rt.alloc::<u8>(bytes::<MessageRecord>(n))?;
        let message_lists = rt.alloc::<u64>(2 * n)?;
        // Only messages from other processes reach the inboxes.
        let inboxes = if rt.job().is_some() { n } else { 1 };
        let inbox = rt.alloc_mapped::<u8>(bytes::<MessageRecord>(inboxes * (MSG_LOG + 1)))?;
        let inbox_counters = rt.alloc_mapped::<u32>(4 * inboxes)?;
        let wants = rt.alloc_mapped::<u8>(bytes::<Want>(inboxes))?;
        let trace = match config.trace_path() {
            Some(path) => {
                let at = (path, config.trace_capacity()?);
                Some(crate::trace::TraceMemory::new(rt, ranks, at)?)
            }
            None => {
                if let Some(paths) = crate::config::MODEL.value() {
                    tracing::warn!(target: "dcuda::trace", "DCUDA_MODEL={paths} is set but this run is not traced (DCUDA_TRACE or RunConfig::trace): nothing is predicted");
                }
                None
            }
        };
        let mut world = match rt.job() {
            Some(job) => Some(World::setup(
                job.clone(),
                rt,
                ranks,
                RunMemory {
                    counters: local.addr(),
                    remote_counters: remote.host_ptr() as usize,
                    host_done: host_done.host_ptr() as usize,
                    remote_active: remote_active.addr(),
                    inbox: InboxMemory {
                        records: inbox.host_ptr() as usize,
                        counters: inbox_counters.host_ptr() as usize,
                        wants: wants.host_ptr() as usize,
                    },
                    traced: trace.is_some(),
                },
            )?),
            None => None,
        };
        let (world_first, world_size) =
            world.as_ref().map_or((0, ranks), |w| (w.first(), w.size()));
        let peer_table: Vec<Peer> = match &world {
            None => vec![Peer {
                first: 0,
                ranks,
                route: Route::Local as u32,
                node: 0,
                node_index: 0,
                pe: 0,
                notifications: local.addr(),
                symmetric_notifications: 0,
            }],
            Some(w) => {
                let routes = w.routes.lock().unwrap_or_else(|e| e.into_inner()).clone();
                routes
                    .iter()
                    .enumerate()
                    .map(|(p, &route)| Peer {
                        first: w.firsts[p],
                        ranks: w.firsts[p + 1] - w.firsts[p],
                        route: route as u32,
                        node: w.job.nodes[p],
                        node_index: node_index(p),
                        pe: p as u32 | w.nvshmem_calls,
                        symmetric_notifications: w.symmetric_counters[p],
                        notifications: match route {
                            Route::Local => local.addr(),
                            Route::Direct => w.peer_counters[p],
                            Route::Host | Route::Nvshmem => 0,
                        },
                    })
                    .collect()
            }
        };
        let peers = upload_bytes(rt, bytemuck::cast_slice(&peer_table))?;
        let windows = rt.alloc::<u8>(bytes::<WindowEntry>(MAX_WINDOWS * world_size as usize))?;
        let all_direct = world.as_mut().is_some_and(|w| *w.all_direct.get_mut());
        let leaders = match crate::config::WORLD_BARRIER.choice(&["auto", "hosts", "leaders"])? {
            None | Some("auto") => all_direct,
            Some(choice) => choice == "leaders",
        };
        if let Some(w) = &mut world {
            // Only the automatic choice follows the routes later.
            *w.all_direct.get_mut() &= leaders;
        }
        let leader_barrier = rt.upload(&[leaders as u32])?;
        if let Some(w) = &mut world {
            w.attach(windows.addr(), peers.addr(), leader_barrier.addr());
        }
        let barrier = rt.alloc::<u32>(2)?;
        let abort = rt.alloc::<u32>(1)?;
        let error = rt.alloc::<u8>(bytes::<ErrorRecord>(1))?;
        let status = rt.alloc_mapped::<u8>(bytes::<WaitStatus>(n))?;
        let ring = rt.alloc_mapped::<u8>(bytes::<RingEntry>(ring_len as usize))?;
        let ring_reserve = rt.alloc::<u32>(1)?;
        let ring_consumed = rt.alloc_mapped::<u32>(1)?;
        let replies = rt.alloc_mapped::<u8>(bytes::<Reply>(n))?;
        let match_log = rt.alloc::<u8>(bytes::<MatchRecord>(n * MATCH_LOG))?;
        let match_counters = rt.alloc::<u32>(2 * n)?;
        let firsts = match &world {
            Some(w) => w.firsts.clone(),
            None => vec![0, ranks],
        };
        let comms = CommMemory::new(rt, ranks, world_first, &firsts)?;
        let peer_reserved = match &world {
            Some(_) => Some(rt.alloc::<u32>(world_size as usize)?),
            None => None,
        };
        let addrs = comms.addrs();
        if let Some(w) = &mut world {
            w.attach_comms(addrs.tables, addrs.exchange);
        }
        let context = RankContext {
            ranks,
            world_first,
            world_size,
            notification_start: config.notification_start,
            local_notifications: local.addr(),
            remote_notifications: remote.device_ptr() as u64,
            windows: windows.addr(),
            barrier: barrier.addr(),
            abort: abort.addr(),
            error: error.addr(),
            status: status.device_ptr() as u64,
            ring: ring.device_ptr() as u64,
            ring_len,
            processes: peer_table.len() as u32,
            ring_reserve: ring_reserve.addr(),
            ring_consumed: ring_consumed.device_ptr() as u64,
            replies: replies.device_ptr() as u64,
            match_log: match_log.addr(),
            match_reserve: match_counters.addr(),
            match_retired: match_counters.addr() + bytes::<u32>(n) as u64,
            status_after_ns: 1_000_000,
            peers: peers.addr(),
            host_done: host_done.device_ptr() as u64,
            remote_active: remote_active.addr(),
            collective_slots: addrs.collective_slots,
            leader_barrier: leader_barrier.addr(),
            comm_tables: addrs.tables,
            comm_barriers: addrs.barriers,
            comm_records: addrs.records,
            comm_exchange: addrs.exchange,
            messages: messages.addr(),
            message_counters: message_counters.addr(),
            envelopes: envelopes.addr(),
            message_lists: message_lists.addr(),
            inbox: inbox.device_ptr() as u64,
            inbox_counters: inbox_counters.device_ptr() as u64,
            wants: wants.device_ptr() as u64,
            trace: trace.as_ref().map_or(0, |t| t.spans.addr()),
            trace_counts: trace.as_ref().map_or(0, |t| t.counts.addr()),
            trace_capacity: trace.as_ref().map_or(0, |t| t.capacity),
            _trace_pad: 0,
            trace_clock: trace.as_ref().map_or(0, |t| t.clock.device_ptr() as u64),
            peer_reserved: peer_reserved.as_ref().map_or(0, |b| b.addr()),
            peer_logs,
            node_index: rt.job().map_or(0, |job| node_index(job.process() as usize)),
        };
        let context_buffer = upload_bytes(rt, bytemuck::bytes_of(&context))?;
        // SAFETY: `A` is plain data (RankArgs: Copy), copied bit for bit to
        // the device, where the kernel reads it as an `A`.
        let raw_args = unsafe {
            std::slice::from_raw_parts(args as *const A as *const u8, std::mem::size_of::<A>())
        };
        let args_buffer = upload_bytes(rt, raw_args)?;
        let device = local.len() * 4
            + windows.len()
            + match_log.len()
            + match_counters.len() * 4
            + messages.len()
            + message_counters.len() * 4
            + envelopes.len()
            + message_lists.len() * 8
            + comms.bytes()
            + peer_reserved.as_ref().map_or(0, |b| b.len() * 4)
            + trace
                .as_ref()
                .map_or(0, |t| t.spans.len() + t.counts.len() * 4);
        let host = status.len()
            + ring.len()
            + replies.len()
            + remote.len() * 4
            + host_done.len() * 4
            + inbox.len()
            + inbox_counters.len() * 4
            + wants.len();
        let state = RunState {
            ranks,
            world_size,
            _local: local,
            _remote: remote,
            _host_done: host_done,
            _remote_active: remote_active,
            _peers: peers,
            _windows: windows,
            _barrier: barrier,
            abort,
            error,
            status,
            ring,
            ring_len,
            _ring_reserve: ring_reserve,
            ring_consumed,
            replies,
            _match_log: match_log,
            _match_counters: match_counters,
            _messages: (messages, message_counters, envelopes, message_lists),
            _inbox: (inbox, inbox_counters, wants),
            _comms: comms,
            _peer_reserved: peer_reserved,
            _leader_barrier: leader_barrier,
            context: context_buffer,
            args: args_buffer,
            memory_per_rank: (device / n, host / n),
            trace,
        };
        Ok((state, world.map(Arc::new)))
    }

    /// Raises the abort flag every waiting rank polls.
    pub fn abort_run(&self) -> Result<()> {
        self.abort.runtime().device.raise_flag(self.abort.addr())
    }

    /// What device rank `rank` waits on.
    pub fn status(&self, rank: u32) -> WaitStatus {
        // SAFETY: in bounds; the device writes the slot with a release of `state`.
        unsafe {
            let p = (self.status.host_ptr() as *const WaitStatus).add(rank as usize);
            let state =
                AtomicU32::from_ptr(&raw const (*p).state as *mut u32).load(Ordering::Acquire);
            let mut s = p.read_volatile();
            s.state = state;
            s
        }
    }

    /// The first error a rank recorded.
    pub fn error(&self) -> Result<ErrorRecord> {
        Ok(bytemuck::pod_read_unaligned(&self.error.download()?))
    }

    /// Answers device rank `rank`'s host call with `value`; `seq` counts
    /// the replies to it.
    pub fn reply(&self, rank: u32, seq: u32, value: u32) {
        // SAFETY: the caller checked `rank`; count and value are one word.
        unsafe {
            let slot = (self.replies.host_ptr() as *mut Reply).add(rank as usize);
            let word = ll_word(seq, value);
            AtomicU64::from_ptr(&raw mut (*slot).word).store(word, Ordering::Release);
        }
    }
}

#[cfg(test)]
mod tests;
