//! Messages to the ranks of mapped GPUs (the direct route): the sender
//! writes the message into the receiver's *peer log* over the mapping, as
//! a sender of the device writes into its message log, so that no host
//! carries it (`abi::peer_log` says where the logs are).
//!
//! A message of up to [`PEER_EAGER`] bytes takes [`peer_span`] consecutive
//! records of the receiver's peer log from the sender's process, reserved
//! with a compare-and-swap on a counter in the sender's own GPU (the senders
//! of one process share the log); the sender's block copies the payload
//! over the mapping, then its leader publishes the header with a
//! system-scope release. A longer message, or one that finds the log full
//! for a while, goes through the hosts (into the receiver's inbox); and
//! then so do all the sender's later messages to mapped GPUs until the
//! receivers have received every such one (each receive notifies the
//! sender with [`HOST_MESSAGE_TAG`]). So one sender's messages to one
//! receiver are all in its peer log or all older than those in it: a
//! receive that searches the peer log before the inbox keeps MPI's order.

use super::message_logs::{Found, Wanted, DCUDA_MESSAGE_STATE, HOST_SENT, PEER};
use super::message_send::{Credit, Header};
use super::message_small::{self as small, Words, SMALL};
use super::message_stamps::{self as stamps, View};
use super::notify::{init_consumed, try_consume};
use super::route::{process_index, Place};
use super::Runtime;
use crate::abi::{
    counter_index, peer_span, MessageRecord, PeerLogs, RankContext, Route, EAGER, HOST_MESSAGE_TAG,
    PEER_EAGER, PEER_LOG, PEER_LOGS_MAX,
};
use crate::arch::{self, Ordering, Scope};
use crate::block::Block;
use crate::memory::{DeviceCopy, DeviceSlice};

/// Times a sender looks again for room in a full peer log before its
/// message goes through the hosts: a receiver that drains its log frees
/// room within a few of them.
const ROOM_POLLS: u32 = 64;

// This rank's tail (retired count) of each of its peer logs.
crate::shared_array!(static DCUDA_PEER_TAILS: [u32; PEER_LOGS_MAX as usize]);

/// Bits of a found word's low part that name the record (the rest name
/// the peer log).
const SLOT_BITS: u32 = PEER_LOG.trailing_zeros();
const _: () = assert!(PEER_LOG.is_power_of_two() && PEER_LOGS_MAX < 1 << (29 - SLOT_BITS));

/// One peer log of a rank.
pub(super) struct PeerLog {
    records: *mut MessageRecord,
    retired: *mut u32,
}

impl PeerLog {
    /// Peer log `log` of rank `dev` of a process with `ranks` ranks whose
    /// allocation is at `base` (on this node: its ranks have as many peer
    /// logs as this process's).
    #[inline(always)]
    fn at(ctx: &RankContext, (base, ranks): (u64, u32), dev: u32, log: u32) -> PeerLog {
        let logs = PeerLogs {
            ranks,
            logs: ctx.peer_logs,
        };
        let (records, retired) = logs.log_at(base, dev, log);
        PeerLog { records, retired }
    }

    /// Peer log `log` of this device's rank `dev`.
    #[inline(always)]
    pub fn mine(ctx: &RankContext, dev: u32, log: u32) -> PeerLog {
        Self::at(ctx, (ctx.local_notifications, ctx.ranks), dev, log)
    }

    /// The record a found word's low bits name, and its log.
    #[inline(always)]
    pub fn found(ctx: &RankContext, dev: u32, low: u32) -> (PeerLog, u32) {
        (
            Self::mine(ctx, dev, low >> SLOT_BITS),
            low & (PEER_LOG as u32 - 1),
        )
    }

    #[inline(always)]
    pub fn record(&self, pos: u32) -> *mut MessageRecord {
        self.records.wrapping_add(pos as usize % PEER_LOG)
    }

    /// The three places the payload of a message of `bytes` bytes at `pos`
    /// lies in: its header's inline bytes, then whole records up to the
    /// log's end, then from its start: `(address, offset in the message,
    /// length)`.
    #[inline(always)]
    fn pieces(&self, pos: u32, bytes: usize) -> [(*mut u8, usize, usize); 3] {
        let head = bytes.min(EAGER);
        let rest = bytes - head;
        let next = (pos as usize + 1) % PEER_LOG;
        let to_end = (PEER_LOG - next) * core::mem::size_of::<MessageRecord>();
        let first = rest.min(to_end);
        // SAFETY (of the addresses' use): records of this log.
        let inline = unsafe { (&raw mut (*self.record(pos)).inline) as *mut u8 };
        [
            (inline, 0, head),
            (self.records.wrapping_add(next) as *mut u8, head, first),
            (self.records as *mut u8, head + first, rest - first),
        ]
    }
}

