//! The split-phase allreduce (`MPI_Iallreduce`, then `MPI_Wait`): the
//! start writes the rank's value into its record and arrives at its
//! communicator's barrier on this device without waiting; the finish
//! waits. The lead (the communicator's lowest rank here) arrives last, at
//! its finish: it waits for the others' arrivals, combines the records
//! here, exchanges with the other processes' leads and only then flips
//! the barrier, so whatever a rank does between start and finish hides the
//! meeting and the exchange between GPUs.
//!
//! A pending allreduce holds the records' parity and the barrier word of
//! its communicator, which every other collective, barrier and window call
//! of this device uses too: while one is pending, its rank may start none
//! (an error naming the call), and a rank body may not end with one.

use super::collective::{record, word};
use super::comm::Comm;
use super::sync::{COUNT, FLIP};
use super::Runtime;
use crate::abi::{Call, Fault};
use crate::arch::{self, Ordering, Scope};
use crate::block::{Block, ReduceOp, Reducible};

/// Whether this rank has a split-phase allreduce pending.
#[derive(Default)]
pub(crate) struct SplitPhase {
    pending: bool,
}

/// A started allreduce, as the runtime needs it at the finish.
#[derive(Clone, Copy)]
pub(crate) struct Started {
    comm: Comm,
    /// The records of its parity; null for a rank alone on its device in
    /// a communicator that spans processes (it only exchanges).
    slots: *mut u64,
    /// The barrier's phase at this rank's arrival (non-leads).
    phase: u32,
    /// This rank's value.
    value: u64,
}

impl Runtime {
    /// Fails with `call` if a split-phase allreduce is pending: the
    /// collectives, barriers and window calls of its device share its
    /// records and barrier word.
    #[inline(always)]
    pub(super) fn check_none_pending(&mut self, block: &mut Block, call: Call) {
        if self.split_phase.pending {
            self.collective_pending(block, call)
        }
    }

    /// The failure of [`check_none_pending`](Self::check_none_pending),
    /// out of line: inlined into every collective it grew Jacobi's rank
    /// kernel's stack frame by 56 bytes.
    #[cold]
    #[inline(never)]
    fn collective_pending(&mut self, block: &mut Block, call: Call) -> ! {
        self.fail(block, call, Fault::CollectivePending, [0; 4])
    }

    /// Starts an allreduce of `value` over `comm`: writes it and arrives,
    /// without waiting for any other rank.
    #[inline(always)]
    pub fn allreduce_start<T: Reducible>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        value: T,
    ) -> Started {
        let call = Call::AllreduceStart;
        self.check_none_pending(block, call);
        let value = value.to_word();
        let mut started = Started {
            comm,
            slots: core::ptr::null_mut(),
            phase: 0,
            value,
        };
        if !self.alone_here(block, comm, call) {
            started.slots = self.write_record(block, comm, call, [value, 0, 0]);
            let ((bar, ranks), lead) = self.barrier_word(block, comm);
            if !lead && ranks > 1 {
                // The record's store and this add are the leader thread's:
                // the release orders them.
                // SAFETY: the barrier word lives for the whole run.
                started.phase = block.single(|_| unsafe {
                    arch::fetch_add(bar, 1, Ordering::AcqRel, Scope::Gpu) & FLIP
                });
            }
        }
        self.split_phase.pending = true;
        started
    }

    /// Finishes the allreduce `s` with `op`: the result, the same bits on
    /// every rank.
    #[inline(always)]
    pub fn allreduce_finish<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        s: Started,
        op: O,
    ) -> T {
        let call = Call::AllreduceFinish;
        self.split_phase.pending = false;
        let comm = s.comm;
        if s.slots.is_null() {
            return self.alone_allreduce::<T, O>(block, comm, call, T::from_word(s.value));
        }
        let ((bar, ranks), lead) = self.barrier_word(block, comm);
        let lead_rank = comm.rec.lead as usize;
        if !lead {
            self.wait_until(block, call, [ranks, 0, 0], || {
                // SAFETY: the barrier word lives for the whole run.
                let now = unsafe { arch::load_acquire(bar, Scope::Gpu) };
                if now & FLIP != s.phase {
                    Ok(0)
                } else {
                    Err(now & COUNT)
                }
            });
            return T::from_word(word(s.slots, lead_rank, 3));
        }
        self.finish_as_lead::<T, O>(block, s, (bar, ranks), op)
    }

    /// The lead's part of [`allreduce_finish`](Self::allreduce_finish): it
    /// waits for the others' arrivals, combines, exchanges between
    /// processes and lets the others go.
    #[inline(always)]
    fn finish_as_lead<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        s: Started,
        (bar, ranks): (*mut u32, u32),
        op: O,
    ) -> T {
        let (call, comm) = (Call::AllreduceFinish, s.comm);
        self.await_arrivals(block, call, (bar, ranks));
        let here = self.fold_here(block, comm, s.slots, op);
        let result = if self.spans_processes(comm) {
            self.leaders_allreduce::<T, O>(block, comm, call, here)
        } else {
            here
        };
        let at = record(s.slots, comm.rec.lead as usize).wrapping_add(3);
        // SAFETY: the lead's own record; the release publishes it.
        block.leader(|_| unsafe { arch::store_relaxed(at, result.to_word(), Scope::Gpu) });
        self.release_others(block, (bar, ranks));
        result
    }

    /// Fails if the rank body ended with an allreduce pending.
    #[inline(always)]
    pub(super) fn check_none_pending_at_end(&mut self, block: &mut Block) {
        if self.split_phase.pending {
            let values = [1, 0, 0, 0];
            self.fail(
                block,
                Call::AllreduceFinish,
                Fault::CollectivePending,
                values,
            );
        }
    }
}
