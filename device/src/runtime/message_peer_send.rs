//! The sender's side of the direct route
//! ([`message_peer`](super::message_peer) says how it works): a message
//! into a mapped GPU's peer log, and the bookkeeping of the messages to
//! mapped GPUs that went through the hosts.
//!
//! An eager message of at most [`SMALL`] bytes, the common case, has a path
//! of its own out of line ([`Runtime::send_small_to_peer`]): its
//! instructions lie together, so that the instruction cache does not miss
//! on every branch over the other cases' code (`message_receive` says
//! more).

use super::message_logs::{DCUDA_MESSAGE_STATE, HOST_SENT};
use super::message_peer::PeerLog;
use super::message_send::{give_back, Credit, Header};
use super::message_small::{self as small, Words, SMALL};
use super::message_stamps as stamps;
use super::notify::{init_consumed, try_consume};
use super::route::{process_index, Place};
use super::Runtime;
use crate::abi::{
    counter_index, peer_span, MessageRecord, PeerLogs, RankContext, Route, HOST_MESSAGE_TAG,
    PEER_EAGER, PEER_LOG,
};
use crate::arch::{self, Ordering, Scope};
use crate::block::Block;
use crate::memory::{DeviceCopy, DeviceSlice};

/// Times a sender looks again for room in a full peer log before its
/// message goes through the hosts: a receiver that drains its log frees
/// room within a few of them.
const ROOM_POLLS: u32 = 64;

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

impl Runtime {
    /// [`send_to_peer`](Self::send_to_peer) for a message of at most
    /// [`SMALL`] bytes after this rank's first message call, when no
    /// message of this rank to a mapped GPU is still on its way through the
    /// hosts and the log has room at once (the block's barrier is done);
    /// false when it sent nothing and the general path must. Out of line,
    /// so that its instructions lie together.
    #[inline(never)]
    pub(super) fn send_small_to_peer(
        &self,
        block: &mut Block,
        place: Place,
        header: Header,
        (src, bytes): (*const u8, usize),
    ) -> bool {
        let ctx = self.ctx();
        block.single(|_| {
            if DCUDA_MESSAGE_STATE.get(HOST_SENT) != 0 {
                return 0;
            }
            // A position reserved ahead in a log of this device goes back
            // before a message elsewhere.
            give_back(ctx);
            // SAFETY: `src` holds `bytes` bytes; loaded before the
            // reservation, so that they travel together.
            let words = unsafe { small::load(src, bytes) };
            let Some((log, credit)) = peer_log(ctx, place) else {
                return 0;
            };
            let Some(pos) = credit.reserve(1) else {
                return 0;
            };
            // SAFETY: the record is ours until published.
            unsafe { publish(log.record(pos), &header, pos, (1, words)) };
            1u32
        }) == 1
    }

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
        let Some((log, credit)) = peer_log(&ctx, place) else {
            return false;
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
        // Every thread's copy precedes the leader's release.
        block.sync();
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

/// The peer log of `place` (a rank of a mapped GPU) that this process
/// writes into, and its reservation; `None` past the logs a rank has.
#[inline(always)]
fn peer_log(ctx: &RankContext, place: Place) -> Option<(PeerLog, Credit)> {
    // SAFETY: `place` is a rank of a process in the peer table.
    let peer = unsafe { *ctx.peer(process_index(ctx, place.world)) };
    let logs = PeerLogs {
        ranks: peer.ranks,
        logs: ctx.peer_logs,
    };
    let index = logs.log_index(ctx.node_index, peer.node_index)?;
    let log = PeerLog::at(ctx, (peer.notifications, peer.ranks), place.dev, index);
    let reserved = (ctx.peer_reserved as *mut u32).wrapping_add(place.world as usize);
    let credit = Credit {
        reserved: (reserved, Scope::Gpu),
        retired: (log.retired, Scope::System),
        capacity: PEER_LOG as u32,
        key: (place.world + 1) | 1 << 31,
    };
    Some((log, credit))
}
