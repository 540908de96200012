//! Collectives between the ranks of a communicator: `allreduce` and
//! `bcast` of one value.
//!
//! Inside a GPU the ranks meet in device memory: each writes its word to
//! its slot, the device barrier orders the writes before the reads, and
//! every rank reads every slot and combines them in the same fixed order,
//! so all ranks get the same bits (on the GPU and in the emulator alike).
//! Two parities of slots alternate: a rank writes a parity again only two
//! calls later, after the barrier of the call in between, which every rank
//! passes only once it has read the slots it needs.
//!
//! Across processes (a world communicator of a job) the next layer, between
//! the devices, is not built yet: such a call fails with a clear error
//! (docs/design.md, "Plan for collectives and messages").

use super::comm::Comm;
use super::Runtime;
use crate::abi::{Call, Fault};
use crate::arch::{self, Scope};
use crate::block::{Block, ReduceOp, Reducible};

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
        let slots = self.meet(block, Call::Allreduce, comm, value.to_word());
        let (ranks, threads) = (comm.size() as usize, block.threads() as usize);
        // Thread t folds ranks t, t + threads, ... in order; the block
        // reduction then combines the threads in its fixed order.
        block.reduce(
            |t| {
                let mut acc = O::identity();
                let mut r = t.index() as usize;
                while r < ranks {
                    // SAFETY: slot r of this parity, written before the barrier.
                    let word = unsafe { arch::load_relaxed(slots.wrapping_add(r), Scope::Gpu) };
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
        let slots = self.meet(block, Call::Bcast, comm, value.to_word());
        // SAFETY: the root's slot of this parity, written before the barrier.
        let word = unsafe { arch::load_relaxed(slots.wrapping_add(root as usize), Scope::Gpu) };
        T::from_word(word)
    }

    /// Writes `word` to this rank's slot of the next parity and waits until
    /// every rank of `comm` has written its own; returns the slots.
    #[inline(always)]
    fn meet(&mut self, block: &mut Block, call: Call, comm: Comm, word: u64) -> *mut u64 {
        if self.spans_processes(comm) {
            let values = [comm.size() as u64, self.ctx().processes as u64, 0, 0];
            self.fail(block, call, Fault::CollectiveAcrossProcesses, values);
        }
        let parity = self.collectives.parity;
        self.collectives.parity ^= 1;
        let ctx = self.ctx();
        let slots =
            (ctx.collective_slots as *mut u64).wrapping_add(parity as usize * ctx.ranks as usize);
        let mine = slots.wrapping_add(comm.rank() as usize);
        block.leader(|_| {
            // SAFETY: this rank's own slot; the barrier publishes it.
            unsafe { arch::store_relaxed(mine, word, Scope::Gpu) }
        });
        self.device_barrier_as(block, call);
        slots
    }
}