/// Loads this rank's peer log tails (leader thread, first message call).
#[inline(always)]
pub(super) fn start_tails(ctx: &RankContext, dev: u32) {
    for log in 0..ctx.peer_logs {
        // SAFETY: this rank's own counter; only its leader writes it.
        let tail =
            unsafe { arch::load_relaxed(PeerLog::mine(ctx, dev, log).retired, Scope::System) };
        DCUDA_PEER_TAILS.set(log as usize, tail);
    }
}

/// Whether every message this rank sent to mapped GPUs through the hosts
/// has been received (leader thread; its consumed counters are set up).
#[inline(always)]
fn host_messages_received(ctx: &RankContext, dev: u32) -> bool {
    let sent = DCUDA_MESSAGE_STATE.get(HOST_SENT);
    if sent == 0 {
        return true;
    }
    let got = match try_consume(ctx, dev, HOST_MESSAGE_TAG, sent) {
        Ok(_) => sent,
        Err(available) => match try_consume(ctx, dev, HOST_MESSAGE_TAG, available) {
            Ok(_) => available,
            Err(_) => 0,
        },
    };
    DCUDA_MESSAGE_STATE.set(HOST_SENT, sent - got);
    got == sent
}

/// Counts a message to a mapped GPU that went through the hosts (leader).
#[inline(always)]
pub(super) fn sent_through_hosts() {
    let sent = DCUDA_MESSAGE_STATE.get(HOST_SENT);
    DCUDA_MESSAGE_STATE.set(HOST_SENT, sent + 1);
}

/// The oldest published, unreceived message that `w` accepts in one of
/// device rank `dev`'s peer logs (leader thread). A search of a log stops
/// at a record not yet published (its sender is writing it, and what
/// follows may be its payload); on the way it retires the received
/// messages at the log's tail.
#[inline(always)]
pub(super) fn find(ctx: &RankContext, dev: u32, w: &Wanted) -> Result<Found, u32> {
    for log in 0..ctx.peer_logs {
        if let Some(found) = search(&PeerLog::mine(ctx, dev, log), log, w) {
            return Ok(found);
        }
    }
    Err(0)
}

/// [`find`] in peer log `index`.
#[inline(always)]
fn search(log: &PeerLog, index: u32, w: &Wanted) -> Option<Found> {
    let from = DCUDA_PEER_TAILS.get(index as usize);
    let (mut pos, mut tail, mut found) = (from, from, None);
    while pos.wrapping_sub(from) < PEER_LOG as u32 {
        let r = log.record(pos);
        // SAFETY: a record of this rank's own peer log (written by other
        // GPUs: system scope).
        let view = unsafe { stamps::view(r, pos.wrapping_add(1), Scope::System, None, w) };
        let at_tail = tail == pos;
        let (received, accepted, bytes, small) = match view {
            View::Hole => break,
            View::Received(bytes) => (true, false, bytes, [0, 0]),
            View::Message(accepted, bytes, small) => (false, accepted, bytes, small),
        };
        let span = peer_span(bytes as usize);
        pos = pos.wrapping_add(span);
        if received {
            tail = if at_tail { pos } else { tail };
            continue;
        }
        if accepted {
            let slot = pos.wrapping_sub(span) % PEER_LOG as u32;
            let word = PEER | index << SLOT_BITS | slot;
            found = Some(Found { word, bytes, small });
            break;
        }
    }
    if tail != from {
        // SAFETY: this rank's own counter; only its leader writes it.
        unsafe { arch::store_release(log.retired, tail, Scope::System) };
        DCUDA_PEER_TAILS.set(index as usize, tail);
    }
    found
}

/// Marks the message of `bytes` bytes a found word's low bits name
/// received, with its stamp (leader); the next search retires it. The
/// records its payload filled get their header words cleared first, so
/// that no payload is taken for a later record's header
/// ([`message_stamps`](super::message_stamps)).
#[inline(always)]
pub(super) fn consume(ctx: &RankContext, dev: u32, low: u32, bytes: u64) {
    let (log, slot) = PeerLog::found(ctx, dev, low);
    // The message is among the PEER_LOG positions from its log's tail.
    let tail = DCUDA_PEER_TAILS.get((low >> SLOT_BITS) as usize);
    let pos = tail.wrapping_add(slot.wrapping_sub(tail) % PEER_LOG as u32);
    // SAFETY: records of this rank's own peer log, published and not
    // retired.
    unsafe {
        for i in 1..peer_span(bytes as usize) {
            stamps::clear(log.record(pos.wrapping_add(i)));
        }
        let r = log.record(pos);
        arch::store_relaxed(&raw mut (*r).consumed, pos.wrapping_add(1), Scope::Gpu);
    }
}

/// Copies the `bytes` (past [`EAGER`]) of the message a found word's low
/// bits name to `dst` (every thread).
///
/// # Safety
/// The message is published and unreceived; `dst` holds `bytes` bytes.
#[inline(always)]
pub(super) unsafe fn copy_out(
    block: &Block,
    ctx: &RankContext,
    dev: u32,
    low: u32,
    dst: *mut u8,
    bytes: usize,
) {
    let (log, slot) = PeerLog::found(ctx, dev, low);
    for (at, offset, len) in log.pieces(slot, bytes) {
        if len > 0 {
            // SAFETY: as the caller promises; the pieces are the message's.
            unsafe { block.copy(dst.wrapping_add(offset), at, len) };
        }
    }
}

