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

/// The messages a receive accepts.
#[derive(Clone, Copy)]
pub(super) struct Wanted {
    pub context: u32,
    pub source: Source,
    pub tag: Option<u32>,
}

impl Wanted {
    fn accepts(&self, r: &MessageRecord) -> bool {
        r.context == self.context
            && match self.source {
                Source::Any => true,
                Source::Rank(s) => r.source == s,
            }
            && self.tag.is_none_or(|t| t == r.tag)
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
    /// accepts; `Err` carries how many records are in use.
    #[inline(always)]
    fn find(&self, w: &Wanted) -> Result<u32, u32> {
        // SAFETY: this rank's own log and counters.
        unsafe {
            let retired = arch::load_relaxed(self.retired, self.scope);
            let reserved = arch::load_acquire(self.reserved, self.scope);
            let mut pos = retired;
            while pos != reserved {
                let r = self.record(pos);
                // A record reserved but not written yet is skipped, not
                // waited for: its sender is inside that send, so it has no
                // later message anywhere, and the records after it must be
                // seen before the envelope list (a sender's older eager
                // message may lie past it, its newer one in the list).
                let written =
                    arch::load_acquire(&raw const (*r).seq, self.scope) == pos.wrapping_add(1);
                if written && (*r).consumed == 0 && w.accepts(&*r) {
                    return Ok(pos % MSG_LOG as u32);
                }
                pos = pos.wrapping_add(1);
            }
            Err(reserved.wrapping_sub(retired))
        }
    }

    /// Marks the record in `slot` received and retires the received
    /// records at the tail, freeing room for senders.
    #[inline(always)]
    pub fn consume(&self, slot: u32) {
        // SAFETY: this rank's own log; the record was found published.
        unsafe {
            (*self.records.wrapping_add(slot as usize)).consumed = 1;
            let mut retired = arch::load_relaxed(self.retired, self.scope);
            let reserved = arch::load_acquire(self.reserved, self.scope);
            while retired != reserved {
                let r = self.record(retired);
                if arch::load_acquire(&raw const (*r).seq, self.scope) != retired.wrapping_add(1)
                    || (*r).consumed == 0
                {
                    break;
                }
                retired = retired.wrapping_add(1);
            }
            arch::store_release(self.retired, retired, self.scope);
        }
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
/// time.
#[inline(always)]
fn take_envelopes(ctx: &RankContext, dev: u32) {
    let [pushed, taken, _] = ctx.message_lists(dev);
    // SAFETY: this rank's lists; envelopes in them are published by the
    // release of their push and stay put until their sender is notified.
    unsafe {
        if arch::load_relaxed(pushed, Scope::Gpu) != 0 {
            let mut chain = arch::swap(pushed, 0, Ordering::AcqRel, Scope::Gpu);
            while chain != 0 {
                let e = chain as *mut MessageRecord;
                chain = (*e).next;
                (*e).next = *taken;
                *taken = e as u64;
            }
        }
    }
}

/// The first taken-over envelope of `dev` that `w` accepts.
#[inline(always)]
fn find_envelope(ctx: &RankContext, dev: u32, w: &Wanted) -> Option<u32> {
    let [_, taken, _] = ctx.message_lists(dev);
    // SAFETY: as in `take_envelopes`.
    unsafe {
        let mut at = *taken;
        while at != 0 {
            let e = at as *mut MessageRecord;
            if w.accepts(&*e) {
                return Some((*e).sender);
            }
            at = (*e).next;
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

/// The express slot's message if `w` accepts it: (its arrival number).
#[inline(always)]
fn find_express(ctx: &RankContext, dev: u32, w: &Wanted) -> Option<u32> {
    let (record, published, retired) = ctx.express(dev);
    // SAFETY: this rank's express slot and counters (host-mapped).
    unsafe {
        let p = arch::load_acquire(published, Scope::System);
        if p == arch::load_relaxed(retired, Scope::System) || !w.accepts(&*record) {
            return None;
        }
        Some((*record).arrival)
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
fn find_remote(ctx: &RankContext, dev: u32, w: &Wanted, post: bool) -> Result<u32, u32> {
    // The inbox is in host memory: read it over the bus only once the host
    // has delivered something from another process.
    // SAFETY: the flag lives for the run.
    if unsafe { arch::load_relaxed(ctx.remote_active as *const u32, Scope::System) } == 0 {
        return Err(0);
    }
    let inbox = Log::of(ctx, dev, true);
    let found = inbox.find(w);
    let express = find_express(ctx, dev, w);
    match (found, express) {
        (Ok(slot), Some(arrival)) => {
            // SAFETY: a published record of this rank's inbox.
            let older = unsafe { (*inbox.records.wrapping_add(slot as usize)).arrival };
            if (arrival.wrapping_sub(older) as i32) < 0 {
                Ok(EXPRESS)
            } else {
                Ok(INBOX | slot)
            }
        }
        (Ok(slot), None) => Ok(INBOX | slot),
        (Err(_), Some(_)) => Ok(EXPRESS),
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
pub(super) fn find(ctx: &RankContext, dev: u32, w: &Wanted, post: bool) -> Result<u32, u32> {
    // Envelopes first, the log after: a sender's envelope taken now was
    // pushed before, so all its older messages are in the log by then.
    take_envelopes(ctx, dev);
    let here = Log::of(ctx, dev, false).find(w);
    if here.is_ok() {
        return here.map(|slot| LOG | slot);
    }
    if let Some(sender) = find_envelope(ctx, dev, w) {
        return Ok(ENVELOPE | sender);
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
