//! Envelope lists: a sender that waits in `send` (a long message, or a
//! full log) pushes its envelope to the receiver's *pushed* list with a
//! release; the receiver's leader takes the pushed ones over into its
//! *taken* list, searches that list after its log, and unlinks an
//! envelope once it has copied the message.

use super::message_logs::{Found, Wanted, ENVELOPE};
use crate::abi::{MessageRecord, RankContext};
use crate::arch::{self, Ordering, Scope};

/// Whether envelopes were pushed to device rank `dev` since it last took
/// them, and the head of its taken-over list (loaded together).
#[inline(always)]
pub(super) fn list_heads(ctx: &RankContext, dev: u32) -> (bool, u64) {
    let [pushed, taken] = ctx.message_lists(dev);
    // SAFETY: this rank's lists.
    unsafe { (arch::load_relaxed(pushed, Scope::Gpu) != 0, *taken) }
}

/// Takes over the envelopes pushed to device rank `dev` into its list at
/// `head`; returns the list's new head.
#[inline(always)]
pub(super) fn take_envelopes(ctx: &RankContext, dev: u32, mut head: u64) -> u64 {
    let [pushed, taken] = ctx.message_lists(dev);
    // SAFETY: this rank's lists; envelopes in them are published by the
    // release of their push and stay put until their sender is notified.
    unsafe {
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

/// The first envelope from the taken-over list at `head` that `w` accepts.
#[inline(always)]
pub(super) fn find_envelope(mut head: u64, w: &Wanted) -> Option<Found> {
    // SAFETY: as in `take_envelopes`.
    unsafe {
        while head != 0 {
            let e = head as *mut MessageRecord;
            if let (true, bytes, small) = w.accepts(e) {
                let word = ENVELOPE | (*e).sender;
                return Some(Found { word, bytes, small });
            }
            head = (*e).next;
        }
    }
    None
}

/// Removes the envelope of `sender` from `dev`'s taken-over list.
#[inline(always)]
pub(super) fn unlink_envelope(ctx: &RankContext, dev: u32, sender: u32) {
    let [_, taken] = ctx.message_lists(dev);
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

/// Pushes this rank's envelope to `dev`'s list (leader thread; the
/// envelope is filled).
#[inline(always)]
pub(super) fn push_envelope(ctx: &RankContext, dev: u32, envelope: *mut MessageRecord) {
    let [pushed, _] = ctx.message_lists(dev);
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
