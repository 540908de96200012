//! The run's context: where the runtime's memory is, and where every
//! process's ranks are. Built by the host for each run, read by every rank.

use super::comm_records::{CommRecord, SplitEntry};
use super::peer::Peer;
use super::records::{ErrorRecord, MatchRecord, MessageRecord, WaitStatus, Want, WindowEntry};
use super::ring::{Reply, RingEntry};
use super::{MAILBOX_STEPS, MAILBOX_WORDS, MATCH_LOG, MAX_COMMS, MSG_LOG, STAGE_HALF, TAGS};

/// Entries of each slot's communicator table per world rank: the parts of
/// the live communicators of a slot (disjoint sets of ranks) hold at most
/// two entries per world rank, and the rest leaves room between them.
pub const TABLE_SPAN: usize = 4;
use bytemuck::{Pod, Zeroable};

/// Index of device rank `dev`'s counter of `tag` in a `[ranks][TAGS]`
/// counter array: the one definition the device and the host share.
#[inline(always)]
pub const fn counter_index(dev: u32, tag: u32) -> usize {
    dev as usize * TAGS as usize + tag as usize
}

/// Byte offset of the mailboxes of a process with `ranks` ranks from its
/// notification counters: they share one allocation, so a GPU that maps a
/// peer's counters reaches its mailboxes too.
#[inline(always)]
pub const fn mailbox_offset(ranks: u32) -> u64 {
    counter_index(ranks, 0) as u64 * 4
}

/// Byte offset of the staging areas of a process with `ranks` ranks from
/// its notification counters: `[ranks][2][STAGE_HALF]` bytes after the
/// mailboxes, in the same allocation (in a run of several processes
/// only).
#[inline(always)]
pub const fn stage_offset(ranks: u32) -> u64 {
    mailbox_offset(ranks) + (ranks as usize * MAILBOX_WORDS * 8) as u64
}

/// Byte offset of device rank `dev`'s mailbox word of step `step` of
/// parity `parity` of communicator slot `slot`, from the start of the
/// mailboxes.
#[inline(always)]
pub const fn mailbox_slot(dev: u32, slot: u32, parity: u32, step: u32) -> u64 {
    let word = dev as usize * MAILBOX_WORDS
        + (slot as usize * 2 + parity as usize) * MAILBOX_STEPS
        + step as usize;
    word as u64 * 8
}

