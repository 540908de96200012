//! Messages from other processes: the host writes them into the rank's
//! *inbox* (a log in host memory) in arrival order; while the inbox is full
//! the rank posts what it waits for (its [`Want`](crate::abi::Want)) and
//! the host delivers the first such message through the *express slot*.
//! Both carry the arrival number, and the older match wins.

use super::message_logs::{
    Found, Log, Wanted, DCUDA_MESSAGE_STATE, EXPRESS, INBOX, KIND, WANT_POSTED,
};
use crate::abi::{RankContext, MSG_LOG};
use crate::arch::{self, Scope};

/// The express slot's message if `w` accepts it, and its arrival number.
#[inline(always)]
fn find_express(ctx: &RankContext, dev: u32, w: &Wanted) -> Option<(Found, u32)> {
    let (record, published, retired) = ctx.express(dev);
    // SAFETY: this rank's express slot and counters (host-mapped).
    unsafe {
        let p = arch::load_acquire(published, Scope::System);
        if p == arch::load_relaxed(retired, Scope::System) {
            return None;
        }
        let (true, bytes, small) = w.accepts(record) else {
            return None;
        };
        let word = EXPRESS;
        Some((Found { word, bytes, small }, (*record).arrival))
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
pub(super) fn find_remote(
    ctx: &RankContext,
    dev: u32,
    w: &Wanted,
    post: bool,
) -> Result<Found, u32> {
    // The inbox is in host memory: read it over the bus only once the host
    // has delivered something from another process.
    // SAFETY: the flag lives for the run.
    if unsafe { arch::load_relaxed(ctx.remote_active as *const u32, Scope::System) } == 0 {
        return Err(0);
    }
    let inbox = Log::of(ctx, dev, true);
    let found = inbox.search_all(w).map(|f| Found {
        word: INBOX | f.word,
        ..f
    });
    let express = find_express(ctx, dev, w);
    match (found, express) {
        (Ok(f), Some((e, arrival))) => {
            let slot = f.word & !KIND;
            // SAFETY: a published record of this rank's inbox.
            let older = unsafe { (*inbox.records.wrapping_add(slot as usize)).arrival };
            Ok(if (arrival.wrapping_sub(older) as i32) < 0 {
                e
            } else {
                f
            })
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
    if DCUDA_MESSAGE_STATE.get(WANT_POSTED) != 0 {
        return;
    }
    DCUDA_MESSAGE_STATE.set(WANT_POSTED, 1);
    // SAFETY: this rank's want.
    unsafe {
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
    // The flag is in shared memory: a load from global memory here would
    // wait a round trip on every receive.
    if DCUDA_MESSAGE_STATE.get(WANT_POSTED) != 0 {
        DCUDA_MESSAGE_STATE.set(WANT_POSTED, 0);
        // SAFETY: this rank's want.
        unsafe { arch::store_release(&raw mut (*ctx.want(dev)).active, 0, Scope::System) };
    }
}
