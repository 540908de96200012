//! The collectives of [`Rank`] between the ranks of a communicator:
//! `allreduce`, `reduce_to`, `bcast` of one value and `allreduce_into` of
//! slices. Each is collective over its communicator and delegates to the
//! runtime.

use super::Rank;
use crate::arch;
use crate::block::{ReduceOp, Reducible};
use crate::memory::{DeviceCopy, DeviceSlice};
use crate::runtime::Comm;

impl Rank {
    /// Combines one `value` per rank of `comm` with `op` (`Sum`, `Min`,
    /// `Max`, `Prod`, the bitwise ops, or your own `ReduceOp`); every rank
    /// gets the result, the same bits on every rank. Collective over
    /// `comm`: every rank of it calls it, with the same `op`. Across
    /// processes the ranks of each GPU combine first, then the GPUs'
    /// leaders, in `log2(processes)` steps.
    #[inline(always)]
    #[track_caller]
    pub fn allreduce<T: Reducible, O: ReduceOp<T>>(&mut self, comm: Comm, value: T, op: O) -> T {
        arch::block::enter_call(
            "allreduce",
            [("comm", comm.context() as u64), ("value", value.to_word())],
        );
        self.rt.allreduce(&mut self.block, comm, value, op)
    }

    /// Element by element, every rank's `src` combined with `op` in rank
    /// order, written to `dst` on every rank of `comm`: the same bits on
    /// every rank. Collective over `comm`, with the same `op` and the same
    /// length on every rank; `src` and `dst` are global memory and may be
    /// the same slice, but the destinations of different ranks must not
    /// overlap. Each rank reads and writes about one buffer's length,
    /// however many ranks there are. Across processes each GPU's
    /// representative (the communicator's lowest rank there) moves the
    /// vector between GPUs: for large vectors, reduce parts of a buffer
    /// over communicators with one rank per GPU, so all ranks move data.
    #[inline(always)]
    #[track_caller]
    pub fn allreduce_into<T: Reducible + DeviceCopy, O: ReduceOp<T>>(
        &mut self,
        comm: Comm,
        src: DeviceSlice<T>,
        dst: DeviceSlice<T>,
        op: O,
    ) {
        arch::block::enter_call(
            "allreduce_into",
            [
                ("comm", comm.context() as u64),
                ("source", src.as_mut_ptr() as u64),
                ("destination", dst.as_mut_ptr() as u64),
                ("count", src.len() as u64),
            ],
        );
        self.rt
            .allreduce_into(&mut self.block, comm, (src, dst), op)
    }

    /// Rank `root`'s `value`, on every rank of `comm` (the others' `value`
    /// is ignored). Collective over `comm`, with the same `root` on every
    /// rank; across processes it runs as [`allreduce`](Self::allreduce).
    #[inline(always)]
    #[track_caller]
    pub fn bcast<T: Reducible>(&mut self, comm: Comm, root: u32, value: T) -> T {
        arch::block::enter_call(
            "bcast",
            [
                ("comm", comm.context() as u64),
                ("root", root as u64),
                ("value", value.to_word()),
            ],
        );
        self.rt.bcast(&mut self.block, comm, root, value)
    }

    /// Every rank's `value` combined with `op` (as
    /// [`allreduce`](Self::allreduce)), returned on rank `root` of `comm`
    /// only (`None` on the others), as `MPI_Reduce`. Collective over
    /// `comm`, with the same `root` and `op` on every rank. It costs what an
    /// `allreduce` costs: inside a GPU every rank reads the others' values
    /// anyway.
    #[inline(always)]
    #[track_caller]
    pub fn reduce_to<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        comm: Comm,
        root: u32,
        value: T,
        op: O,
    ) -> Option<T> {
        arch::block::enter_call(
            "reduce_to",
            [
                ("comm", comm.context() as u64),
                ("root", root as u64),
                ("value", value.to_word()),
            ],
        );
        self.rt.reduce_to(&mut self.block, comm, root, value, op)
    }
}