/// Everything a rank kernel needs to find the runtime's memory. All
/// addresses are device addresses (`u64`), so the structure is plain data.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, Pod, Zeroable)]
pub struct RankContext {
    /// Ranks on this device.
    pub ranks: u32,
    /// World rank of this device's rank 0.
    pub world_first: u32,
    /// Ranks in the world.
    pub world_size: u32,
    /// Initial value of every notification counter (tests start near the wrap).
    pub notification_start: u32,
    /// `[ranks][TAGS]` counters bumped by ranks of this device and mapped
    /// GPUs, followed by `[ranks][MAILBOX_WORDS]` mailbox words (at
    /// [`mailbox_offset`]) written by other processes' device leaders.
    pub local_notifications: u64,
    /// `[ranks][TAGS]` counters written by the host for remote senders.
    pub remote_notifications: u64,
    /// `[MAX_WINDOWS][world_size]` window table.
    pub windows: u64,
    /// Device-wide barrier: `[count, generation]`.
    pub barrier: u64,
    /// Non-zero once the run is aborted (an error or the watchdog).
    pub abort: u64,
    /// The first error a rank reported.
    pub error: u64,
    /// `[ranks]` what each rank waits on (host-mapped; read by the watchdog).
    pub status: u64,
    /// Device-to-host command ring (host-mapped), `ring_len` entries.
    pub ring: u64,
    /// Entries in the ring (a power of two).
    pub ring_len: u32,
    /// Processes in the job (one device each).
    pub processes: u32,
    /// Next ring slot to reserve (device memory).
    pub ring_reserve: u64,
    /// Ring entries the host has consumed (host-mapped, written by the host).
    pub ring_consumed: u64,
    /// `[ranks]` host replies (host-mapped).
    pub replies: u64,
    /// `[ranks][MATCH_LOG]` notification records of matched windows.
    pub match_log: u64,
    /// `[ranks]` records reserved in each rank's matching log.
    pub match_reserve: u64,
    /// `[ranks]` records each rank has retired from its matching log.
    pub match_retired: u64,
    /// A rank publishes its wait status after waiting this long (ns).
    pub status_after_ns: u64,
    /// `[processes]` where each process's ranks are and how to reach them.
    pub peers: u64,
    /// `[ranks]` operations through the host that the host has completed
    /// for each rank (host-mapped, written by the host).
    pub host_done: u64,
    /// Non-zero once the host has delivered a notification or message
    /// from another process (device memory, written once by the host):
    /// until then the ranks need not read their remote counters or inboxes
    /// over the bus.
    pub remote_active: u64,
    /// `[2][ranks][SLOT_WORDS]` words where the ranks of this device meet
    /// in a collective (two parities, so that a fast rank's next call never
    /// overwrites a record a slow rank has still to read).
    pub collective_slots: u64,
    /// Device flag, non-zero while a world barrier may run between the
    /// device leaders alone: every process maps every other's memory, so
    /// no host carries data (written by the host, the same on every process).
    pub leader_barrier: u64,
    /// `[MAX_COMMS][TABLE_SPAN * world_size]` communicator tables: per
    /// slot, each communicator's part (given out by the host) holds the
    /// world ranks of its ranks in rank order, then of its representatives
    /// (each process's rank of lowest world rank) in process order.
    pub comm_tables: u64,
    /// `[MAX_COMMS][ranks]` barrier words of the communicators' members on
    /// this device, indexed by the slot and the lowest such member.
    pub comm_barriers: u64,
    /// `[ranks][MAX_COMMS]` each rank's communicator in each slot (context
    /// 0 when free).
    pub comm_records: u64,
    /// `[MAX_COMMS][world_size]` [`SplitEntry`]s, by the slot of the
    /// communicator being split (filled by the hosts across processes).
    pub comm_exchange: u64,
    /// `[ranks][MSG_LOG]` [`MessageRecord`]s sent by ranks of this device.
    pub messages: u64,
    /// `[2][ranks]` records reserved in, then retired from, each rank's
    /// message log.
    pub message_counters: u64,
    /// `[ranks]` each rank's own envelope: the message it waits to hand
    /// over when it is long or the receiver's log is full.
    pub envelopes: u64,
    /// `[2][ranks]` per receiver: the list of senders' envelopes pushed to
    /// it, and the list it has taken over.
    pub message_lists: u64,
    /// `[ranks][MSG_LOG + 1]` [`MessageRecord`]s from other processes,
    /// written by the host (host-mapped): the inbox, then the express slot.
    pub inbox: u64,
    /// `[4][ranks]` records the host has published in, then the rank has
    /// retired from, each rank's inbox; then the same of its express slot
    /// (host-mapped).
    pub inbox_counters: u64,
    /// `[ranks]` [`Want`]s (host-mapped).
    pub wants: u64,
    /// `[ranks][trace_capacity]` [`TraceSpan`](super::TraceSpan)s of a
    /// traced run; 0 when the run is not traced.
    pub trace: u64,
    /// `[ranks]` spans each rank has recorded, those that did not fit
    /// included.
    pub trace_counts: u64,
    /// Spans per rank in `trace`.
    pub trace_capacity: u32,
    /// Reserved.
    pub _trace_pad: u32,
    /// `[before, host, after]` (host-mapped): device rank 0's clock at the
    /// end of a traced run, the host's clock in between.
    pub trace_clock: u64,
    /// `[world_size]` records this process's senders have reserved in the
    /// peer log of each world rank from this process (see
    /// [`PeerLogs`](super::PeerLogs)); 0 in a run of one process.
    pub peer_reserved: u64,
    /// Peer logs each rank of this process has ([`PeerLogs`](super::PeerLogs)).
    pub peer_logs: u32,
    /// This process's index among the processes of its node.
    pub node_index: u32,
}

