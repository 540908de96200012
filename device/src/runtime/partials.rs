//! The devices' partial results of a split-phase allreduce over processes
//! whose GPUs map each other's memory. Every rank combines its device's
//! records at its finish; the first of each device to claim it there
//! writes the result, its partial, into every device's partials: one value and one flag per process, per parity of
//! each communicator slot, in the memory of the communicator's lead
//! there, which peers map ([`partial_span`](crate::abi::partial_span)).
//! At its finish each rank waits for every process's flag and combines
//! the partials itself, in the order of the leaders' recursive doubling,
//! so its bits are those of the blocking allreduce.
//!
//! The last rank of a device to read a parity's partials clears its flags
//! and the claim (a count of readers comes first in the span). Another process writes
//! that parity again only at the second split-phase allreduce after, which
//! it combines only after this device's partial of the one in between,
//! which this device writes only after every rank here has started that
//! one, so finished (and cleared) this one.

use super::comm::Comm;
use super::route::process_index;
use super::wait::{abort_exit, poll};
use super::Runtime;
use crate::abi::{Call, Route};
use crate::arch::{self, Ordering, Scope};
use crate::block::{Block, ReduceOp, Reducible};

/// Levels of the combining tree: `log2(MAX_SPANNED) + 1`.
const LEVELS: usize = 7;

impl Runtime {
    /// Whether every other process of `comm` is reached directly (their
    /// GPUs and this one map each other's memory). Routes are mutual, so
    /// every rank of `comm` decides the same.
    #[inline(always)]
    pub(super) fn partials_mapped(&self, comm: Comm) -> bool {
        let ctx = self.ctx();
        let me = self.rep_index(comm);
        (0..comm.rec.reps).all(|q| {
            let world = self.rep_world_rank(comm, q);
            // SAFETY: `world` is a rank of the job, so its process is in the table.
            q == me || unsafe { (*ctx.peer(process_index(ctx, world))).route() } == Route::Direct
        })
    }

    /// Writes this device's `partial` of the allreduce of `parity` over
    /// `comm` into every process's partials, its own included (leader
    /// thread).
    #[inline(always)]
    pub(super) fn publish_partial(&self, block: &Block, comm: Comm, parity: u32, partial: u64) {
        let ctx = self.ctx();
        let me = self.rep_index(comm) as usize;
        block.leader(|_| {
            for q in 0..comm.rec.reps {
                let world = self.rep_world_rank(comm, q);
                let p = process_index(ctx, world);
                // SAFETY: `world` is a rank of the job; its entry is in the table.
                let peer = unsafe { *ctx.peer(p) };
                // The communicator's lead there (the representative).
                let lead = world - peer.first;
                let (span, scope) = if peer.route() == Route::Direct {
                    (peer.partials(lead, comm.slot, parity), Scope::System)
                } else {
                    (ctx.partials(lead, comm.slot, parity), Scope::Gpu)
                };
                let at = span.wrapping_add(2 + 2 * me);
                // SAFETY: this process's entry of that device's partials,
                // mapped for the run; nothing reads it before the flag.
                unsafe {
                    arch::store_relaxed(at, partial, scope);
                    arch::store_release(at.wrapping_add(1), 1, scope);
                }
            }
        });
    }

    /// Writes this device's `partial` of the allreduce of `parity` over
    /// `comm` into every process's partials if no rank here has: the first
    /// to claim it (every rank here computed the same bits).
    #[inline(always)]
    pub(super) fn publish_first(&self, block: &Block, comm: Comm, parity: u32, partial: u64) {
        let claim = self
            .ctx()
            .partials(comm.rec.lead, comm.slot, parity)
            .wrapping_add(1);
        // SAFETY: the claim word of this device's span, cleared with its
        // flags by the last reader.
        let first =
            block.leader(|_| unsafe { arch::fetch_add(claim, 1, Ordering::Relaxed, Scope::Gpu) });
        if first == Some(0) {
            self.publish_partial(block, comm, parity, partial);
        }
    }

