//! Notifications counted per tag (dCUDA's fast path): `notify`, and the
//! signal of `put_notify`/`get_notify` on plain windows; `wait` and `test`.
//!
//! Each rank has, per tag, an arrival counter bumped by ranks of its device
//! (gpu-scoped atomics) and one written by the host for remote senders, and
//! a consumed counter in shared memory. Available = arrived - consumed,
//! compared with wrapping arithmetic, so counters may wrap.

use super::comm::Comm;
use super::layout::{Call, Fault, Op, Transfer, NO_WINDOW, TAGS};
use super::rma::direct_scope;
use super::route::Place;
use super::DCUDA_CONSUMED;
use super::{init_consumed, RankContext};
use crate::arch::{self, Ordering, Scope};
use crate::rank::collective::{barrier, single};
use crate::rank::{on_thread_zero, Rank};

/// Consumes `count` notifications of `tag` of device rank `rank` if that
/// many are available (leader thread only); `Err` carries how many are.
#[inline(always)]
fn try_consume(ctx: &RankContext, rank: u32, tag: u32, count: u32) -> Result<u32, u32> {
    let at = rank as usize * TAGS + tag as usize;
    // Other processes exist: mapped GPUs may signal the local counters (a
    // system-scoped release), and the host writes the remote ones. On one
    // device skip both system-scoped loads.
    let (local, remote) = if ctx.processes == 1 {
        // SAFETY: in the counter array.
        let local = unsafe { arch::load_acquire(ctx.local_notifications.add(at), Scope::Gpu) };
        (local, 0)
    } else {
        // SAFETY: in the counter arrays; the flag lives for the run.
        unsafe {
            let local = arch::load_acquire(ctx.local_notifications.add(at), Scope::System);
            // Remote counters live in host memory: read them over the bus
            // only once the host has delivered something through them.
            let remote = if arch::load_relaxed(ctx.remote_active, Scope::System) != 0 {
                arch::load_acquire(ctx.remote_notifications.add(at), Scope::System)
            } else {
                0
            };
            (local, remote)
        }
    };
    let consumed = DCUDA_CONSUMED.get(tag as usize);
    let available = local.wrapping_add(remote).wrapping_sub(consumed);
    if available.wrapping_sub(count) as i32 >= 0 {
        DCUDA_CONSUMED.set(tag as usize, consumed.wrapping_add(count));
        Ok(1)
    } else {
        Err(available)
    }
}

impl Rank {
    /// Sends notification `tag` to rank `target` of `comm`, after every
    /// earlier put of this rank to it.
    pub fn notify(&mut self, comm: Comm, target: u32, tag: u32) {
        self.check_tag(Call::Notify, tag);
        let place = self.locate(Call::Notify, comm, target);
        self.signal(&place, tag);
    }

    /// Bumps `tag` of the rank at `place` once every thread's earlier
    /// writes are done: itself on this device or a mapped GPU, else through
    /// the host (after the accesses handed to it before).
    #[inline(always)]
    pub(crate) fn signal(&mut self, place: &Place, tag: u32) {
        let Some(scope) = direct_scope(place.route) else {
            let transfer = Transfer {
                target: place.world,
                window: NO_WINDOW,
                ..Transfer::default()
            };
            return self.through_host(Call::Notify, Op::Notify, tag, transfer);
        };
        // The barrier orders every thread's copy before the leader's release.
        barrier();
        // SAFETY: in the counter array.
        let counter = unsafe { place.counters.add(place.dev as usize * TAGS + tag as usize) };
        on_thread_zero(|_| {
            // SAFETY: as above.
            unsafe { arch::add(counter, 1, Ordering::Release, scope) }
        });
    }

    /// True on the first wait or test of this rank.
    #[inline(always)]
    fn first_notification_use(&mut self) -> bool {
        !core::mem::replace(&mut self.consumed_ready, true)
    }

    fn check_count(&mut self, call: Call, count: u32) {
        if count > i32::MAX as u32 {
            self.fail(
                call,
                Fault::CountTooLarge,
                [count as u64, i32::MAX as u64, 0, 0],
            );
        }
    }

    /// Waits until `count` notifications of `tag` are available, and consumes them.
    pub fn wait_notifications(&mut self, tag: u32, count: u32) {
        self.check_tag(Call::WaitNotifications, tag);
        self.check_count(Call::WaitNotifications, count);
        let (ctx, id, first) = (*self.ctx(), self.id, self.first_notification_use());
        let mut setup = first;
        self.wait_until(Call::WaitNotifications, [tag, count, 0], || {
            if core::mem::take(&mut setup) {
                init_consumed(ctx.notification_start);
            }
            try_consume(&ctx, id, tag, count)
        });
    }

    /// Consumes `count` notifications of `tag` if that many are available;
    /// returns whether it did. Never waits.
    pub fn test_notifications(&mut self, tag: u32, count: u32) -> bool {
        self.check_tag(Call::TestNotifications, tag);
        self.check_count(Call::TestNotifications, count);
        let (ctx, id, first) = (*self.ctx(), self.id, self.first_notification_use());
        single(self, |_| {
            if first {
                init_consumed(ctx.notification_start);
            }
            try_consume(&ctx, id, tag, count).unwrap_or(0)
        }) == 1
    }
}
