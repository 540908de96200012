//! The collectives of [`Rank`] over one value per rank: `allreduce`,
//! `reduce_to`, `bcast`, `scan_over` and `exscan_over` (slices:
//! [`slices`](super::slices)). Each is collective over its communicator
//! and delegates to the runtime.

use super::Rank;
use crate::abi::Call;
use crate::arch;
use crate::block::{ReduceOp, Reducible};
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
        self.traced(
            Call::Allreduce,
            (u32::MAX, core::mem::size_of::<T>() as u64),
            |r| r.rt.allreduce(&mut r.block, comm, value, op),
        )
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
        self.traced(Call::Bcast, (root, core::mem::size_of::<T>() as u64), |r| {
            r.rt.bcast(&mut r.block, comm, root, value)
        })
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
        self.traced(
            Call::ReduceTo,
            (root, core::mem::size_of::<T>() as u64),
            |r| r.rt.reduce_to(&mut r.block, comm, root, value, op),
        )
    }

    /// Ranks `0..=r`'s `value`s combined with `op`, on every rank `r` of
    /// `comm` (`MPI_Scan`; named so beside the block's own
    /// [`scan`](Self::scan) over threads). Collective over `comm`, with the
    /// same `op` on every rank. Inside a GPU each rank combines in the
    /// fixed order [`allreduce`](Self::allreduce) uses, so the last rank's
    /// result has the allreduce's bits. Across processes each rank first
    /// combines the values of its GPU's ranks, then its representative
    /// combines in the other processes' values as they arrive: a fixed
    /// order, but not rank order, so use an op for which the order does
    /// not matter (`Sum` of integers, `Min`, `Max`, the bitwise ops).
    #[inline(always)]
    #[track_caller]
    pub fn scan_over<T: Reducible, O: ReduceOp<T>>(&mut self, comm: Comm, value: T, op: O) -> T {
        arch::block::enter_call(
            "scan_over",
            [("comm", comm.context() as u64), ("value", value.to_word())],
        );
        let size = core::mem::size_of::<T>() as u64;
        let v = self.traced(Call::Scan, (u32::MAX, size), |r| {
            r.rt.scan(&mut r.block, comm, value, (op, true))
        });
        v.unwrap_or_else(O::identity)
    }

    /// Ranks `0..r`'s `value`s combined with `op` in rank order, on every
    /// rank `r` of `comm`, and `None` on rank 0 (`MPI_Exscan`, whose rank 0
    /// gets nothing defined). As [`scan_over`](Self::scan_over) otherwise.
    #[inline(always)]
    #[track_caller]
    pub fn exscan_over<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        comm: Comm,
        value: T,
        op: O,
    ) -> Option<T> {
        arch::block::enter_call(
            "exscan_over",
            [("comm", comm.context() as u64), ("value", value.to_word())],
        );
        let size = core::mem::size_of::<T>() as u64;
        self.traced(Call::Exscan, (u32::MAX, size), |r| {
            r.rt.scan(&mut r.block, comm, value, (op, false))
        })
    }
}
