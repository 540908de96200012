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
//!
//! This module is the logs and the receiver's side;
//! [`message_peer_send`](super::message_peer_send) is the sender's.

use super::message_logs::{Found, Wanted, PEER};
use super::message_stamps::{self as stamps, View};
use crate::abi::{peer_span, MessageRecord, PeerLogs, RankContext, EAGER, PEER_LOG, PEER_LOGS_MAX};
use crate::arch::{self, Scope};
use crate::block::Block;

// This rank's tail (retired count) of each of its peer logs.
crate::shared_array!(static DCUDA_PEER_TAILS: [u32; PEER_LOGS_MAX as usize]);

/// Bits of a found word's low part that name the record (the rest name
/// the peer log).
const SLOT_BITS: u32 = PEER_LOG.trailing_zeros();
const _: () = assert!(PEER_LOG.is_power_of_two() && PEER_LOGS_MAX < 1 << (29 - SLOT_BITS));

/// One peer log of a rank.
pub(super) struct PeerLog {
    records: *mut MessageRecord,
    pub retired: *mut u32,
}

impl PeerLog {
    /// Peer log `log` of rank `dev` of a process with `ranks` ranks whose
    /// allocation is at `base` (on this node: its ranks have as many peer
    /// logs as this process's).
    #[inline(always)]
    pub fn at(ctx: &RankContext, (base, ranks): (u64, u32), dev: u32, log: u32) -> PeerLog {
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
    pub fn pieces(&self, pos: u32, bytes: usize) -> [(*mut u8, usize, usize); 3] {
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

/// The oldest published, unreceived message that `w` accepts in one of
/// device rank `dev`'s peer logs (leader thread). A search of a log stops
/// at a record not yet published (its sender is writing it, and what
/// follows may be its payload); on the way it retires the received
/// messages at the log's tail.
#[inline(always)]
pub(super) fn find(ctx: &RankContext, dev: u32, w: &Wanted) -> Result<Found, u32> {
    for log in 0..ctx.peer_logs {
        let found = find_in(ctx, dev, w, log);
        if found.is_ok() {
            return found;
        }
    }
    Err(0)
}

/// [`find`] in peer log `log` only: the one a receive from a rank of a
/// mapped GPU looks in.
#[inline(always)]
pub(super) fn find_in(ctx: &RankContext, dev: u32, w: &Wanted, log: u32) -> Result<Found, u32> {
    search(&PeerLog::mine(ctx, dev, log), log, w).ok_or(0)
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
