//! Notifications counted per tag (dCUDA's fast path): `notify`, and the
//! signal of `put_notify`/`get_notify` on plain windows; `wait` and `test`.
//!
//! Each rank has, per tag, an arrival counter bumped by ranks of its device
//! and mapped GPUs, one written by the host for remote senders, and a
//! consumed counter in shared memory. Available = arrived - consumed,
//! compared with wrapping arithmetic, so counters may wrap.

use super::comm::Comm;
use super::route::Place;
use super::Runtime;
use crate::abi::{Call, Fault, Op, RankContext, Route, Transfer, NO_WINDOW, TAGS};
use crate::arch::{self, Ordering, Scope};
use crate::block::Block;

crate::shared_array!(static DCUDA_CONSUMED: [u32; TAGS as usize]);

/// Whether this rank's consumed counters are set up (on its first wait or
/// test: the leader thread sets and later reads them, so no barrier).
#[derive(Default)]
pub(crate) struct Counters {
    ready: bool,
}

impl Counters {
    /// True on the first wait or test of this rank.
    #[inline(always)]
    pub(super) fn first_use(&mut self) -> bool {
        !core::mem::replace(&mut self.ready, true)
    }
}

/// Sets this rank's consumed counters to the start value (leader thread).
#[inline(always)]
pub(super) fn init_consumed(start: u32) {
    for tag in 0..TAGS as usize {
        DCUDA_CONSUMED.set(tag, start);
    }
}

/// The scope of a signal the rank sends itself on `route`; `None` when the
/// host delivers it or NVSHMEM does (`symmetric.rs`).
#[inline(always)]
pub(crate) fn direct_scope(route: Route) -> Option<Scope> {
    match route {
        Route::Local => Some(Scope::Gpu),
        Route::Direct => Some(Scope::System),
        Route::Host | Route::Nvshmem => None,
    }
}

