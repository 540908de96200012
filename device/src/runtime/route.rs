//! Where a rank lives and how to reach it: on this device, on a GPU whose
//! memory is mapped here, or through the host's network.
//!
//! World ranks are numbered process by process; each process knows the
//! first world rank and the rank count of every process (`peers`).

use super::comm::Comm;
use super::Runtime;
use crate::abi::{Call, Fault, Peer, RankContext, Route};
use crate::block::Block;

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
    /// (unused through the host).
    pub counters: u64,
}

impl Place {
    /// Its counter of `tag`.
    #[inline(always)]
    pub fn counter(&self, tag: u32) -> *mut u32 {
        (self.counters as *mut u32).wrapping_add(crate::abi::counter_index(self.dev, tag))
    }
}

/// The process holding world rank `world` (binary search: `peers` is sorted
/// by first rank). The caller checked that `world` is in the world.
#[inline(always)]
pub(super) fn process_of(ctx: &RankContext, world: u32) -> Peer {
    // SAFETY: an index in the peer table.
    unsafe { *ctx.peer(process_index(ctx, world)) }
}

/// The index of the process holding world rank `world`.
#[inline(always)]
pub(crate) fn process_index(ctx: &RankContext, world: u32) -> u32 {
    let (mut lo, mut hi) = (0u32, ctx.processes);
    while hi - lo > 1 {
        let mid = (lo + hi) / 2;
        // SAFETY: `peers` has `processes` entries.
        if unsafe { (*ctx.peer(mid)).first } <= world {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

impl Runtime {
    /// Finds rank `target` of `comm`, failing `call` if it is out of range.
    #[inline(always)]
    pub fn locate(&self, block: &mut Block, call: Call, comm: Comm, target: u32) -> Place {
        // A freed communicator's table part may belong to another by now.
        self.check_comm(block, call, comm);
        if target >= comm.size() {
            self.fail(
                block,
                call,
                Fault::RankOutOfRange,
                [target as u64, comm.size() as u64, 0, 0],
            );
        }
        let world = self.world_rank(comm, target);
        let ctx = self.ctx();
        let dev = world.wrapping_sub(ctx.world_first);
        if dev < ctx.ranks {
            return Place {
                world,
                dev,
                route: Route::Local,
                counters: ctx.local_notifications,
            };
        }
        let peer = process_of(ctx, world);
        Place {
            world,
            dev: world - peer.first,
            route: peer.route(),
            counters: peer.notifications,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The world tests run at most four processes (whose records a rank
    /// keeps in shared memory): a larger job's table is searched here.
    #[test]
    fn a_job_of_many_processes_finds_each_rank_in_the_table() {
        let firsts = [0u32, 3, 5, 6, 10, 17, 18, 30, 31, 40, 44, 52];
        let total = 60;
        let table: [Peer; 12] = core::array::from_fn(|p| Peer {
            first: firsts[p],
            ranks: firsts.get(p + 1).unwrap_or(&total) - firsts[p],
            route: (p % 3) as u32,
            node: p as u32 / 4,
            ..Peer::default()
        });
        let ctx = RankContext {
            processes: firsts.len() as u32,
            peers: table.as_ptr() as u64,
            ..RankContext::default()
        };
        for world in 0..total {
            let p = process_index(&ctx, world) as usize;
            let found = process_of(&ctx, world);
            assert!(found.first <= world && world < found.first + found.ranks);
            assert_eq!((found.first, found.node), (firsts[p], p as u32 / 4));
            assert_eq!(found.route, (p % 3) as u32);
        }
    }
}
