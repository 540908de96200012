//! Where a rank's unreceived messages wait, and how a receive finds the
//! oldest one it accepts (leader thread):
//!
//! * the *message log*: eager messages from ranks of this device, in the
//!   order their senders reserved positions;
//! * the *envelope list*: senders of this device that wait in `send`, one
//!   envelope each (a long message, or any message while the log is full).
//!   A sender with an envelope in the list sends nothing else, so its
//!   older messages are all in the log: the log is searched first;
//! * the *inbox* and the *express slot*: messages from other processes,
//!   written by the host in arrival order; while the inbox is full the
//!   rank posts what it waits for (its [`Want`](crate::abi::Want)) and the host delivers the
//!   first such message through the express slot. Both carry the arrival
//!   number, and the older match wins.

use super::matching::Source;
use crate::abi::{MessageRecord, RankContext, MSG_LOG};
use crate::arch::{self, Ordering, Scope};

/// Which store a found message is in (high bits of a found word; the low
/// bits are the slot, or the sender's device rank for an envelope).
pub(super) const LOG: u32 = 0;
pub(super) const INBOX: u32 = 1 << 30;
pub(super) const EXPRESS: u32 = 2 << 30;
pub(super) const ENVELOPE: u32 = 3 << 30;
const KIND: u32 = 3 << 30;

/// A message a search found: its found word and its payload's length,
/// loaded with its header so that a receive needs no second look.
#[derive(Clone, Copy)]
pub(super) struct Found {
    pub word: u32,
    pub bytes: u64,
}

impl Found {
    /// One word for the leader's broadcast: the found word, and the length
    /// above it when it fits in 32 bits (`u32::MAX` when it does not).
    #[inline(always)]
    pub fn packed(self) -> u64 {
        let bytes = if self.bytes < u32::MAX as u64 {
            self.bytes
        } else {
            u32::MAX as u64
        };
        self.word as u64 | bytes << 32
    }

    /// The found word and, if it fitted, the length of a packed `Found`.
    #[inline(always)]
    pub fn unpack(packed: u64) -> (u32, Option<u64>) {
        let bytes = packed >> 32;
        (packed as u32, (bytes != u32::MAX as u64).then_some(bytes))
    }
}

/// The messages a receive accepts.
#[derive(Clone, Copy)]
pub(super) struct Wanted {
    pub context: u32,
    pub source: Source,
    pub tag: Option<u32>,
}

impl Wanted {
    /// Whether `w` accepts the record `r` points to. Every header word is
    /// loaded before any is tested, so that the loads travel together: a
    /// short-circuit test made them four round trips to memory.
    ///
    /// # Safety
    /// `r` is a published record.
    #[inline(always)]
    unsafe fn accepts(&self, r: *const MessageRecord) -> bool {
        // SAFETY: as the caller promises. Volatile, so that the compiler
        // does not move a load behind another's test.
        let (context, source, tag) = unsafe {
            (
                (&raw const (*r).context).read_volatile(),
                (&raw const (*r).source).read_volatile(),
                (&raw const (*r).tag).read_volatile(),
            )
        };
        let source_ok = match self.source {
            Source::Any => true,
            Source::Rank(s) => source == s,
        };
        (context == self.context) & source_ok & self.tag.is_none_or(|t| t == tag)
    }

    /// Its words for the watchdog and the host: tag, source (`u32::MAX`
    /// for any), context.
    pub fn args(&self) -> [u32; 3] {
        let source = match self.source {
            Source::Any => u32::MAX,
            Source::Rank(r) => r,
        };
        [self.tag.unwrap_or(u32::MAX), source, self.context]
    }
}

/// A log of records: the message log or the inbox.
pub(super) struct Log {
    pub records: *mut MessageRecord,
    pub reserved: *mut u32,
    pub retired: *mut u32,
    scope: Scope,
}

impl Log {
    #[inline(always)]
    pub fn of(ctx: &RankContext, dev: u32, inbox: bool) -> Log {
        let (records, reserved, retired) = ctx.message_log(dev, inbox);
        // The host writes the inbox: it is read and written at system scope.
        let scope = if inbox { Scope::System } else { Scope::Gpu };
        Log {
            records,
            reserved,
            retired,
            scope,
        }
    }

    #[inline(always)]
    pub fn record(&self, pos: u32) -> *mut MessageRecord {
        self.records.wrapping_add(pos as usize % MSG_LOG)
    }

