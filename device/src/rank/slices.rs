//! The collectives of [`Rank`] over slices of device memory:
//! `allreduce_into`, `reduce_scatter_into`, `allgather_into`,
//! `gather_into`, `scatter_from` and `alltoall_into`. Each is collective
//! over its communicator and delegates to the runtime.
//!
//! Chunk `j` of a buffer of `size * n` elements is its elements
//! `j * n .. (j + 1) * n`. Every rank passes the same `n` and element type
//! (a mismatch is an error naming the rank), and its buffers
//! are global memory (other ranks and the host reach them); a rank's
//! buffers stay untouched by it until the call returns, and no two ranks'
//! destinations overlap.

use super::Rank;
use crate::abi::Call;
use crate::arch;
use crate::block::{ReduceOp, Reducible};
use crate::memory::{DeviceCopy, DeviceSlice};
use crate::runtime::Comm;

/// What the emulator compares between the threads of a call over slices.
#[inline(always)]
#[track_caller]
fn enter<T: DeviceCopy>(
    name: &'static str,
    comm: Comm,
    root: u32,
    (src, dst): (DeviceSlice<T>, DeviceSlice<T>),
) {
    arch::block::enter_call(
        name,
        [
            ("comm", comm.context() as u64),
            ("root", root as u64),
            ("source", src.as_mut_ptr() as u64),
            ("destination", dst.as_mut_ptr() as u64),
            // Five values at most: both lengths in one.
            ("lengths", ((src.len() as u64) << 32) | dst.len() as u64),
        ],
    );
}

impl Rank {
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
        enter("allreduce_into", comm, 0, (src, dst));
        self.traced(Call::AllreduceInto, (u32::MAX, src.bytes() as u64), |r| {
            r.rt.allreduce_into(&mut r.block, comm, (src, dst), op)
        })
    }

    /// Chunk `r` of every rank's `src` (`size * n` elements) combined with
    /// `op`, in the `dst` (`n` elements) of every rank `r` of `comm`
    /// (`MPI_Reduce_scatter_block`). Collective over `comm`, with the same
    /// `op` and `n` on every rank. Inside a GPU each rank combines its own
    /// chunk in rank order. Across processes the ranks of each GPU are
    /// combined first, then the other GPUs' ranks' chunks as they arrive
    /// (a fixed order, but not rank order: use an op for which the order
    /// does not matter, as `Sum` of integers, `Min`, `Max`).
    #[inline(always)]
    #[track_caller]
    pub fn reduce_scatter_into<T: Reducible + DeviceCopy, O: ReduceOp<T>>(
        &mut self,
        comm: Comm,
        src: DeviceSlice<T>,
        dst: DeviceSlice<T>,
        op: O,
    ) {
        enter("reduce_scatter_into", comm, 0, (src, dst));
        self.traced(Call::ReduceScatter, (u32::MAX, src.bytes() as u64), |r| {
            r.rt.reduce_scatter_into(&mut r.block, comm, (src, dst), op)
        })
    }

    /// Every rank's `src` (`n` elements), in rank order, in every rank's
    /// `dst` (`size * n` elements): `MPI_Allgather`. Collective over
    /// `comm`, with the same `n` on every rank. Across processes each GPU's
    /// representative passes the chunks around a ring of GPUs straight into
    /// its destination, and the other ranks there copy it.
    #[inline(always)]
    #[track_caller]
    pub fn allgather_into<T: DeviceCopy>(
        &mut self,
        comm: Comm,
        src: DeviceSlice<T>,
        dst: DeviceSlice<T>,
    ) {
        enter("allgather_into", comm, 0, (src, dst));
        self.traced(Call::Allgather, (u32::MAX, src.bytes() as u64), |r| {
            r.rt.allgather_into(&mut r.block, comm, (src, dst))
        })
    }

    /// Every rank's `src` (`n` elements), in rank order, in rank `root`'s
    /// `dst` (`size * n` elements; the other ranks' `dst` is not used, an
    /// empty slice will do): `MPI_Gather`. Collective over `comm`, with the
    /// same `root` and `n` on every rank.
    #[inline(always)]
    #[track_caller]
    pub fn gather_into<T: DeviceCopy>(
        &mut self,
        comm: Comm,
        root: u32,
        src: DeviceSlice<T>,
        dst: DeviceSlice<T>,
    ) {
        enter("gather_into", comm, root, (src, dst));
        self.traced(Call::Gather, (root, src.bytes() as u64), |r| {
            r.rt.gather_into(&mut r.block, comm, root, (src, dst))
        })
    }

    /// Chunk `r` of rank `root`'s `src` (`size * n` elements; the other
    /// ranks' `src` is not used, an empty slice will do) in the `dst` (`n`
    /// elements) of every rank `r`: `MPI_Scatter`. Collective over `comm`,
    /// with the same `root` and `n` on every rank.
    #[inline(always)]
    #[track_caller]
    pub fn scatter_from<T: DeviceCopy>(
        &mut self,
        comm: Comm,
        root: u32,
        src: DeviceSlice<T>,
        dst: DeviceSlice<T>,
    ) {
        enter("scatter_from", comm, root, (src, dst));
        self.traced(Call::Scatter, (root, dst.bytes() as u64), |r| {
            r.rt.scatter_from(&mut r.block, comm, root, (src, dst))
        })
    }

    /// Chunk `r` of every rank `j`'s `src` in chunk `j` of rank `r`'s `dst`
    /// (both `size * n` elements): `MPI_Alltoall`. Collective over `comm`,
    /// with the same `n` on every rank. Across processes each GPU's
    /// representative sends every other GPU, one step each, the chunks its
    /// ranks have for that GPU's ranks.
    #[inline(always)]
    #[track_caller]
    pub fn alltoall_into<T: DeviceCopy>(
        &mut self,
        comm: Comm,
        src: DeviceSlice<T>,
        dst: DeviceSlice<T>,
    ) {
        enter("alltoall_into", comm, 0, (src, dst));
        self.traced(Call::Alltoall, (u32::MAX, src.bytes() as u64), |r| {
            r.rt.alltoall_into(&mut r.block, comm, (src, dst))
        })
    }
}
