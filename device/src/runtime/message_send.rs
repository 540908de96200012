//! How a sender places a message on its device: it reserves a record in
//! the receiver's log (one compare-and-swap, with the position it used
//! last as its guess) and publishes it, or, while the log is full or the
//! message long, publishes its envelope in the receiver's list. The same
//! reservation serves the peer logs of mapped GPUs (`message_peer`).
//!
//! After a message into a log of its device the sender reserves the next
//! position there at once ([`reserve_ahead`]): its next message to that
//! receiver takes it without a round trip to memory, while the
//! compare-and-swap's own wait overlaps the receiver's work. A position
//! reserved ahead holds the log's tail until used, so a sender gives it
//! back ([`give_back`]: a record that its receiver retires unseen) as soon
//! as it sends anywhere else, and when its rank ends.

use super::message_lists::push_envelope;
use super::message_logs::{
    Log, AHEAD_KEY, AHEAD_POS, CREDIT_KEY, CREDIT_POS, CREDIT_RETIRED, DCUDA_MESSAGE_STATE,
};
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
    /// Writes the header's fields into `r`.
    ///
    /// # Safety
    /// `r` is this sender's reserved record or its envelope, unpublished.
    #[inline(always)]
    unsafe fn fill(&self, r: *mut MessageRecord) {
        // SAFETY: as the caller promises.
        unsafe {
            (*r).context = self.context;
            (*r).source = self.source;
            (*r).tag = self.tag;
            (*r).bytes = self.bytes;
            (*r).data = self.data;
            (*r).sender = self.sender;
        }
    }

    /// Writes the header and stamped words of the record at `pos` of
    /// device rank `dev`'s log (`small`: the payload if it is at most 16
    /// bytes) and publishes it: its sequence word, released. On the way it
    /// reserves the sender's next position in that log ahead
    /// ([`reserve_ahead`]), so that the release's wait covers that round
    /// trip too (leader thread).
    ///
    /// # Safety
    /// `r` is this sender's reserved record at `pos`, unpublished.
    #[inline(always)]
    pub(super) unsafe fn publish(
        &self,
        r: *mut MessageRecord,
        pos: u32,
        (ctx, dev): (&RankContext, u32),
        small: Words,
    ) {
        let stamp = pos.wrapping_add(1);
        // SAFETY: as the caller promises.
        unsafe {
            self.fill(r);
            stamps::stamp(r, stamp, self.stamped(), small);
            let ahead = reserve_ahead(ctx, dev);
            arch::store_release(&raw mut (*r).seq, stamp, Scope::Gpu);
            if let Some(a) = ahead {
                a.keep();
            }
        }
    }

    /// The words a receiver's search tests, stamped
    /// ([`message_stamps`](super::message_stamps)).
    #[inline(always)]
    pub(super) fn stamped(&self) -> stamps::Stamped {
        let bytes = self.bytes.min(u32::MAX as u64) as u32;
        (self.context, self.source, self.tag, bytes)
    }

    /// Writes the header into this sender's envelope `r` and pushes it to
    /// device rank `dev`'s list.
    ///
    /// # Safety
    /// `r` is this sender's envelope, unpublished.
    #[inline(always)]
    pub(super) unsafe fn push(&self, r: *mut MessageRecord, (ctx, dev): (&RankContext, u32)) {
        // SAFETY: as the caller promises.
        unsafe {
            self.fill(r);
            push_envelope(ctx, dev, r)
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

/// The position for a message to device rank `dev` (leader thread): the
/// one reserved ahead after the last message to it, else a new one (after
/// giving back one reserved in another log); `None` while the log is full.
#[inline(always)]
pub(super) fn take(ctx: &RankContext, dev: u32) -> Option<u32> {
    if DCUDA_MESSAGE_STATE.get(AHEAD_KEY) == dev + 1 {
        DCUDA_MESSAGE_STATE.set(AHEAD_KEY, 0);
        return Some(DCUDA_MESSAGE_STATE.get(AHEAD_POS));
    }
    give_back(ctx);
    reserve(ctx, dev)
}

/// A compare-and-swap in flight for the position after this sender's
/// message in a log: its guess and what it found.
struct Ahead {
    key: u32,
    guess: u32,
    seen: u32,
}

/// Starts reserving, with one compare-and-swap, the position after the
/// one this sender just took in `dev`'s log (leader thread, between
/// writing its record and releasing it, so that the release's wait covers
/// the round trip): `None` if its cached view says the log is full.
/// [`Ahead::keep`] takes the result.
#[inline(always)]
fn reserve_ahead(ctx: &RankContext, dev: u32) -> Option<Ahead> {
    // `take` just used this log's cached view.
    let guess = DCUDA_MESSAGE_STATE.get(CREDIT_POS);
    let retired = DCUDA_MESSAGE_STATE.get(CREDIT_RETIRED);
    if guess.wrapping_add(1).wrapping_sub(retired) > MSG_LOG as u32 {
        return None;
    }
    let reserved = Log::of(ctx, dev, false).reserved;
    // SAFETY: the receiver's counter.
    let seen = unsafe {
        arch::compare_exchange(
            reserved,
            guess,
            guess.wrapping_add(1),
            arch::Ordering::Relaxed,
            Scope::Gpu,
        )
    };
    Some(Ahead {
        key: dev + 1,
        guess,
        seen,
    })
}

impl Ahead {
    /// Keeps the position if the compare-and-swap took it; else the
    /// cached view learns where the log is (no second try: another
    /// sender is there).
    #[inline(always)]
    fn keep(self) {
        if self.seen == self.guess {
            DCUDA_MESSAGE_STATE.set(AHEAD_POS, self.guess);
            DCUDA_MESSAGE_STATE.set(AHEAD_KEY, self.key);
            DCUDA_MESSAGE_STATE.set(CREDIT_POS, self.guess.wrapping_add(1));
        } else {
            DCUDA_MESSAGE_STATE.set(CREDIT_POS, self.seen);
        }
    }
}

/// Gives back the position reserved ahead, if any (leader thread): a
/// record stamped [`VOID`](stamps::VOID), which its receiver retires
/// unseen.
#[inline(always)]
pub(super) fn give_back(ctx: &RankContext) {
    let key = DCUDA_MESSAGE_STATE.get(AHEAD_KEY);
    if key == 0 {
        return;
    }
    DCUDA_MESSAGE_STATE.set(AHEAD_KEY, 0);
    let pos = DCUDA_MESSAGE_STATE.get(AHEAD_POS);
    let r = Log::of(ctx, key - 1, false).record(pos);
    let stamp = pos.wrapping_add(1);
    // SAFETY: the record is this sender's, reserved and unpublished.
    unsafe {
        stamps::stamp(r, stamp, (0, 0, 0, stamps::VOID), [0, 0]);
        arch::store_release(&raw mut (*r).seq, stamp, Scope::Gpu);
    }
}

/// Reserves a position in `dev`'s message log if it has room (leader
/// thread); `None` when full.
#[inline(always)]
fn reserve(ctx: &RankContext, dev: u32) -> Option<u32> {
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