    /// The slot of the oldest published, unreceived record that `w`
    /// accepts; `Err` carries how many records are in use. On the way it
    /// retires the received records at the tail, freeing room for senders:
    /// a receive only marks its record, so that the retiring is done while
    /// the next receive waits, not on the path of a message.
    #[inline(always)]
    fn find(&self, w: &Wanted) -> Result<Found, u32> {
        // SAFETY: this rank's own log and counters; only its leader thread
        // writes `retired` and `consumed`.
        unsafe {
            let retired = arch::load_relaxed(self.retired, self.scope);
            let reserved = arch::load_acquire(self.reserved, self.scope);
            let (mut pos, mut tail, mut at_tail) = (retired, retired, true);
            let mut found = None;
            while pos != reserved {
                let r = self.record(pos);
                // A record reserved but not written yet is skipped, not
                // waited for: its sender is inside that send, so it has no
                // later message anywhere, and the records after it must be
                // seen before the envelope list (a sender's older eager
                // message may lie past it, its newer one in the list).
                let written =
                    arch::load_acquire(&raw const (*r).seq, self.scope) == pos.wrapping_add(1);
                pos = pos.wrapping_add(1);
                if !written {
                    at_tail = false;
                    continue;
                }
                // One round trip for the whole header (volatile: not one
                // load after another's test).
                let consumed = (&raw const (*r).consumed).read_volatile() != 0;
                let bytes = (&raw const (*r).bytes).read_volatile();
                let accepted = w.accepts(r);
                if consumed {
                    if at_tail {
                        tail = pos;
                    }
                    continue;
                }
                at_tail = false;
                if accepted {
                    let word = pos.wrapping_sub(1) % MSG_LOG as u32;
                    found = Some(Found { word, bytes });
                    break;
                }
            }
            if tail != retired {
                arch::store_release(self.retired, tail, self.scope);
            }
            found.ok_or(reserved.wrapping_sub(tail))
        }
    }

    /// Marks the record in `slot` received; the next search retires it.
    #[inline(always)]
    pub fn consume(&self, slot: u32) {
        // SAFETY: this rank's own log; the record was found published.
        unsafe { (*self.records.wrapping_add(slot as usize)).consumed = 1 };
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
        _ => ctx.envelope(low),
    }
}

/// Takes over the envelopes pushed to device rank `dev` since the last
/// time; returns the head of its taken-over list.
#[inline(always)]
fn take_envelopes(ctx: &RankContext, dev: u32) -> u64 {
    let [pushed, taken, _] = ctx.message_lists(dev);
    // SAFETY: this rank's lists; envelopes in them are published by the
    // release of their push and stay put until their sender is notified.
    unsafe {
        // Both heads are loaded before the log is searched, so that a
        // search that finds nothing costs one round trip, not two.
        let mut head = *taken;
        if arch::load_relaxed(pushed, Scope::Gpu) != 0 {
            let mut chain = arch::swap(pushed, 0, Ordering::AcqRel, Scope::Gpu);
            while chain != 0 {
                let e = chain as *mut MessageRecord;
                chain = (*e).next;
                (*e).next = head;
                head = e as u64;
            }
            *taken = head;
        }
        head
    }
}

/// The first envelope from the taken-over list at `head` that `w` accepts.
#[inline(always)]
fn find_envelope(mut head: u64, w: &Wanted) -> Option<Found> {
    // SAFETY: as in `take_envelopes`.
    unsafe {
        while head != 0 {
            let e = head as *mut MessageRecord;
            if w.accepts(e) {
                let word = ENVELOPE | (*e).sender;
                return Some(Found { word, bytes: (*e).bytes });
            }
            head = (*e).next;
        }
    }
    None
}

/// Removes the envelope of `sender` from `dev`'s taken-over list.
#[inline(always)]
pub(super) fn unlink_envelope(ctx: &RankContext, dev: u32, sender: u32) {
    let [_, taken, _] = ctx.message_lists(dev);
    let target = ctx.envelope(sender) as u64;
    // SAFETY: this rank's own list of envelopes.
    unsafe {
        let mut link = taken;
        while *link != 0 {
            if *link == target {
                *link = (*(target as *mut MessageRecord)).next;
                return;
            }
            link = &raw mut (*(*link as *mut MessageRecord)).next;
        }
    }
}

/// The express slot's message if `w` accepts it, and its arrival number.
#[inline(always)]
fn find_express(ctx: &RankContext, dev: u32, w: &Wanted) -> Option<(Found, u32)> {
    let (record, published, retired) = ctx.express(dev);
    // SAFETY: this rank's express slot and counters (host-mapped).
    unsafe {
        let p = arch::load_acquire(published, Scope::System);
        if p == arch::load_relaxed(retired, Scope::System) || !w.accepts(record) {
            return None;
        }
        let word = EXPRESS;
        Some((Found { word, bytes: (*record).bytes }, (*record).arrival))
    }
}

/// Marks the express slot free for the host.
#[inline(always)]
pub(super) fn consume_express(ctx: &RankContext, dev: u32) {
    let (_, published, retired) = ctx.express(dev);
    // SAFETY: this rank's express counters.
    unsafe {
        let p = arch::load_relaxed(published, Scope::System);
        arch::store_release(retired, p, Scope::System);
    }
}

