//! The block-collective operations: reduction, scan and broadcast from one
//! thread. The combining order is defined once, as warp-sized steps:
//!
//! * reduce: a butterfly within each warp (`v = op(v, v ^ offset)` for
//!   offsets 16, 8, 4, 2, 1), lane 0's result per warp, then the same
//!   butterfly over the warp results;
//! * scan: Hillis-Steele within each warp (`v = op(v[lane - d], v)` for
//!   d = 1, 2, 4, 8, 16), then warp totals folded left to right in front.
//!
//! The steps are written once on [`PerThread`] values; the GPU runs them
//! with warp shuffles, the emulator over arrays, so results are bitwise
//! identical.

use super::{Block, PerThread, ReduceOp, Reducible, Thread, WARP};
use crate::arch::block::{barrier, each_thread, Shuffle};

/// Offsets of the butterfly, in order.
const BUTTERFLY: [u32; 5] = [16, 8, 4, 2, 1];
/// Distances of the scan steps, in order.
const SCAN_STEPS: [u32; 5] = [1, 2, 4, 8, 16];
/// First of the two scratch slots that carry a leader's result to the block.
const BROADCAST_SLOT: usize = WARP as usize;

crate::shared_array!(static DCUDA_RANK_SCRATCH: [u64; 34]);

/// Combines `v` over each warp; every lane gets lane 0's result.
#[inline(always)]
fn warp_reduce<T: Reducible, O: ReduceOp<T>>(threads: u32, mut v: PerThread<T>) -> PerThread<T> {
    for offset in BUTTERFLY {
        let other = v.exchange(threads, Shuffle::Xor(offset));
        v = v.map(threads, |t, x| O::combine(x, other.get(t)));
    }
    v.exchange(threads, Shuffle::Index(0))
}

impl Block {
    /// Combines one value per thread with `op`; every thread gets the
    /// same result.
    #[inline(always)]
    pub fn reduce<T: Reducible, O: ReduceOp<T>>(&mut self, f: impl Fn(&Thread) -> T, _op: O) -> T {
        let threads = self.threads;
        let warps = threads / WARP;
        let partial = warp_reduce::<T, O>(threads, PerThread::from_fn(threads, f));
        if warps == 1 {
            return partial.uniform();
        }
        each_thread(threads, |t| {
            if t.lane() == 0 {
                DCUDA_RANK_SCRATCH.set(t.warp() as usize, partial.get(t).to_word());
            }
        });
        barrier();
        let lanes = PerThread::from_fn(threads, |t| {
            if t.lane() < warps {
                T::from_word(DCUDA_RANK_SCRATCH.get(t.lane() as usize))
            } else {
                O::identity()
            }
        });
        let total = warp_reduce::<T, O>(threads, lanes);
        // The scratch array is reused by the next collective.
        barrier();
        total.uniform()
    }

    /// Inclusive scan of one value per thread with `op`.
    #[inline(always)]
    pub fn scan<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        f: impl Fn(&Thread) -> T,
        _op: O,
    ) -> PerThread<T> {
        let threads = self.threads;
        let warps = threads / WARP;
        let mut v = PerThread::from_fn(threads, f);
        for d in SCAN_STEPS {
            let before = v.exchange(threads, Shuffle::Up(d));
            v = v.map(threads, |t, x| {
                if t.lane() >= d {
                    O::combine(before.get(t), x)
                } else {
                    x
                }
            });
        }
        if warps == 1 {
            return v;
        }
        each_thread(threads, |t| {
            if t.lane() == WARP - 1 {
                DCUDA_RANK_SCRATCH.set(t.warp() as usize, v.get(t).to_word());
            }
        });
        barrier();
        let v = v.map(threads, |t, x| {
            let warp = t.warp();
            if warp == 0 {
                return x;
            }
            let mut prefix = T::from_word(DCUDA_RANK_SCRATCH.get(0));
            for w in 1..warp {
                prefix = O::combine(prefix, T::from_word(DCUDA_RANK_SCRATCH.get(w as usize)));
            }
            O::combine(prefix, x)
        });
        barrier();
        v
    }

    /// Runs `f` on thread 0 and gives its result to every thread, with one
    /// barrier. The two broadcast slots alternate: a slot is written again
    /// only two leader operations later, after every thread has passed the
    /// barrier that follows its read.
    #[inline(always)]
    pub fn single<T: Reducible>(&mut self, f: impl FnOnce(&Thread) -> T) -> T {
        let slot = BROADCAST_SLOT + self.flip as usize;
        self.flip ^= 1;
        if let Some(v) = self.leader(f) {
            DCUDA_RANK_SCRATCH.set(slot, v.to_word());
        }
        barrier();
        T::from_word(DCUDA_RANK_SCRATCH.get(slot))
    }
}
