//! The dCUDA device runtime: communicators, windows, notified remote memory
//! access, notification matching, barriers, host calls (timers, logging)
//! and error reporting. Every call is a method of [`Rank`](crate::Rank) and
//! block-collective.
//!
//! On one GPU notified access never involves the host: the sending block
//! copies into the target window, synchronises (`bar.sync`), and one thread
//! adds to the target's per-tag counter with a gpu-scoped release; the
//! target's leader thread polls its counters with acquire loads. The host is
//! only asked for what needs it (timers, logging, host round trips), through
//! one shared ring in pinned host memory.

mod comm;
mod fault;
mod host;
mod layout;
mod matching;
mod notify;
mod rma;
mod route;
mod sync;
mod window;

pub use comm::{Comm, CommKind};
#[cfg(not(target_arch = "nvptx64"))]
pub use host::format_log;
pub use host::LogArg;
pub use layout::*;
pub use matching::{Match, Source};
pub use window::Window;

use crate::arch::{self, Scope};
use crate::rank::collective::single;
use crate::rank::{on_thread_zero, Rank};

crate::shared_array!(static DCUDA_CONSUMED: [u32; TAGS]);

/// Before the rank body. Nothing happens here: state that needs setting up
/// is set up by its first use (notification counters, ring credit), so a
/// kernel pays only for what it uses.
#[inline(always)]
pub(crate) fn init(_rank: &mut Rank) {}

/// After the rank body: tell the watchdog this rank is done (one store by
/// one thread, no barrier).
#[inline(always)]
pub(crate) fn finish(rank: &mut Rank) {
    let status = rank.status_slot();
    on_thread_zero(|_| {
        // SAFETY: the status slot is this rank's own.
        unsafe { arch::store_relaxed(&raw mut (*status).state, STATUS_FINISHED, Scope::System) };
    });
}

/// Sets this rank's consumed counters to the start value (leader thread, on
/// the first wait or test: the same thread reads them later, so no barrier).
#[inline(always)]
pub(crate) fn init_consumed(start: u32) {
    for tag in 0..TAGS {
        DCUDA_CONSUMED.set(tag, start);
    }
}

impl Rank {
    #[inline(always)]
    pub(crate) fn status_slot(&self) -> *mut WaitStatus {
        // SAFETY: one slot per rank.
        unsafe { self.ctx().status.add(self.id as usize) }
    }

    /// Runs `ready` on the leader thread until it returns `Ok`, then gives
    /// the result to every thread (one barrier). While waiting it checks the
    /// abort flag, backs off with `nanosleep`, and after a while publishes
    /// what it waits on for the watchdog. An aborted run ends the rank.
    #[inline(always)]
    pub(crate) fn wait_until(
        &mut self,
        call: Call,
        args: [u32; 3],
        mut ready: impl FnMut() -> Result<u32, u32>,
    ) -> u32 {
        let ctx = *self.ctx();
        let status = self.status_slot();
        let outcome = single(self, |_| {
            let mut spins = 0u32;
            let mut since = 0u64;
            let mut published = false;
            loop {
                let seen = match ready() {
                    Ok(v) => {
                        if published {
                            // SAFETY: this rank's status slot.
                            unsafe {
                                arch::store_relaxed(&raw mut (*status).state, 0, Scope::System)
                            };
                        }
                        return v as u64;
                    }
                    Err(seen) => seen,
                };
                spins = spins.wrapping_add(1);
                if spins.is_multiple_of(32) {
                    // SAFETY: the abort flag lives for the whole run.
                    if unsafe { arch::load_relaxed(ctx.abort, Scope::Gpu) } != 0 {
                        return u64::MAX;
                    }
                    let now = arch::global_timer();
                    if since == 0 {
                        since = now;
                    } else if !published && now.wrapping_sub(since) > ctx.status_after_ns {
                        // SAFETY: this rank's status slot.
                        unsafe {
                            let s = &mut *status;
                            s.a = args[0];
                            s.b = args[1];
                            s.c = args[2];
                            s.seen = seen;
                            arch::store_release(&raw mut s.state, call as u32 + 1, Scope::System);
                        }
                        published = true;
                    }
                }
                // Spin hard first: a partner on the same device answers in
                // well under a microsecond. Then back off, so that a thousand
                // waiting ranks do not flood the memory system.
                if spins > 16384 {
                    arch::nanosleep(1000);
                } else if spins > 2048 {
                    arch::nanosleep(64);
                }
            }
        });
        if outcome == u64::MAX {
            self.abort_exit()
        }
        outcome as u32
    }

    /// Ends this rank because the run was aborted.
    #[inline(always)]
    pub(crate) fn abort_exit(&mut self) -> ! {
        arch::exit_thread()
    }
}
