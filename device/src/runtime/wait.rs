//! Waiting: the leader thread polls until a condition holds, checking the
//! abort flag and telling the watchdog what it waits on.

use super::Runtime;
use crate::abi::{Call, RankContext, WaitStatus};
use crate::arch::{self, Scope};
use crate::block::Block;

impl Runtime {
    /// Runs `ready` on the leader thread until it returns `Ok`, then gives
    /// the result to every thread (one barrier). While waiting it checks the
    /// abort flag, backs off with `nanosleep`, and after a while publishes
    /// what it waits on for the watchdog. An aborted run ends the rank.
    #[inline(always)]
    pub fn wait_until(
        &self,
        block: &mut Block,
        call: Call,
        args: [u32; 3],
        mut ready: impl FnMut() -> Result<u32, u32>,
    ) -> u32 {
        self.wait_until_word(block, call, args, || ready().map(u64::from)) as u32
    }

    /// [`wait_until`](Self::wait_until) with a 64-bit result; `u64::MAX`
    /// is not one (it stands for an aborted run).
    #[inline(always)]
    pub fn wait_until_word(
        &self,
        block: &mut Block,
        call: Call,
        args: [u32; 3],
        ready: impl FnMut() -> Result<u64, u32>,
    ) -> u64 {
        let ctx = self.ctx();
        let status = ctx.status(block.id());
        let outcome = block.single(|_| poll(ctx, status, call, args, ready).unwrap_or(u64::MAX));
        if outcome == u64::MAX {
            abort_exit()
        }
        outcome
    }
}

/// Runs `ready` on this (the leader) thread until it returns `Ok`, with the
/// bookkeeping of [`Runtime::wait_until`]; `None` once the run is aborted.
#[inline(always)]
pub(crate) fn poll<T>(
    ctx: &RankContext,
    status: *mut WaitStatus,
    call: Call,
    args: [u32; 3],
    mut ready: impl FnMut() -> Result<T, u32>,
) -> Option<T> {
    let mut spins = 0u32;
    // The same bookkeeping as a rank that polls with tests: after a while
    // it publishes what it waits on, then keeps the count live.
    let mut streak = PollStreak::default();
    loop {
        let seen = match ready() {
            Ok(v) => {
                streak.succeeded(status);
                return Some(v);
            }
            Err(seen) => seen,
        };
        spins = spins.wrapping_add(1);
        if spins.is_multiple_of(32) && streak.failed(ctx, status, call, args, seen) {
            return None;
        }
        // Spin hard first: a partner on the same device answers in well
        // under a microsecond. Then back off, so that a thousand waiting
        // ranks do not flood the memory system.
        if spins > 16384 {
            arch::nanosleep(1000);
        } else if spins > 2048 {
            arch::nanosleep(64);
        }
    }
}

/// Tells the watchdog what this rank waits on (leader thread): the
/// arguments first, then the state with a release.
#[inline(always)]
fn publish(status: *mut WaitStatus, call: Call, args: [u32; 3], seen: u32) {
    // SAFETY: this rank's status slot, for the whole run.
    unsafe {
        let s = &mut *status;
        s.a = args[0];
        s.b = args[1];
        s.c = args[2];
        s.seen = seen;
        arch::store_release(&raw mut s.state, call as u32 + 1, Scope::System);
    }
}

/// Ends this rank because the run was aborted.
#[inline(always)]
pub(crate) fn abort_exit() -> ! {
    arch::block::abort_rank()
}

/// A run of failed polls by the leader thread, of a wait or of tests
/// (`test_notifications`, `test_match`): after `status_after_ns` the rank
/// publishes what it waits on, so that the watchdog sees a rank that polls
/// forever as waiting, and then keeps the count it saw live. Only the
/// leader thread reads and writes it.
#[derive(Default)]
pub(crate) struct PollStreak {
    since: u64,
    published: bool,
    seen: u32,
}

impl PollStreak {
    /// A poll failed with `seen` available (leader thread). Returns
    /// whether the run was aborted: a rank that only polls must still end.
    #[inline(always)]
    pub fn failed(
        &mut self,
        ctx: &RankContext,
        status: *mut WaitStatus,
        call: Call,
        args: [u32; 3],
        seen: u32,
    ) -> bool {
        // SAFETY: the abort flag lives for the whole run.
        if unsafe { arch::load_relaxed(ctx.abort(), Scope::Gpu) } != 0 {
            return true;
        }
        let after = ctx.status_after_ns;
        let now = arch::global_timer();
        if self.since == 0 {
            self.since = now;
            return false;
        }
        // SAFETY: this rank's status slot.
        unsafe {
            if !self.published && now.wrapping_sub(self.since) > after {
                publish(status, call, args, seen);
                self.published = true;
                self.seen = seen;
            } else if self.published && seen != self.seen {
                self.seen = seen;
                arch::store_relaxed(&raw mut (*status).seen, seen, Scope::System);
            }
        }
        false
    }

    /// A wait starts: it publishes its own status, which a later test's
    /// streak must publish again.
    #[inline(always)]
    pub fn waiting(&mut self) {
        self.published = false;
    }

    /// A poll succeeded (leader thread): the rank runs again.
    #[inline(always)]
    pub fn succeeded(&mut self, status: *mut WaitStatus) {
        if self.published {
            // SAFETY: this rank's status slot.
            unsafe { arch::store_relaxed(&raw mut (*status).state, 0, Scope::System) };
        }
        *self = PollStreak::default();
    }
}
