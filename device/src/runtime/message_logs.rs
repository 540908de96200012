//! Where a rank's unreceived messages wait, and how a receive finds the
//! oldest one it accepts (leader thread):
//!
//! * the *message log*: eager messages from ranks of this device, in the
//!   order their senders reserved positions;
//! * the *envelope list* ([`message_lists`](super::message_lists)):
//!   senders of this device that wait in `send`, one envelope each (a long
//!   message, or any message while the log is full). A sender with an
//!   envelope in the list sends nothing else, so its older messages are
//!   all in the log: the log is searched first;
//! * the *inbox* and the *express slot*
//!   ([`message_inbox`](super::message_inbox)): messages from other
//!   processes, written by the host in arrival order.
//!
//! A search that finds nothing costs one round trip to memory: the list
//! heads, the log's end and the sequence word of its oldest record are
//! loaded together, from the log's tail that this rank keeps in shared
//! memory (only its leader retires records).

use super::message_inbox::find_remote;
use super::message_lists::{find_envelope, list_heads, take_envelopes};
pub(super) use super::message_match::{Found, Origin, Wanted};
use super::message_peer;
use super::message_small::Words;
use super::message_stamps::{self as stamps, Peek, View};
use crate::abi::{MessageRecord, RankContext, MSG_LOG};
use crate::arch::{self, Scope};

// This rank's message state, kept by its leader: its log tail (its
// retired count); a sender's cached view of the last log it reserved in:
// its key (0: none; see `Credit`), the next position, and the retired
// count it saw there; how many of its messages to mapped GPUs went
// through the hosts; the position it reserved ahead in a log of this
// device: the log's key (0: none) and the position; and whether it posted
// a want for the host (`message_inbox`).
crate::shared_array!(pub(super) static DCUDA_MESSAGE_STATE: [u32; 8]);
const TAIL: usize = 0;
pub(super) const CREDIT_KEY: usize = 1;
pub(super) const CREDIT_POS: usize = 2;
pub(super) const CREDIT_RETIRED: usize = 3;
pub(super) const HOST_SENT: usize = 4;
pub(super) const AHEAD_KEY: usize = 5;
pub(super) const AHEAD_POS: usize = 6;
pub(super) const WANT_POSTED: usize = 7;

/// Which store a found message is in (high bits of a found word; the low
/// bits are the slot, or the sender's device rank for an envelope).
pub(super) const LOG: u32 = 0;
pub(super) const INBOX: u32 = 1 << 29;
pub(super) const EXPRESS: u32 = 2 << 29;
pub(super) const ENVELOPE: u32 = 3 << 29;
pub(super) const PEER: u32 = 4 << 29;
pub(super) const KIND: u32 = 7 << 29;

/// Whether this rank's message state is set up (on its first send or
/// receive; the leader thread sets and later reads it, so no barrier).
#[derive(Default)]
pub(crate) struct MessageState {
    ready: bool,
}

impl MessageState {
    /// True on the first message call of this rank.
    #[inline(always)]
    pub(super) fn first_use(&mut self) -> bool {
        !core::mem::replace(&mut self.ready, true)
    }

    /// Whether this rank made a message call.
    #[inline(always)]
    pub(super) fn used(&self) -> bool {
        self.ready
    }
}

/// Sets up device rank `dev`'s message state (leader thread, first use).
#[inline(always)]
pub(super) fn start(ctx: &RankContext, dev: u32) {
    let log = Log::of(ctx, dev, false);
    // SAFETY: this rank's own counter; only its leader writes it.
    let tail = unsafe { arch::load_relaxed(log.retired, Scope::Gpu) };
    DCUDA_MESSAGE_STATE.set(TAIL, tail);
    DCUDA_MESSAGE_STATE.set(CREDIT_KEY, 0);
    DCUDA_MESSAGE_STATE.set(HOST_SENT, 0);
    DCUDA_MESSAGE_STATE.set(AHEAD_KEY, 0);
    DCUDA_MESSAGE_STATE.set(WANT_POSTED, 0);
    message_peer::start_tails(ctx, dev);
}

/// A log of records: the message log or the inbox.
pub(super) struct Log {
    pub records: *mut MessageRecord,
    pub reserved: *mut u32,
    pub retired: *mut u32,
    inbox: bool,
}

impl Log {
    #[inline(always)]
    pub fn of(ctx: &RankContext, dev: u32, inbox: bool) -> Log {
        let (records, reserved, retired) = ctx.message_log(dev, inbox);
        Log {
            records,
            reserved,
            retired,
            inbox,
        }
    }

