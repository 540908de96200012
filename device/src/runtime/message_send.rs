//! How a sender places a message on its device: it reserves a record in
//! the receiver's log (one compare-and-swap, with the position it used
//! last as its guess) and publishes it, or, while the log is full or the
//! message long, publishes its envelope in the receiver's list. The same
//! reservation serves the peer logs of mapped GPUs (`message_peer`).

use super::message_lists::push_envelope;
use super::message_logs::{Log, CREDIT_KEY, CREDIT_POS, CREDIT_RETIRED, DCUDA_MESSAGE_STATE};
use super::message_small::Words;
use super::message_stamps as stamps;
use crate::abi::{MessageRecord, RankContext, MSG_LOG};
use crate::arch::{self, Scope};

/// A sent message's header, written into its record by the leader.
#[derive(Clone, Copy)]
pub(super) struct Header {
    pub context: u32,
    pub source: u32,
    pub tag: u32,
    pub bytes: u64,
    pub data: u64,
    pub sender: u32,
}

impl Header {
    /// The words a receiver's search tests, stamped
    /// ([`message_stamps`](super::message_stamps)).
    #[inline(always)]
    pub(super) fn stamped(&self) -> stamps::Stamped {
        let bytes = self.bytes.min(u32::MAX as u64) as u32;
        (self.context, self.source, self.tag, bytes)
    }

    /// Writes the header into `r` and publishes the record: at `pos` of
    /// device rank `dev`'s log (its sequence word, released; its stamped
    /// words with `small`, the payload if it is at most 16 bytes), or as
    /// an envelope pushed to `dev`'s list (`None`).
    ///
    /// # Safety
    /// `r` is this sender's reserved record or its envelope, unpublished.
    #[inline(always)]
    pub(super) unsafe fn publish(
        &self,
        r: *mut MessageRecord,
        pos: Option<u32>,
        (ctx, dev): (&RankContext, u32),
        small: Words,
    ) {
        // SAFETY: as the caller promises.
        unsafe {
            (*r).context = self.context;
            (*r).source = self.source;
            (*r).tag = self.tag;
            (*r).bytes = self.bytes;
            (*r).data = self.data;
            (*r).sender = self.sender;
            match pos {
                Some(pos) => {
                    let stamp = pos.wrapping_add(1);
                    stamps::stamp(r, stamp, self.stamped(), small);
                    arch::store_release(&raw mut (*r).seq, stamp, Scope::Gpu)
                }
                None => push_envelope(ctx, dev, r),
            }
        }
    }
}

/// A log a sender reserves records in: its counters and the scopes they
/// are shared at, its capacity, and the key of the sender's cached view
/// of it (device rank + 1 for a log of this device, world rank + 1 with
/// the top bit set for a peer log).
pub(super) struct Credit {
    pub reserved: (*mut u32, Scope),
    pub retired: (*mut u32, Scope),
    pub capacity: u32,
    pub key: u32,
}

/// Reserves a position in `dev`'s message log if it has room (leader
/// thread); `None` when full.
#[inline(always)]
pub(super) fn reserve(ctx: &RankContext, dev: u32) -> Option<u32> {
    let log = Log::of(ctx, dev, false);
    let credit = Credit {
        reserved: (log.reserved, Scope::Gpu),
        retired: (log.retired, Scope::Gpu),
        capacity: MSG_LOG as u32,
        key: dev + 1,
    };
    credit.reserve(1)
}

impl Credit {
    /// Reserves `span` consecutive positions if the log has room for them
    /// (leader thread); `None` when it has not. A sender that sends to the
    /// same log again tries the position after its last one at once, with
    /// the retired count it saw then (which only grows): one round trip,
    /// not two.
    #[inline(always)]
    pub(super) fn reserve(&self, span: u32) -> Option<u32> {
        let cached = DCUDA_MESSAGE_STATE.get(CREDIT_KEY) == self.key;
        let ((reserved, at), (retired_at, scope)) = (self.reserved, self.retired);
        // SAFETY: the receiver's counters.
        unsafe {
            let (mut pos, mut retired) = if cached {
                (
                    DCUDA_MESSAGE_STATE.get(CREDIT_POS),
                    DCUDA_MESSAGE_STATE.get(CREDIT_RETIRED),
                )
            } else {
                (
                    arch::load_relaxed(reserved, at),
                    arch::load_acquire(retired_at, scope),
                )
            };
            loop {
                if pos.wrapping_add(span).wrapping_sub(retired) > self.capacity {
                    retired = arch::load_acquire(retired_at, scope);
                    if pos.wrapping_add(span).wrapping_sub(retired) > self.capacity {
                        return None;
                    }
                }
                let next = pos.wrapping_add(span);
                let seen = arch::compare_exchange(reserved, pos, next, arch::Ordering::Relaxed, at);
                if seen == pos {
                    DCUDA_MESSAGE_STATE.set(CREDIT_KEY, self.key);
                    DCUDA_MESSAGE_STATE.set(CREDIT_POS, next);
                    DCUDA_MESSAGE_STATE.set(CREDIT_RETIRED, retired);
                    return Some(pos);
                }
                // Another sender came first: its position, and a fresh count.
                pos = seen;
                retired = arch::load_acquire(retired_at, scope);
            }
        }
    }
}