impl RankContext {
    /// Device rank `dev`'s counter of `tag` bumped on the device.
    #[inline(always)]
    pub fn local_counter(&self, dev: u32, tag: u32) -> *mut u32 {
        (self.local_notifications as *mut u32).wrapping_add(counter_index(dev, tag))
    }

    /// Device rank `dev`'s counter of `tag` written by the host.
    #[inline(always)]
    pub fn remote_counter(&self, dev: u32, tag: u32) -> *mut u32 {
        (self.remote_notifications as *mut u32).wrapping_add(counter_index(dev, tag))
    }

    /// This device's rank `dev`'s mailbox word of `step` and `parity` of
    /// communicator slot `slot`.
    #[inline(always)]
    pub fn mailbox(&self, dev: u32, slot: u32, parity: u32, step: u32) -> *mut u64 {
        let offset = mailbox_offset(self.ranks) + mailbox_slot(dev, slot, parity, step);
        (self.local_notifications + offset) as *mut u64
    }

    /// Entry `i` of slot `slot`'s table.
    #[inline(always)]
    pub fn comm_table(&self, slot: u32, i: u32) -> *mut u32 {
        let index = slot as usize * TABLE_SPAN * self.world_size as usize + i as usize;
        (self.comm_tables as *mut u32).wrapping_add(index)
    }

    /// The barrier word of slot `slot` whose lowest member here is `lead`.
    #[inline(always)]
    pub fn comm_barrier(&self, slot: u32, lead: u32) -> *mut u32 {
        let index = slot as usize * self.ranks as usize + lead as usize;
        (self.comm_barriers as *mut u32).wrapping_add(index)
    }

    /// Device rank `dev`'s communicator in slot `slot`.
    #[inline(always)]
    pub fn comm_record(&self, dev: u32, slot: u32) -> *mut CommRecord {
        let index = dev as usize * MAX_COMMS + slot as usize;
        (self.comm_records as *mut CommRecord).wrapping_add(index)
    }

    /// Half `half` of this device's rank `dev`'s staging area. Only a run
    /// of several processes has staging areas (they carry data between
    /// processes); the emulator's debug builds check it.
    #[inline(always)]
    pub fn stage(&self, dev: u32, half: u32) -> *mut u8 {
        debug_assert!(self.processes > 1, "staging in a run of one process");
        let offset = stage_offset(self.ranks) + ((dev * 2 + half) as usize * STAGE_HALF) as u64;
        (self.local_notifications + offset) as *mut u8
    }

    /// World rank `world`'s split entry for a split of slot `slot`.
    #[inline(always)]
    pub fn split_entry(&self, slot: u32, world: u32) -> *mut SplitEntry {
        let index = slot as usize * self.world_size as usize + world as usize;
        (self.comm_exchange as *mut SplitEntry).wrapping_add(index)
    }

    /// World rank `world`'s entry of window `id`.
    #[inline(always)]
    pub fn window_entry(&self, id: u32, world: u32) -> *mut WindowEntry {
        let index = id as usize * self.world_size as usize + world as usize;
        (self.windows as *mut WindowEntry).wrapping_add(index)
    }

    /// Device rank `dev`'s wait status.
    #[inline(always)]
    pub fn status(&self, dev: u32) -> *mut WaitStatus {
        (self.status as *mut WaitStatus).wrapping_add(dev as usize)
    }

    /// Span `i` of device rank `dev`'s part of the trace buffer.
    #[inline(always)]
    pub fn trace_span(&self, dev: u32, i: u32) -> *mut super::TraceSpan {
        let at = dev as usize * self.trace_capacity as usize + i as usize;
        (self.trace as *mut super::TraceSpan).wrapping_add(at)
    }

    /// Device rank `dev`'s count of recorded spans.
    #[inline(always)]
    pub fn trace_count(&self, dev: u32) -> *mut u32 {
        (self.trace_counts as *mut u32).wrapping_add(dev as usize)
    }

    /// Device rank `dev`'s reply slot.
    #[inline(always)]
    pub fn reply(&self, dev: u32) -> *mut Reply {
        (self.replies as *mut Reply).wrapping_add(dev as usize)
    }

    /// The ring entry of position `pos`.
    #[inline(always)]
    pub fn ring_entry(&self, pos: u32) -> *mut RingEntry {
        (self.ring as *mut RingEntry).wrapping_add((pos & (self.ring_len - 1)) as usize)
    }