    /// The host writes the inbox: it is read and written at system scope.
    #[inline(always)]
    fn scope(&self) -> Scope {
        if self.inbox {
            Scope::System
        } else {
            Scope::Gpu
        }
    }

    #[inline(always)]
    pub fn record(&self, pos: u32) -> *mut MessageRecord {
        self.records.wrapping_add(pos as usize % MSG_LOG)
    }

    /// What a search for `w` finds at position `pos` (from `given` if
    /// already peeked). The message log's headers are stamped
    /// ([`message_stamps`](super::message_stamps)); the inbox's, written
    /// by the host, are loaded after its sequence word's acquire.
    #[inline(always)]
    fn view(&self, pos: u32, given: Option<Peek>, w: &Wanted) -> View {
        let (r, stamp) = (self.record(pos), pos.wrapping_add(1));
        if !self.inbox {
            // SAFETY: a record of this rank's message log.
            return unsafe { stamps::view(r, stamp, Scope::Gpu, given, w) };
        }
        // SAFETY: a record of this rank's inbox.
        if unsafe { arch::load_acquire(&raw const (*r).seq, Scope::System) } != stamp {
            return View::Hole;
        }
        match look(r, w) {
            (true, (_, bytes, _)) => View::Received(bytes),
            (false, (accepted, bytes, small)) => View::Message(accepted, bytes, small),
        }
    }

    /// The oldest published, unreceived record of positions `from..end`
    /// (`from` the tail, `tail` its record if already peeked) that `w`
    /// accepts; `Err` carries how many records are in
    /// use. On the way it retires the received records at the tail,
    /// freeing room for senders: a receive only marks its record, so the
    /// retiring is done while the next receive waits, off a message's path.
    #[inline(always)]
    pub fn search(
        &self,
        w: &Wanted,
        from: u32,
        end: u32,
        given: Option<Peek>,
    ) -> Result<Found, u32> {
        debug_assert!(
            end.wrapping_sub(from) as usize <= MSG_LOG,
            "log {from}..{end}"
        );
        let (mut pos, mut tail, mut at_tail) = (from, from, true);
        let (mut found, mut hole) = (None, None);
        while pos != end {
            let peeked = given.filter(|_| pos == from);
            let view = self.view(pos, peeked, w);
            pos = pos.wrapping_add(1);
            let (accepted, bytes, small) = match view {
                // A record reserved but not written yet is skipped, not
                // waited for: its sender is inside that send, and the
                // records after it must be seen before the envelope list.
                View::Hole => {
                    at_tail = false;
                    hole = hole.or(Some(pos.wrapping_sub(1)));
                    continue;
                }
                View::Received(_) => {
                    tail = if at_tail { pos } else { tail };
                    continue;
                }
                View::Message(accepted, bytes, small) => (accepted, bytes, small),
            };
            at_tail = false;
            if accepted {
                let word = pos.wrapping_sub(1) % MSG_LOG as u32;
                found = Some(Found { word, bytes, small });
                // A skipped record may hold an older message of the same
                // sender, published since: look again, now that this
                // record's release is acquired.
                if let Some(h) = hole {
                    found = self.recheck(w, h, pos.wrapping_sub(1)).or(found);
                }
                break;
            }
        }
        if tail != from {
            // SAFETY: this rank's own counter; only its leader writes it.
            unsafe { arch::store_release(self.retired, tail, self.scope()) };
            if !self.inbox {
                DCUDA_MESSAGE_STATE.set(TAIL, tail);
            }
        }
        found.ok_or(end.wrapping_sub(tail))
    }

    /// The oldest published, unreceived record of positions `from..to`
    /// that `w` accepts, all loaded afresh.
    #[inline(always)]
    fn recheck(&self, w: &Wanted, mut from: u32, to: u32) -> Option<Found> {
        while from != to {
            let pos = from;
            from = from.wrapping_add(1);
            if let View::Message(true, bytes, small) = self.view(pos, None, w) {
                let word = pos % MSG_LOG as u32;
                return Some(Found { word, bytes, small });
            }
        }
        None
    }

    /// The log's search from its counters in memory (the inbox's).
    #[inline(always)]
    pub fn search_all(&self, w: &Wanted) -> Result<Found, u32> {
        // SAFETY: this rank's own counters.
        let (from, end) = unsafe {
            (
                arch::load_relaxed(self.retired, self.scope()),
                arch::load_acquire(self.reserved, self.scope()),
            )
        };
        self.search(w, from, end, None)
    }