impl Runtime {
    /// Sends `buf` into the peer log of `place` (a rank of a mapped GPU)
    /// if it fits and the log has room; false when it must go through the
    /// hosts. `first`: this rank's first message call, until its state is
    /// set up here.
    #[inline(always)]
    pub(super) fn send_to_peer<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        place: Place,
        header: Header,
        buf: DeviceSlice<T>,
        first: &mut bool,
    ) -> bool {
        let bytes = buf.bytes();
        if bytes > PEER_EAGER {
            return false;
        }
        const FULL: u64 = u64::MAX;
        const SENT: u64 = u64::MAX - 1;
        let (ctx, me, span) = (*self.ctx(), block.id(), peer_span(bytes));
        // SAFETY: `place` is a rank of a process in the peer table.
        let peer = unsafe { *ctx.peer(process_index(&ctx, place.world)) };
        let logs = PeerLogs {
            ranks: peer.ranks,
            logs: ctx.peer_logs,
        };
        let Some(index) = logs.log_index(ctx.node_index, peer.node_index) else {
            return false;
        };
        let log = PeerLog::at(&ctx, (peer.notifications, peer.ranks), place.dev, index);
        let reserved = (ctx.peer_reserved as *mut u32).wrapping_add(place.world as usize);
        let credit = Credit {
            reserved: (reserved, Scope::Gpu),
            retired: (log.retired, Scope::System),
            capacity: PEER_LOG as u32,
            key: (place.world + 1) | 1 << 31,
        };
        let setup = self.counters.first_use();
        let first = core::mem::take(first);
        let src = buf.as_ptr() as *const u8;
        // Every thread's writes to `buf` precede the copy.
        block.sync();
        let pos = block.single(|_| {
            if first {
                super::message_logs::start(&ctx, me);
            }
            if setup {
                init_consumed(ctx.notification_start);
            }
            if !host_messages_received(&ctx, me) {
                return FULL;
            }
            // SAFETY: `buf` holds `bytes` bytes; loaded before the
            // reservation, so that they travel together.
            let words = (bytes <= SMALL).then(|| unsafe { small::load(src, bytes) });
            let Some(pos) = (0..ROOM_POLLS).find_map(|_| credit.reserve(span)) else {
                return FULL;
            };
            let Some(words) = words else {
                return pos as u64;
            };
            // SAFETY: the records are ours until published.
            unsafe { publish(log.record(pos), &header, pos, (span, words)) };
            SENT
        });
        match pos {
            FULL => return false,
            SENT => return true,
            _ => {}
        }
        let pos = pos as u32;
        for (at, offset, len) in log.pieces(pos, bytes) {
            if len > 0 {
                // SAFETY: the reserved records, ours until published.
                unsafe { block.copy(at, src.wrapping_add(offset), len) };
            }
        }
        block.sync(); // Every thread's copy precedes the leader's release.
                      // SAFETY: as above.
        block.leader(|_| unsafe { publish(log.record(pos), &header, pos, (span, [0, 0])) });
        true
    }

    /// After receiving a message from another process through the hosts:
    /// if its sender (rank `source` of `comm`'s world rank `world`) is on a
    /// mapped GPU, tells it the message was received (leader thread).
    #[inline(always)]
    pub(super) fn acknowledge_host_message(&self, world: u32) {
        let ctx = self.ctx();
        // SAFETY: `world` is a rank of a process in the peer table.
        let peer = unsafe { *ctx.peer(process_index(ctx, world)) };
        if peer.route() != Route::Direct {
            return;
        }
        let at = counter_index(world - peer.first, HOST_MESSAGE_TAG);
        let counter = (peer.notifications as *mut u32).wrapping_add(at);
        // SAFETY: the sender's counter, mapped here.
        unsafe { arch::add(counter, 1, Ordering::Release, Scope::System) };
    }
}

/// Writes the header into the peer log record `r` at `pos` and publishes
/// it: its stamped words (with `small`, the payload if it is at most 16
/// bytes), then the sequence word, with a system-scope release.
///
/// # Safety
/// `r` is the sender's reserved record, unpublished.
#[inline(always)]
unsafe fn publish(r: *mut MessageRecord, h: &Header, pos: u32, (span, small): (u32, Words)) {
    let stamp = pos.wrapping_add(1);
    // SAFETY: as the caller promises.
    unsafe {
        (*r).context = h.context;
        (*r).source = h.source;
        (*r).tag = h.tag;
        (*r).bytes = h.bytes;
        (*r).sender = u32::MAX;
        (*r).span = span;
        stamps::stamp(r, stamp, h.stamped(), small);
        arch::store_release(&raw mut (*r).seq, stamp, Scope::System);
    }
}