/// The oldest message `w` accepts from another process: in the inbox or
/// the express slot, whichever arrived first. With the inbox full and no
/// match, a receive that waits (`post`) posts its want for the host.
#[inline(always)]
fn find_remote(ctx: &RankContext, dev: u32, w: &Wanted, post: bool) -> Result<Found, u32> {
    // The inbox is in host memory: read it over the bus only once the host
    // has delivered something from another process.
    // SAFETY: the flag lives for the run.
    if unsafe { arch::load_relaxed(ctx.remote_active as *const u32, Scope::System) } == 0 {
        return Err(0);
    }
    let inbox = Log::of(ctx, dev, true);
    let found = inbox.find(w).map(|f| Found {
        word: INBOX | f.word,
        ..f
    });
    let express = find_express(ctx, dev, w);
    match (found, express) {
        (Ok(f), Some((e, arrival))) => {
            let slot = f.word & !KIND;
            // SAFETY: a published record of this rank's inbox.
            let older = unsafe { (*inbox.records.wrapping_add(slot as usize)).arrival };
            Ok(if (arrival.wrapping_sub(older) as i32) < 0 { e } else { f })
        }
        (Ok(f), None) => Ok(f),
        (Err(_), Some((e, _))) => Ok(e),
        (Err(used), None) => {
            if post && used as usize >= MSG_LOG {
                post_want(ctx, dev, w);
            }
            Err(used)
        }
    }
}

/// Tells the host what this rank waits for (once per receive).
#[inline(always)]
fn post_want(ctx: &RankContext, dev: u32, w: &Wanted) {
    let [_, _, set] = ctx.message_lists(dev);
    // SAFETY: this rank's flag and want.
    unsafe {
        if *set != 0 {
            return;
        }
        *set = 1;
        let [tag, source, context] = w.args();
        let want = ctx.want(dev);
        arch::store_relaxed(&raw mut (*want).context, context, Scope::System);
        arch::store_relaxed(&raw mut (*want).source, source, Scope::System);
        arch::store_relaxed(&raw mut (*want).tag, tag, Scope::System);
        arch::store_release(&raw mut (*want).active, 1, Scope::System);
    }
}

/// Withdraws the want, if this rank posted one.
#[inline(always)]
pub(super) fn clear_want(ctx: &RankContext, dev: u32) {
    let [_, _, set] = ctx.message_lists(dev);
    // SAFETY: this rank's flag and want.
    unsafe {
        if *set != 0 {
            *set = 0;
            arch::store_release(&raw mut (*ctx.want(dev)).active, 0, Scope::System);
        }
    }
}

/// The oldest message `w` accepts, as a found word (leader thread). One
/// sender's messages are all in one store, or in the log before its
/// envelope, so each sender's order holds. `post`: the receive waits,
/// and may post its want.
#[inline(always)]
pub(super) fn find(ctx: &RankContext, dev: u32, w: &Wanted, post: bool) -> Result<Found, u32> {
    // Envelopes first, the log after: a sender's envelope taken now was
    // pushed before, so all its older messages are in the log by then.
    let envelopes = take_envelopes(ctx, dev);
    let here = Log::of(ctx, dev, false).find(w);
    if here.is_ok() {
        return here;
    }
    if let Some(found) = find_envelope(envelopes, w) {
        return Ok(found);
    }
    if ctx.processes == 1 {
        return here;
    }
    find_remote(ctx, dev, w, post)
}

/// Pushes this rank's envelope to `dev`'s list (leader thread; the
/// envelope is filled).
#[inline(always)]
pub(super) fn push_envelope(ctx: &RankContext, dev: u32, envelope: *mut MessageRecord) {
    let [pushed, _, _] = ctx.message_lists(dev);
    // SAFETY: the receiver's list head; the envelope is this rank's own.
    unsafe {
        let mut head = arch::load_relaxed(pushed, Scope::Gpu);
        loop {
            (*envelope).next = head;
            let seen = arch::compare_exchange(
                pushed,
                head,
                envelope as u64,
                Ordering::Release,
                Scope::Gpu,
            );
            if seen == head {
                return;
            }
            head = seen;
        }
    }
}

/// Reserves a position in `dev`'s message log if it has room (leader
/// thread); `None` when full.
#[inline(always)]
pub(super) fn reserve(ctx: &RankContext, dev: u32) -> Option<u32> {
    let log = Log::of(ctx, dev, false);
    // SAFETY: the receiver's counters.
    unsafe {
        let mut pos = arch::load_relaxed(log.reserved, Scope::Gpu);
        loop {
            let retired = arch::load_acquire(log.retired, Scope::Gpu);
            if pos.wrapping_sub(retired) >= MSG_LOG as u32 {
                return None;
            }
            let seen = arch::compare_exchange(
                log.reserved,
                pos,
                pos.wrapping_add(1),
                Ordering::Relaxed,
                Scope::Gpu,
            );
            if seen == pos {
                return Some(pos);
            }
            pos = seen;
        }
    }
}
