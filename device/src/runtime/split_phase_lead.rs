//! The split-phase allreduce through the lead (split communicators, and
//! communicators over more processes than the mailboxes take): the lead
//! arrives last, at its finish. Out of line, so that a kernel whose
//! allreduces go by mailboxes does not carry it inlined.

use super::super::sync::{COUNT, FLIP};
use super::super::Runtime;
use super::{record, word, Started};
use crate::abi::Call;
use crate::arch::{self, Ordering, Scope};
use crate::block::{Block, ReduceOp, Reducible};
use crate::runtime::comm::Comm;

impl Runtime {
    /// The start: every rank but the lead writes its record and arrives.
    #[inline(never)]
    pub(super) fn start_through_lead(
        &mut self,
        block: &mut Block,
        comm: Comm,
        value: u64,
    ) -> Started {
        let call = Call::AllreduceStart;
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
        started
    }

    /// The finish (not alone here): the lead waits for the others' arrivals, combines,
    /// exchanges between processes and lets the others go; they wait for
    /// it.
    #[inline(never)]
    pub(super) fn finish_through_lead<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        s: Started,
        op: O,
    ) -> T {
        let (call, comm) = (Call::AllreduceFinish, s.comm);
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
        self.await_arrivals(block, call, (bar, ranks));
        let here = self.fold_here(block, comm, s.slots, op);
        let result = if self.spans_processes(comm) {
            self.leaders_allreduce::<T, O>(block, comm, call, here)
        } else {
            here
        };
        let at = record(s.slots, lead_rank).wrapping_add(3);
        // SAFETY: the lead's own record; the release publishes it.
        block.leader(|_| unsafe { arch::store_relaxed(at, result.to_word(), Scope::Gpu) });
        self.release_others(block, (bar, ranks));
        result
    }
}
