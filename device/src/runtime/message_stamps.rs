//! Record headers that a receiver reads in one batch of loads.
//!
//! A search used to acquire a record's sequence word and then load its
//! header: two round trips to memory, one after the other. Now the sender
//! also writes what a search tests into the record's `stamped` words, each
//! with the record's stamp (its position + 1, the value of its sequence
//! word) in the upper half, before it releases the sequence word. The
//! receiver loads them relaxed and the sequence word's acquire last, so
//! that all travel together. A word with another stamp is older than the
//! record: the search looks again, now that the acquire orders its loads.
//!
//! A stale word carries this stamp only if something other than this
//! record's header put it there. Message logs hold nothing else in those
//! words. A peer log's records also carry long messages' payloads, so its
//! receiver clears the header words of the records a payload filled
//! before it retires them (`clear`). Its own clearing is then the oldest
//! value it can read there.

use super::matching::Source;
use super::message_logs::Wanted;
use super::message_small::Words;
use crate::abi::MessageRecord;
use crate::arch::{self, Scope};

/// The header a sender stamps: context, source, tag, payload bytes (below
/// `u32::MAX`: message and peer logs hold short messages only).
pub(super) type Stamped = (u32, u32, u32, u32);

/// The bytes of a record that holds no message (a position reserved ahead
/// and given back): its receiver retires it unseen.
pub(super) const VOID: u32 = u32::MAX;

/// Writes `header` and the small payload `words` (bytes past the payload
/// are zero) into `r`'s stamped words with `stamp`.
///
/// # Safety
/// `r` is the sender's reserved record, unpublished.
#[inline(always)]
pub(super) unsafe fn stamp(r: *mut MessageRecord, stamp: u32, header: Stamped, [lo, hi]: Words) {
    let (context, source, tag, bytes) = header;
    let values = [context, source, tag, bytes];
    let payload = [lo as u32, (lo >> 32) as u32, hi as u32, (hi >> 32) as u32];
    let s = (stamp as u64) << 32;
    // SAFETY: as the caller promises.
    unsafe {
        let w = &raw mut (*r).stamped;
        for (i, v) in values.into_iter().chain(payload).enumerate() {
            (*w)[i] = s | v as u64;
        }
    }
}

/// Clears the header words of `r`, a record a long message's payload
/// filled (receiver, before it retires the record).
///
/// # Safety
/// `r` is a record of this rank's peer log, not yet retired.
#[inline(always)]
pub(super) unsafe fn clear(r: *mut MessageRecord) {
    // SAFETY: as the caller promises.
    unsafe {
        (*r).seq = 0;
        (*r).consumed = 0;
        (*r).stamped = [0; 8];
    }
}

/// A record's sequence word, received mark and stamped words, as one
/// batch of loads saw them.
#[derive(Clone, Copy)]
pub(super) struct Peek {
    pub seq: u32,
    consumed: u32,
    words: [u64; 8],
}

/// What a peek at the record with stamp `stamp` shows.
pub(super) enum Seen {
    /// Not published (its sender is writing it, or nobody has).
    Unpublished,
    /// Published, but some stamped word was loaded before it was: look
    /// again.
    Stale,
    /// Published and received: its payload bytes.
    Received(u64),
    /// Published, not received: whether the search accepts it, its
    /// payload bytes and its first payload words.
    Message(bool, u64, Words),
}

/// Loads `r`'s stamped words and received mark relaxed, then its sequence
/// word with an acquire (`scope`: of the record's writers), so that the
/// loads travel together.
///
/// # Safety
/// `r` is a record of one of this rank's logs.
#[inline(always)]
pub(super) unsafe fn peek(r: *const MessageRecord, scope: Scope) -> Peek {
    // SAFETY: as the caller promises.
    unsafe {
        let w = &raw const (*r).stamped as *const u64;
        let mut words = [0u64; 8];
        for (i, word) in words.iter_mut().enumerate() {
            *word = arch::load_relaxed(w.add(i), scope);
        }
        let consumed = arch::load_relaxed(&raw const (*r).consumed, Scope::Gpu);
        let seq = arch::load_acquire(&raw const (*r).seq, scope);
        Peek {
            seq,
            consumed,
            words,
        }
    }
}

impl Peek {
    /// What it shows of the record with stamp `stamp`, for a search for
    /// `w`. Every word is tested before any decision, so that no test
    /// waits on another.
    #[inline(always)]
    pub fn seen(&self, stamp: u32, w: &Wanted) -> Seen {
        if self.seq != stamp {
            return Seen::Unpublished;
        }
        let mut fresh = true;
        let mut v = [0u32; 8];
        for (i, word) in self.words.iter().enumerate() {
            fresh &= (word >> 32) as u32 == stamp;
            v[i] = *word as u32;
        }
        if !fresh {
            return Seen::Stale;
        }
        if self.consumed == stamp {
            return Seen::Received(v[3] as u64);
        }
        if v[3] == VOID {
            return Seen::Received(0);
        }
        let source_ok = match w.source {
            Source::Any => true,
            Source::Rank(s) => v[1] == s,
        };
        let ok = (v[0] == w.context) & source_ok & w.tag.is_none_or(|t| t == v[2]);
        let small = [
            v[4] as u64 | (v[5] as u64) << 32,
            v[6] as u64 | (v[7] as u64) << 32,
        ];
        Seen::Message(ok, v[3] as u64, small)
    }
}

/// What a search finds at a record: a hole (not published), a received
/// message (its bytes), or one it accepts or not with its bytes and first
/// words.
pub(super) enum View {
    Hole,
    Received(u64),
    Message(bool, u64, Words),
}

/// What a search for `w` finds at record `r` with stamp `stamp` of one of
/// this rank's logs (written at `scope`), from `given` if already peeked.
///
/// # Safety
/// `r` is a record of one of this rank's message or peer logs.
#[inline(always)]
pub(super) unsafe fn view(
    r: *const MessageRecord,
    stamp: u32,
    scope: Scope,
    given: Option<Peek>,
    w: &Wanted,
) -> View {
    // SAFETY: as the caller promises.
    let first = given.unwrap_or_else(|| unsafe { peek(r, scope) });
    let seen = match first.seen(stamp, w) {
        // Loaded after the acquire of the sequence word that matched: the
        // words are the record's now.
        // SAFETY: as above.
        Seen::Stale => unsafe { peek(r, scope) }.seen(stamp, w),
        seen => seen,
    };
    match seen {
        Seen::Message(ok, bytes, small) => View::Message(ok, bytes, small),
        Seen::Received(bytes) => View::Received(bytes),
        Seen::Unpublished | Seen::Stale => View::Hole,
    }
}