    /// Waits for every process's partial of the allreduce of `parity` over
    /// `comm` (`ranks`: `comm`'s ranks here) and combines them with `O`;
    /// the last rank here to read them clears their flags.
    #[inline(always)]
    pub(super) fn await_partials<T: Reducible, O: ReduceOp<T>>(
        &self,
        block: &mut Block,
        comm: Comm,
        (parity, ranks): (u32, u32),
        call: Call,
    ) -> T {
        let ctx = self.ctx();
        let span = ctx.partials(comm.rec.lead, comm.slot, parity);
        let reps = comm.rec.reps;
        let flag = |q: u32| span.wrapping_add(3 + 2 * q as usize);
        let status = ctx.status(block.id());
        let word = block.single(|_| {
            let arrived = poll(ctx, status, call, [reps, 0, 0], || {
                // SAFETY: the flags of this device's partials; a peer's
                // release or this device's published them.
                match (0..reps)
                    .find(|&q| unsafe { arch::load_acquire(flag(q), Scope::System) } == 0)
                {
                    None => Ok(()),
                    Some(q) => Err(q),
                }
            });
            if arrived.is_none() {
                return u64::MAX;
            }
            // SAFETY: each value was written before its flag, seen above.
            let value = |q: u32| {
                T::from_word(unsafe {
                    arch::load_relaxed(span.wrapping_add(2 + 2 * q as usize), Scope::System)
                })
            };
            let result = doubling::<T, O>(reps, value).to_word();
            // SAFETY: the count of readers of this span; the last one
            // clears the flags for the parity's next use.
            unsafe {
                if arch::fetch_add(span, 1, Ordering::AcqRel, Scope::Gpu) == ranks as u64 - 1 {
                    for q in 0..reps {
                        arch::store_relaxed(flag(q), 0, Scope::Gpu);
                    }
                    arch::store_relaxed(span.wrapping_add(1), 0, Scope::Gpu);
                    arch::store_relaxed(span, 0, Scope::Gpu);
                }
            }
            result
        });
        // All ones: the run was aborted, or a result of all ones; only then
        // is the flag loaded.
        // SAFETY: the flag lives for the run.
        if word == u64::MAX && unsafe { arch::load_relaxed(ctx.abort(), Scope::Gpu) } != 0 {
            abort_exit()
        }
        T::from_word(word)
    }
}

/// `value(0) .. value(n)` (`2 <= n <= 64`) combined with `O` in the order
/// of the leaders' recursive doubling: each of the first `m` (the largest
/// power of two up to `n`) folds in the one `m` above it, then a balanced
/// tree over those `m`, lower first.
#[inline(always)]
fn doubling<T: Reducible, O: ReduceOp<T>>(n: u32, value: impl Fn(u32) -> T) -> T {
    let m = 1u32 << (31 - n.leading_zeros());
    let mut levels = [O::identity(); LEVELS];
    for i in 0..m {
        let mut x = value(i);
        if i + m < n {
            x = O::combine(x, value(i + m));
        }
        // A binary counter: a carry at each level pairs two equal subtrees.
        let (mut level, mut j) = (0, i);
        while j & 1 == 1 {
            x = O::combine(levels[level], x);
            level += 1;
            j >>= 1;
        }
        levels[level] = x;
    }
    levels[m.trailing_zeros() as usize]
}

#[cfg(test)]
mod tests {
    extern crate std;
    use super::doubling;
    use crate::block::{ReduceOp, Sum};
    use std::vec::Vec;

    /// The order of the leaders' recursive doubling, written out.
    fn by_doubling(v: &[f64]) -> f64 {
        let n = v.len();
        let m = 1 << (usize::BITS - 1 - n.leading_zeros());
        let mut w: Vec<f64> = (0..m)
            .map(|p| {
                if p + m < n {
                    Sum::combine(v[p], v[p + m])
                } else {
                    v[p]
                }
            })
            .collect();
        let mut k = 1;
        while k < m {
            for p in 0..m {
                let partner = p ^ k;
                if p < partner {
                    let c = Sum::combine(w[p], w[partner]);
                    (w[p], w[partner]) = (c, c);
                }
            }
            k <<= 1;
        }
        w[0]
    }

    #[test]
    fn doubling_combines_in_the_leaders_order() {
        for n in 2..=64usize {
            // Values whose sums round differently in different orders.
            let v: Vec<f64> = (0..n)
                .map(|i| 1.0 / (i as f64 + 3.0) * 1e16f64.powi((i % 3) as i32 - 1))
                .collect();
            let got = doubling::<f64, Sum>(n as u32, |q| v[q as usize]);
            assert_eq!(got.to_bits(), by_doubling(&v).to_bits(), "n = {n}");
        }
    }
}
