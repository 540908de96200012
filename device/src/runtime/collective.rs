//! Collectives between the ranks of a communicator: `allreduce` and
//! `bcast` of one value, and `allreduce_into` of a slice.
//!
//! Inside a GPU the ranks meet in device memory: each writes its word to
//! its slot, the device barrier orders the writes before the reads, and
//! every rank reads every slot and combines them in the same fixed order,
//! so all ranks get the same bits (on the GPU and in the emulator alike).
//! Two parities of slots alternate: a rank writes a parity again only two
//! calls later, after the barrier of the call in between, which every rank
//! passes only once it has read the slots it needs.
//!
//! A slice is reduced in place of the ranks' own buffers, all in this
//! GPU's memory: each rank publishes its source and destination, then
//! reduces one chunk of the elements over every rank's source, in rank
//! order, and writes the result into every rank's destination: each rank
//! reads and writes about the length of one buffer, whatever the number of
//! ranks, and every rank gets the same bits.
//!
//! Across processes (a world communicator of a job) the next layer, between
//! the devices, is not built yet: such a call fails with a clear error
//! (docs/design.md, "Plan for collectives and messages").

use super::comm::Comm;
use super::Runtime;
use crate::abi::{Call, Fault, SLOT_WORDS};
use crate::arch::{self, Scope};
use crate::block::{Block, Max, ReduceOp, Reducible};
use crate::memory::{DeviceCopy, DeviceSlice};

/// Which parity of slots the next collective uses.
#[derive(Default)]
pub(crate) struct Collectives {
    parity: u32,
}

impl Runtime {
    /// Combines one value per rank of `comm` with `op`; every rank gets the
    /// result, bitwise the same on every rank.
    #[inline(always)]
    pub fn allreduce<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        value: T,
        _op: O,
    ) -> T {
        let slots = self.meet(block, Call::Allreduce, comm, [value.to_word(), 0, 0]);
        let (ranks, threads) = (comm.size() as usize, block.threads() as usize);
        // Thread t folds ranks t, t + threads, ... in order; the block
        // reduction then combines the threads in its fixed order.
        block.reduce(
            |t| {
                let mut acc = O::identity();
                let mut r = t.index() as usize;
                while r < ranks {
                    // SAFETY: slot r of this parity, written before the barrier.
                    let word = unsafe { arch::load_relaxed(record(slots, r), Scope::Gpu) };
                    acc = O::combine(acc, T::from_word(word));
                    r += threads;
                }
                acc
            },
            _op,
        )
    }

    /// Rank `root`'s `value`, on every rank of `comm`.
    #[inline(always)]
    pub fn bcast<T: Reducible>(&mut self, block: &mut Block, comm: Comm, root: u32, value: T) -> T {
        if root >= comm.size() {
            let values = [root as u64, comm.size() as u64, 0, 0];
            self.fail(block, Call::Bcast, Fault::RankOutOfRange, values);
        }
        let slots = self.meet(block, Call::Bcast, comm, [value.to_word(), 0, 0]);
        // SAFETY: the root's slot of this parity, written before the barrier.
        let word = unsafe { arch::load_relaxed(record(slots, root as usize), Scope::Gpu) };
        T::from_word(word)
    }

    /// `dst[i]` on every rank of `comm` becomes every rank's `src[i]`
    /// combined with `op`, in rank order. Every rank passes slices of one
    /// length, in this GPU's global memory; `src` and `dst` may be the same.
    #[inline(always)]
    pub fn allreduce_into<T: Reducible + DeviceCopy, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        (src, dst): (DeviceSlice<T>, DeviceSlice<T>),
        _op: O,
    ) {
        let call = Call::AllreduceInto;
        let n = src.len();
        if dst.len() != n {
            let values = [n as u64, dst.len() as u64, u64::MAX, 0];
            self.fail(block, call, Fault::LengthMismatch, values);
        }
        for s in [src.as_mut_ptr(), dst.as_mut_ptr()] {
            if n > 0 && !arch::is_global(s) {
                let values = [s as u64, comm.rank() as u64, 0, 0];
                self.fail(block, call, Fault::NotGlobal, values);
            }
        }
        let mine = [src.as_mut_ptr() as u64, dst.as_mut_ptr() as u64, n as u64];
        let slots = self.meet(block, call, comm, mine);
        let (ranks, threads) = (comm.size() as usize, block.threads() as usize);
        // The highest rank that disagrees on the length, plus one.
        let odd = block.reduce(
            |t| {
                let (mut r, mut found) = (t.index() as usize, 0u32);
                while r < ranks {
                    if word(slots, r, 2) != n as u64 {
                        found = r as u32 + 1;
                    }
                    r += threads;
                }
                found
            },
            Max,
        );
        if odd != 0 {
            let theirs = word(slots, odd as usize - 1, 2);
            let values = [n as u64, theirs, odd as u64 - 1, 0];
            self.fail(block, call, Fault::LengthMismatch, values);
        }
        let chunk = n.div_ceil(ranks.max(1));
        let start = (comm.rank() as usize * chunk).min(n);
        let end = (start + chunk).min(n);
        block.each_thread(|t| {
            let mut i = start + t.index() as usize;
            while i < end {
                let mut acc = O::identity();
                for q in 0..ranks {
                    // SAFETY: rank q's source of n elements, published before
                    // the barrier and unchanged until the barrier below.
                    acc = O::combine(acc, unsafe {
                        (word(slots, q, 0) as *const T).add(i).read()
                    });
                }
                for q in 0..ranks {
                    // SAFETY: rank q's destination; element i is this rank's
                    // alone to write.
                    unsafe { (word(slots, q, 1) as *mut T).add(i).write(acc) };
                }
                i += threads;
            }
        });
        // Every destination is complete, and no source is read any more.
        self.device_barrier_as(block, call);
    }

    /// Writes `words` to this rank's record of the next parity and waits
    /// until every rank of `comm` has written its own; returns the records.
    #[inline(always)]
    fn meet(&mut self, block: &mut Block, call: Call, comm: Comm, words: [u64; 3]) -> *mut u64 {
        if self.spans_processes(comm) {
            let values = [comm.size() as u64, self.ctx().processes as u64, 0, 0];
            self.fail(block, call, Fault::CollectiveAcrossProcesses, values);
        }
        let parity = self.collectives.parity;
        self.collectives.parity ^= 1;
        let ctx = self.ctx();
        let slots = (ctx.collective_slots as *mut u64)
            .wrapping_add(parity as usize * ctx.ranks as usize * SLOT_WORDS);
        let mine = record(slots, comm.rank() as usize);
        block.leader(|_| {
            for (k, w) in words.into_iter().enumerate() {
                // SAFETY: this rank's own record; the barrier publishes it.
                unsafe { arch::store_relaxed(mine.wrapping_add(k), w, Scope::Gpu) }
            }
        });
        self.device_barrier_as(block, call);
        slots
    }
}

/// Rank `r`'s record among `slots`.
#[inline(always)]
fn record(slots: *mut u64, r: usize) -> *mut u64 {
    slots.wrapping_add(r * SLOT_WORDS)
}

/// Word `k` of rank `r`'s record.
#[inline(always)]
fn word(slots: *mut u64, r: usize, k: usize) -> u64 {
    // SAFETY: a record of the run's slots, written before the barrier.
    unsafe { arch::load_relaxed(record(slots, r).wrapping_add(k), Scope::Gpu) }
}
