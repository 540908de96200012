//! Messages to the ranks of mapped GPUs (the direct route): the sender
//! writes the message into the receiver's *peer log* over the mapping, as
//! a sender of the device writes into its message log, so that no host
//! carries it (`abi::peer_log` says where the logs are).
//!
//! A message of up to [`PEER_EAGER`] bytes takes [`peer_span`] consecutive
//! records, reserved with one system-scope compare-and-swap; the sender's
//! block copies the payload, then its leader publishes the header with a
//! system-scope release. A longer message, or one that finds the log full
//! for a while, goes through the hosts (into the receiver's inbox); and
//! then so do all the sender's later messages to mapped GPUs until the
//! receivers have received every such one (each receive notifies the
//! sender with [`HOST_MESSAGE_TAG`]). So one sender's messages to one
//! receiver are all in its peer log or all older than those in it: a
//! receive that searches the peer log before the inbox keeps MPI's order.

use super::message_logs::{Found, Wanted, DCUDA_MESSAGE_STATE, HOST_SENT, PEER, PEER_TAIL};
use super::message_send::{Credit, Header};
use super::message_small::{self as small, SMALL};
use super::notify::{init_consumed, try_consume};
use super::route::{process_index, Place};
use super::Runtime;
use crate::abi::{
    counter_index, peer_log_at, peer_span, MessageRecord, Peer, RankContext, Route, EAGER,
    HOST_MESSAGE_TAG, PEER_EAGER, PEER_LOG,
};
use crate::arch::{self, Ordering, Scope};
use crate::block::Block;
use crate::memory::{DeviceCopy, DeviceSlice};

/// Times a sender looks again for room in a full peer log before its
/// message goes through the hosts: a receiver that drains its log frees
/// room within a few of them.
const ROOM_POLLS: u32 = 64;

/// A rank's peer log.
pub(super) struct PeerLog {
    records: *mut MessageRecord,
    reserved: *mut u32,
    retired: *mut u32,
}

impl PeerLog {
    /// This device's rank `dev`'s peer log.
    #[inline(always)]
    pub fn mine(ctx: &RankContext, dev: u32) -> PeerLog {
        let (records, reserved, retired) = peer_log_at(ctx.local_notifications, ctx.ranks, dev);
        PeerLog {
            records,
            reserved,
            retired,
        }
    }

    /// The peer log of rank `dev` of the mapped process `peer`.
    #[inline(always)]
    fn of(peer: &Peer, dev: u32) -> PeerLog {
        let (records, reserved, retired) = peer_log_at(peer.notifications, peer.ranks, dev);
        PeerLog {
            records,
            reserved,
            retired,
        }
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

/// This rank's peer log tail, for its message state (leader thread).
#[inline(always)]
pub(super) fn start_tail(ctx: &RankContext, dev: u32) -> u32 {
    // SAFETY: this rank's own counter; only its leader writes it.
    unsafe { arch::load_relaxed(PeerLog::mine(ctx, dev).retired, Scope::System) }
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

/// The oldest published, unreceived message of device rank `dev`'s peer
/// log that `w` accepts (leader thread); `Err` carries how many records
/// are in use. The search stops at a record reserved but not yet
/// published (its sender is writing it, and what follows may be its
/// payload); on the way it retires the received messages at the tail.
#[inline(always)]
pub(super) fn find(ctx: &RankContext, dev: u32, w: &Wanted) -> Result<Found, u32> {
    let log = PeerLog::mine(ctx, dev);
    let from = DCUDA_MESSAGE_STATE.get(PEER_TAIL);
    // SAFETY: this rank's own peer log; records are read once their
    // sequence word is acquired.
    unsafe {
        let end = arch::load_acquire(log.reserved, Scope::System);
        let (mut pos, mut tail, mut found) = (from, from, None);
        while pos != end {
            let r = log.record(pos);
            if arch::load_acquire(&raw const (*r).seq, Scope::System) != pos.wrapping_add(1) {
                break;
            }
            let span = (*r).span.max(1);
            let at_tail = tail == pos;
            pos = pos.wrapping_add(span);
            if (&raw const (*r).consumed).read_volatile() != 0 {
                tail = if at_tail { pos } else { tail };
                continue;
            }
            if let (true, bytes, small) = w.accepts(r) {
                let word = PEER | (pos.wrapping_sub(span) % PEER_LOG as u32);
                found = Some(Found { word, bytes, small });
                break;
            }
        }
        if tail != from {
            arch::store_release(log.retired, tail, Scope::System);
            DCUDA_MESSAGE_STATE.set(PEER_TAIL, tail);
        }
        found.ok_or(end.wrapping_sub(tail))
    }
}

/// Marks the message at `slot` of this rank's peer log received (leader);
/// the next search retires it.
#[inline(always)]
pub(super) fn consume(ctx: &RankContext, dev: u32, slot: u32) {
    // SAFETY: a published record of this rank's own peer log.
    unsafe { (*PeerLog::mine(ctx, dev).record(slot)).consumed = 1 };
}

/// Copies the `bytes` (past [`EAGER`]) of the message at `slot` of this
/// rank's peer log to `dst` (every thread).
///
/// # Safety
/// The message is published and unreceived; `dst` holds `bytes` bytes.
#[inline(always)]
pub(super) unsafe fn copy_out(
    block: &Block,
    ctx: &RankContext,
    dev: u32,
    slot: u32,
    dst: *mut u8,
    bytes: usize,
) {
    for (at, offset, len) in PeerLog::mine(ctx, dev).pieces(slot, bytes) {
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
        let log = PeerLog::of(&peer, place.dev);
        let credit = Credit {
            reserved: log.reserved,
            retired: log.retired,
            capacity: PEER_LOG as u32,
            scope: Scope::System,
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
            let Some([lo, hi]) = words else {
                return pos as u64;
            };
            let r = log.record(pos);
            // SAFETY: the records are ours until published.
            unsafe {
                (*r).inline[0] = lo;
                (*r).inline[1] = hi;
                publish(r, &header, pos, span);
            }
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
        block.leader(|_| unsafe { publish(log.record(pos), &header, pos, span) });
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
/// it: the sequence word last, with a system-scope release.
///
/// # Safety
/// `r` is the sender's reserved record, unpublished.
#[inline(always)]
unsafe fn publish(r: *mut MessageRecord, h: &Header, pos: u32, span: u32) {
    // SAFETY: as the caller promises.
    unsafe {
        (*r).context = h.context;
        (*r).source = h.source;
        (*r).tag = h.tag;
        (*r).bytes = h.bytes;
        (*r).sender = u32::MAX;
        (*r).consumed = 0;
        (*r).span = span;
        arch::store_release(&raw mut (*r).seq, pos.wrapping_add(1), Scope::System);
    }
}
