//! The split-phase allreduce of [`Rank`]: `allreduce_start` and
//! `allreduce_finish`, `MPI_Iallreduce` and `MPI_Wait` in one call each.

use super::Rank;
use crate::abi::Call;
use crate::arch;
use crate::block::{ReduceOp, Reducible};
use crate::runtime::split_phase::Started;
use crate::runtime::Comm;
use core::marker::PhantomData;

/// An allreduce that [`Rank::allreduce_start`] started: give it to
/// [`Rank::allreduce_finish`] for the result. Until then its rank may call
/// no other collective, barrier or window call; a rank body that ends
/// with one pending fails.
#[must_use = "finish it with Rank::allreduce_finish: a rank that ends with one pending fails"]
pub struct PendingAllreduce<T, O> {
    started: Started,
    op: O,
    _value: PhantomData<T>,
}

impl Rank {
    /// Starts combining one `value` per rank of `comm` with `op`, as
    /// [`allreduce`](Self::allreduce) does, and returns at once:
    /// [`allreduce_finish`](Self::allreduce_finish) waits for the result.
    /// The work in between hides the meeting of the ranks and the exchange
    /// between GPUs, as `MPI_Iallreduce` lets it (Jacobi's norm of one
    /// iteration, finished after the next sweep). Collective over `comm`,
    /// with the same `op` on every rank.
    ///
    /// One allreduce may be pending per rank; while it is, the rank may
    /// call no other collective, barrier or window call (they share its
    /// records): that, or a rank body that ends with one pending, is an
    /// error naming the call. Point-to-point calls (puts, notifications,
    /// waits, messages) are free.
    #[inline(always)]
    #[track_caller]
    pub fn allreduce_start<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        comm: Comm,
        value: T,
        op: O,
    ) -> PendingAllreduce<T, O> {
        arch::block::enter_call(
            "allreduce_start",
            [("comm", comm.context() as u64), ("value", value.to_word())],
        );
        let size = core::mem::size_of::<T>() as u64;
        let started = self.traced(Call::AllreduceStart, (u32::MAX, size), |r| {
            r.rt.allreduce_start(&mut r.block, comm, value)
        });
        PendingAllreduce {
            started,
            op,
            _value: PhantomData,
        }
    }

    /// The result of the allreduce `pending` (every rank's value combined
    /// with its `op`, the same bits on every rank and the same as
    /// [`allreduce`](Self::allreduce)'s), once every rank of its
    /// communicator has started it.
    #[inline(always)]
    #[track_caller]
    pub fn allreduce_finish<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        pending: PendingAllreduce<T, O>,
    ) -> T {
        arch::block::enter_call("allreduce_finish", []);
        let size = core::mem::size_of::<T>() as u64;
        let PendingAllreduce { started, op, .. } = pending;
        self.traced(Call::AllreduceFinish, (u32::MAX, size), |r| {
            r.rt.allreduce_finish(&mut r.block, started, op)
        })
    }
}
