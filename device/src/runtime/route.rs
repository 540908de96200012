//! Where a rank lives and how to reach it: on this device, on a GPU whose
//! memory is mapped here, or through the host's network manager.
//!
//! World ranks are numbered process by process; each process knows the
//! first world rank and the rank count of every process (`peers`).

use super::comm::{Comm, CommKind};
use super::layout::{Call, Fault, Peer, RankContext, Route};
use crate::rank::Rank;

/// A located rank.
#[derive(Clone, Copy)]
pub(crate) struct Place {
    /// Its world rank: the column of the window table.
    pub world: u32,
    /// Its rank on its own device.
    pub dev: u32,
    /// How to reach it.
    pub route: Route,
    /// Its `[ranks][TAGS]` notification counters, reachable from here
    /// (null through the host).
    pub counters: *mut u32,
}

/// The process holding world rank `world` (binary search: `peers` is sorted
/// by first rank). The caller checked that `world` is in the world.
#[inline(always)]
fn process_of(ctx: &RankContext, world: u32) -> Peer {
    let (mut lo, mut hi) = (0u32, ctx.processes);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        // SAFETY: `peers` has `processes` entries.
        if unsafe { (*ctx.peers.add(mid as usize)).first } <= world {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    // SAFETY: as above.
    unsafe { *ctx.peers.add(lo as usize) }
}

impl Rank {
    /// Finds rank `target` of `comm`, failing `call` if it is out of range.
    #[inline(always)]
    pub(crate) fn locate(&mut self, call: Call, comm: Comm, target: u32) -> Place {
        let ctx = *self.ctx();
        if target >= comm.size() {
            self.fail(
                call,
                Fault::RankOutOfRange,
                [target as u64, comm.size() as u64, 0, 0],
            );
        }
        let world = match comm.kind() {
            CommKind::Device => ctx.world_first + target,
            CommKind::World => target,
        };
        let dev = world.wrapping_sub(ctx.world_first);
        if dev < ctx.ranks {
            return Place {
                world,
                dev,
                route: Route::Local,
                counters: ctx.local_notifications,
            };
        }
        let peer = process_of(&ctx, world);
        Place {
            world,
            dev: world - peer.first,
            route: Route::from_u32(peer.route),
            counters: peer.notifications,
        }
    }
}