    /// Marks the record in `slot` received (in the message log with its
    /// stamp, so that an older mark is no mark); the next search retires
    /// it.
    #[inline(always)]
    pub fn consume(&self, slot: u32) {
        let mark = if self.inbox {
            1
        } else {
            // The record is among the MSG_LOG positions from the tail.
            let tail = DCUDA_MESSAGE_STATE.get(TAIL);
            let pos = tail.wrapping_add(slot.wrapping_sub(tail) % MSG_LOG as u32);
            pos.wrapping_add(1)
        };
        let r = self.records.wrapping_add(slot as usize);
        // SAFETY: this rank's own log; the record was found published.
        unsafe { arch::store_relaxed(&raw mut (*r).consumed, mark, self.scope()) };
    }
}

/// A published inbox record's header in one batch of loads: whether it
/// was received, and what [`Wanted::accepts`] says of it (leader thread,
/// after acquiring its sequence word; only the leader writes `consumed`).
#[inline(always)]
fn look(r: *const MessageRecord, w: &Wanted) -> (bool, (bool, u64, Words)) {
    // SAFETY: a record of this rank's log, published.
    unsafe {
        (
            (&raw const (*r).consumed).read_volatile() != 0,
            w.accepts(r),
        )
    }
}

/// The record a found word names.
#[inline(always)]
pub(super) fn record_of(ctx: &RankContext, dev: u32, found: u32) -> *mut MessageRecord {
    let low = found & !KIND;
    match found & KIND {
        LOG => Log::of(ctx, dev, false).records.wrapping_add(low as usize),
        INBOX => Log::of(ctx, dev, true).records.wrapping_add(low as usize),
        EXPRESS => ctx.express(dev).0,
        PEER => {
            let (log, slot) = message_peer::PeerLog::found(ctx, dev, low);
            log.record(slot)
        }
        _ => ctx.envelope(low),
    }
}

/// The oldest message `w` accepts (leader thread). One sender's messages
/// are all in one store, or in the log before its envelope, so each
/// sender's order holds. `post`: the receive waits, and may post its want.
#[inline(always)]
pub(super) fn find(ctx: &RankContext, dev: u32, w: &Wanted, post: bool) -> Result<Found, u32> {
    if matches!(w.origin, Origin::Peer(_) | Origin::Hosts) {
        return find_elsewhere(ctx, dev, w, post);
    }
    let log = Log::of(ctx, dev, false);
    let from = DCUDA_MESSAGE_STATE.get(TAIL);
    let (pushed, mut envelopes) = list_heads(ctx, dev);
    // SAFETY: this rank's own counter.
    let end = unsafe { arch::load_relaxed(log.reserved, Scope::Gpu) };
    // SAFETY: a record of this rank's message log.
    let tail = unsafe { stamps::peek(log.record(from), Scope::Gpu) };
    let here = if pushed {
        // Envelopes were pushed since the last search: take them, then
        // read the log's end again, so that their senders' older messages
        // in it are seen first.
        envelopes = take_envelopes(ctx, dev, envelopes);
        // SAFETY: as above.
        let end = unsafe { arch::load_acquire(log.reserved, Scope::Gpu) };
        log.search(w, from, end, None)
    } else {
        // The end, loaded with the tail's record, may be older than it.
        let written = tail.seq == from.wrapping_add(1);
        let end = if written && end == from {
            tail.seq
        } else {
            end
        };
        log.search(w, from, end, Some(tail))
    };
    let here = match here {
        Ok(found) => return Ok(found),
        Err(used) => used,
    };
    if let Some(found) = find_envelope(envelopes, w) {
        return Ok(found);
    }
    if ctx.processes == 1 || w.origin == Origin::Device {
        return Err(here);
    }
    find_elsewhere(ctx, dev, w, post)
}

/// The oldest message `w` accepts from another process (leader thread).
#[inline(always)]
fn find_elsewhere(ctx: &RankContext, dev: u32, w: &Wanted, post: bool) -> Result<Found, u32> {
    let peer = || match w.origin {
        Origin::Peer(log) => message_peer::find_in(ctx, dev, w, log),
        Origin::Hosts => Err(0),
        _ => message_peer::find(ctx, dev, w),
    };
    let first = peer();
    if first.is_ok() {
        return first;
    }
    // A mapped sender's messages in the peer log are older than its ones
    // through the hosts; one published before an inbox message that this
    // search acquired is seen by a second look.
    find_remote(ctx, dev, w, post).map(|f| peer().unwrap_or(f))
}