    /// Device rank `dev`'s count of accesses the host completed for it.
    #[inline(always)]
    pub fn host_done(&self, dev: u32) -> *mut u32 {
        (self.host_done as *mut u32).wrapping_add(dev as usize)
    }

    /// Record `pos` of device rank `dev`'s matching log.
    #[inline(always)]
    pub fn match_record(&self, dev: u32, pos: u32) -> *mut MatchRecord {
        let index = dev as usize * MATCH_LOG + pos as usize % MATCH_LOG;
        (self.match_log as *mut MatchRecord).wrapping_add(index)
    }

    /// Device rank `dev`'s reservation counter of its matching log.
    #[inline(always)]
    pub fn match_reserve(&self, dev: u32) -> *mut u32 {
        (self.match_reserve as *mut u32).wrapping_add(dev as usize)
    }

    /// Device rank `dev`'s retirement counter of its matching log.
    #[inline(always)]
    pub fn match_retired(&self, dev: u32) -> *mut u32 {
        (self.match_retired as *mut u32).wrapping_add(dev as usize)
    }

    /// Device rank `dev`'s message log (`inbox` false) or inbox: its
    /// records, its reserved (published) and its retired counter.
    #[inline(always)]
    pub fn message_log(&self, dev: u32, inbox: bool) -> (*mut MessageRecord, *mut u32, *mut u32) {
        let (records, stride, counters) = if inbox {
            (self.inbox, MSG_LOG + 1, self.inbox_counters)
        } else {
            (self.messages, MSG_LOG, self.message_counters)
        };
        let records = (records as *mut MessageRecord).wrapping_add(dev as usize * stride);
        let reserved = (counters as *mut u32).wrapping_add(dev as usize);
        (
            records,
            reserved,
            reserved.wrapping_add(self.ranks as usize),
        )
    }

    /// Device rank `dev`'s express slot: its record, published and
    /// retired counters.
    #[inline(always)]
    pub fn express(&self, dev: u32) -> (*mut MessageRecord, *mut u32, *mut u32) {
        let (records, published, _) = self.message_log(dev, true);
        let published = published.wrapping_add(2 * self.ranks as usize);
        (
            records.wrapping_add(MSG_LOG),
            published,
            published.wrapping_add(self.ranks as usize),
        )
    }

    /// Device rank `dev`'s envelope.
    #[inline(always)]
    pub fn envelope(&self, dev: u32) -> *mut MessageRecord {
        (self.envelopes as *mut MessageRecord).wrapping_add(dev as usize)
    }

    /// Device rank `dev`'s envelope lists (pushed, taken over).
    #[inline(always)]
    pub fn message_lists(&self, dev: u32) -> [*mut u64; 2] {
        let at = (self.message_lists as *mut u64).wrapping_add(dev as usize);
        [at, at.wrapping_add(self.ranks as usize)]
    }

    /// Device rank `dev`'s [`Want`].
    #[inline(always)]
    pub fn want(&self, dev: u32) -> *mut Want {
        (self.wants as *mut Want).wrapping_add(dev as usize)
    }

    /// The peer-table entry of process `p`.
    #[inline(always)]
    pub fn peer(&self, p: u32) -> *const Peer {
        (self.peers as *const Peer).wrapping_add(p as usize)
    }

    /// The flag of [`leader_barrier`](Self::leader_barrier).
    #[inline(always)]
    pub fn leader_barrier(&self) -> *const u32 {
        self.leader_barrier as *const u32
    }

    /// The first error of the run.
    #[inline(always)]
    pub fn error(&self) -> *mut ErrorRecord {
        self.error as *mut ErrorRecord
    }

    /// The abort flag.
    #[inline(always)]
    pub fn abort(&self) -> *mut u32 {
        self.abort as *mut u32
    }

    /// The device-wide barrier's `(count, generation)` words.
    #[inline(always)]
    pub fn barrier(&self) -> (*mut u32, *mut u32) {
        let count = self.barrier as *mut u32;
        (count, count.wrapping_add(1))
    }
}