/// Consumes `count` notifications of `tag` of device rank `rank` if that
/// many are available (leader thread only); `Err` carries how many are.
#[inline(always)]
pub(super) fn try_consume(ctx: &RankContext, rank: u32, tag: u32, count: u32) -> Result<u32, u32> {
    let (local_at, remote_at) = (ctx.local_counter(rank, tag), ctx.remote_counter(rank, tag));
    // Other processes exist: mapped GPUs may signal the local counters (a
    // system-scoped release), and the host writes the remote ones. On one
    // device skip both system-scoped loads.
    let (local, remote) = if ctx.processes == 1 {
        // SAFETY: in the counter array.
        (unsafe { arch::load_acquire(local_at, Scope::Gpu) }, 0)
    } else {
        // SAFETY: in the counter arrays; the flag lives for the run.
        unsafe {
            // The flag first, relaxed: then both loads are in flight
            // together (a load after an acquire waits for it). A flag seen
            // late only delays a host delivery to the next poll.
            let active = arch::load_relaxed(ctx.remote_active as *const u32, Scope::System);
            let local = arch::load_acquire(local_at, Scope::System);
            // Remote counters live in host memory: read them over the bus
            // only once the host has delivered something through them.
            let remote = if active != 0 {
                arch::load_acquire(remote_at, Scope::System)
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

/// The most targets of one [`Rank::notify_each`](crate::Rank::notify_each):
/// lanes of the first warp release them, so one more costs nothing; eight
/// covers a 2D tile's neighbours with corners and a 3D block's faces.
pub const MAX_NOTIFY_EACH: usize = 8;

/// The counter of `tag` of world rank `world`, which `locate` found on a
/// direct route, and the scope of its release (one lane's part of
/// `notify_each`: no checks, no faults). Each lane finds it again rather
/// than reading what `locate` found from an array: kept in an array
/// indexed by lane, the places went to the stack and Aliev–Panfilov's
/// step took 18% longer at 2048² on an H200
/// (`bench/experiments/notify-each-located-array.patch`).
#[inline(always)]
fn lane_counter(ctx: &RankContext, world: u32, tag: u32) -> (*mut u32, Scope) {
    let dev = world.wrapping_sub(ctx.world_first);
    let (counters, dev, scope) = if dev < ctx.ranks {
        (ctx.local_notifications, dev, Scope::Gpu)
    } else {
        let peer = super::route::process_of(ctx, world);
        (peer.notifications, world - peer.first, Scope::System)
    };
    let at = crate::abi::counter_index(dev, tag);
    ((counters as *mut u32).wrapping_add(at), scope)
}

impl Runtime {
    /// Sends notification `tag` to rank `target` of `comm`, after every
    /// earlier put of this rank to it.
    #[inline(always)]
    pub fn notify(&mut self, block: &mut Block, comm: Comm, target: u32, tag: u32) {
        self.check_user_tag(block, Call::Notify, tag);
        let place = self.locate(block, Call::Notify, comm, target);
        self.signal(block, &place, tag);
    }

    /// Bumps `tag` of the rank at `place` once every thread's earlier
    /// writes are done: itself on this device or a mapped GPU, else through
    /// the host (after the accesses handed to it before).
    #[inline(always)]
    pub fn signal(&mut self, block: &mut Block, place: &Place, tag: u32) {
        let Some(scope) = direct_scope(place.route) else {
            let transfer = Transfer {
                target: place.world,
                window: NO_WINDOW,
                ..Transfer::default()
            };
            return self.through_host(block, Call::Notify, Op::Notify, tag, transfer);
        };
        // The barrier orders every thread's copy before the leader's release.
        block.sync();
        let counter = place.counter(tag);
        block.leader(|_| {
            // SAFETY: in the target's counter array.
            unsafe { arch::add(counter, 1, Ordering::Release, scope) }
        });
    }

    /// Sends notification `tag` to every rank of `targets` (at most
    /// [`MAX_NOTIFY_EACH`]), each after every earlier put of this rank to it.
    /// On direct routes one barrier, then lane `i` of the first warp
    /// releases target `i`'s counter: one warp instruction, so one memory
    /// barrier for all of them where `notify` in a loop pays one each.
    #[inline(always)]
    pub fn notify_each(&mut self, block: &mut Block, comm: Comm, targets: &[u32], tag: u32) {
        self.check_user_tag(block, Call::NotifyEach, tag);
        let n = targets.len();
        if n > MAX_NOTIFY_EACH {
            let args = [n as u64, MAX_NOTIFY_EACH as u64, 0, 0];
            self.fail(block, Call::NotifyEach, Fault::CountTooLarge, args);
        }
        // Checked and routed in the uniform code; the host's and
        // NVSHMEM's routes go one by one.
        let mut lanes = 0u32;
        for (i, &target) in targets.iter().enumerate() {
            let place = self.locate(block, Call::NotifyEach, comm, target);
            if direct_scope(place.route).is_some() {
                lanes |= 1 << i;
            } else {
                self.signal(block, &place, tag);
            }
        }
        if lanes == 0 {
            return;
        }
        // The barrier orders every thread's writes before the releases.
        block.sync();
        let ctx = self.ctx();
        block.each_thread(|t| {
            let i = t.index() as usize;
            if i < n && lanes & (1 << i) != 0 {
                let world = super::comm::world_rank(ctx, comm, targets[i]);
                let (counter, scope) = lane_counter(ctx, world, tag);
                // SAFETY: in the target's counter array (located above).
                unsafe { arch::add(counter, 1, Ordering::Release, scope) }
            }
        });
    }

    /// Waits until `count` notifications of `tag` are available, and consumes them.
    #[inline(always)]
    pub fn wait_notifications(&mut self, block: &mut Block, tag: u32, count: u32) {
        self.check_user_tag(block, Call::WaitNotifications, tag);
        self.check_count(block, Call::WaitNotifications, count);
        let (ctx, id) = (*self.ctx(), block.id());
        let mut setup = self.counters.first_use();
        self.tests.waiting();
        self.wait_until(block, Call::WaitNotifications, [tag, count, 0], || {
            if core::mem::take(&mut setup) {
                init_consumed(ctx.notification_start);
            }
            try_consume(&ctx, id, tag, count)
        });
    }

    /// Consumes `count` notifications of `tag` if that many are available;
    /// returns whether it did. Never waits.
    #[inline(always)]
    pub fn test_notifications(&mut self, block: &mut Block, tag: u32, count: u32) -> bool {
        self.check_user_tag(block, Call::TestNotifications, tag);
        self.check_count(block, Call::TestNotifications, count);
        let (ctx, id) = (*self.ctx(), block.id());
        let first = self.counters.first_use();
        let (status, streak) = (ctx.status(id), &mut self.tests);
        let r = block.single(|_| {
            if first {
                init_consumed(ctx.notification_start);
            }
            match try_consume(&ctx, id, tag, count) {
                Ok(_) => {
                    streak.succeeded(status);
                    1
                }
                Err(seen) => {
                    let args = [tag, count, 0];
                    if streak.failed(&ctx, status, Call::TestNotifications, args, seen) {
                        2
                    } else {
                        0
                    }
                }
            }
        });
        if r == 2 {
            super::wait::abort_exit()
        }
        r == 1
    }
}
