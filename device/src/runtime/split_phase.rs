//! The split-phase allreduce (`MPI_Iallreduce`, then `MPI_Wait`). The
//! start writes the rank's value into its record and arrives at its
//! communicator's barrier word on this device without waiting. The first
//! rank to reach its finish once every rank has started, whichever it is,
//! claims the combining in the barrier word, combines the records and
//! leaves the result where the others find it: in the lead's record on one
//! device, in every device's partials across processes whose GPUs map
//! each other ([`partials`](super::partials)). So the combining falls to a
//! rank that would wait anyway, not to the last to start (which then fell
//! further behind every iteration, `docs/design.md`), and a finish waits
//! only for every rank's start, not for any given rank's finish.
//!
//! Where a process of the communicator is reached through the hosts, the
//! lead (the communicator's lowest rank here) arrives last, at its finish,
//! and exchanges with the other leads as the blocking allreduce does (a
//! rank alone on its device exchanges at its finish).
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

/// Whether this rank has a split-phase allreduce pending, and the parity
/// of each communicator slot's next one (one bit per slot, the same on
/// every rank of a communicator: a fresh slot starts at 0).
#[derive(Default)]
pub(crate) struct SplitPhase {
    pending: bool,
    pub parity: u32,
}

/// In the barrier word while a split-phase allreduce is pending: a rank
/// has claimed the combining (the count stays far below it).
const CLAIM: u32 = 1 << 30;

/// How a started allreduce finishes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    /// The first rank here to finish once every rank has started
    /// combines; on one device the result is in the lead's record, across
    /// processes in the partials.
    ByFinisher,
    /// The lead combines and exchanges at its finish (a process is
    /// reached through the hosts).
    ByLead,
    /// This rank is alone here and exchanges at its finish (likewise).
    Alone,
}

/// A started allreduce, as the runtime needs it at the finish.
#[derive(Clone, Copy)]
pub(crate) struct Started {
    comm: Comm,
    way: Way,
    /// The records of its parity (null when alone here).
    slots: *mut u64,
    /// The barrier's phase at this rank's arrival.
    phase: u32,
    /// The parity of its partials.
    parity: u32,
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

    /// Starts an allreduce of `value` over `comm` with `op`: writes it and
    /// arrives, without waiting for any other rank; the last arrival here
    /// combines.
    #[inline(always)]
    pub fn allreduce_start<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        value: T,
        op: O,
    ) -> Started {
        let call = Call::AllreduceStart;
        self.check_none_pending(block, call);
        let alone = self.alone_here(block, comm, call);
        let parity = (self.split_phase.parity >> comm.slot) & 1;
        self.split_phase.parity ^= 1 << comm.slot;
        let spans = self.spans_processes(comm);
        let mapped = !spans || self.partials_mapped(comm);
        let mut s = Started {
            comm,
            way: if mapped { Way::ByFinisher } else { Way::ByLead },
            slots: core::ptr::null_mut(),
            phase: 0,
            parity,
            value: value.to_word(),
        };
        if alone {
            if mapped {
                self.publish_partial(block, comm, parity, s.value);
            } else {
                s.way = Way::Alone;
            }
            self.split_phase.pending = true;
            return s;
        }
        s.slots = self.write_record(block, comm, call, [s.value, 0, 0]);
        let ((bar, ranks), lead) = self.barrier_word(block, comm);
        // Every rank arrives with an add of 1, except a lead that combines
        // at its finish (it adds the rest there).
        let arrives = !(s.way == Way::ByLead && lead);
        if arrives && ranks > 1 {
            // The record's store and this add are the leader thread's:
            // the release orders them.
            // SAFETY: the barrier word lives for the whole run.
            let old =
                block.single(|_| unsafe { arch::fetch_add(bar, 1, Ordering::AcqRel, Scope::Gpu) });
            s.phase = old & FLIP;
        } else if s.way == Way::ByFinisher {
            // The communicator's only rank: its value is the result here.
            self.combine_here::<T, O>(block, s, (bar, 0), op);
        }
        self.split_phase.pending = true;
        s
    }

    /// Combines the records here, leaves the result in the lead's record,
    /// flips the barrier word's phase taking `clear` off it (the count and
    /// the claim) and, across processes, writes this device's partial
    /// into every device's partials: after the flip, so a rank that saw
    /// every partial has seen the flip and cannot arrive at a later
    /// barrier before it.
    #[inline(always)]
    fn combine_here<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        s: Started,
        (bar, clear): (*mut u32, u32),
        op: O,
    ) {
        let here = self.fold_here(block, s.comm, s.slots, op).to_word();
        let at = record(s.slots, s.comm.rec.lead as usize).wrapping_add(3);
        // SAFETY: word 3 of the lead's record of this parity, read only
        // after the flip; the release publishes it.
        block.leader(|_| unsafe { arch::store_relaxed(at, here, Scope::Gpu) });
        if clear > 0 {
            // Every thread's reads of the records precede the flip.
            block.sync();
            // SAFETY: the barrier word lives for the whole run.
            block.leader(|_| unsafe {
                arch::add(bar, FLIP.wrapping_sub(clear), Ordering::Release, Scope::Gpu)
            });
        }
        if self.spans_processes(s.comm) {
            self.publish_partial(block, s.comm, s.parity, here);
        }
    }

    /// Finishes the allreduce `s` with `op`: the result, the same bits on
    /// every rank and the same as the blocking allreduce's.
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
        match s.way {
            Way::Alone => {
                return self.alone_allreduce::<T, O>(block, comm, call, T::from_word(s.value))
            }
            Way::ByLead if block.id() == comm.rec.lead => {
                return self.finish_as_lead::<T, O>(block, s, op)
            }
            _ => {}
        }
        let ((bar, ranks), _) = self.barrier_word(block, comm);
        if ranks > 1 {
            let by_finisher = s.way == Way::ByFinisher;
            let claimed = self.wait_until(block, call, [ranks, 0, 0], || {
                // SAFETY: the barrier word lives for the whole run.
                let now = unsafe { arch::load_acquire(bar, Scope::Gpu) };
                if now & FLIP != s.phase {
                    return Ok(0);
                }
                // Every rank has started and none has claimed the
                // combining: this rank claims it.
                if by_finisher && now & COUNT == ranks {
                    // SAFETY: as above.
                    let seen = unsafe {
                        arch::compare_exchange(bar, now, now | CLAIM, Ordering::AcqRel, Scope::Gpu)
                    };
                    if seen == now {
                        return Ok(1);
                    }
                }
                Err(now & COUNT & !CLAIM)
            });
            if claimed == 1 {
                self.combine_here::<T, O>(block, s, (bar, ranks | CLAIM), op);
            }
        }
        if s.way == Way::ByFinisher && self.spans_processes(comm) {
            return self.await_partials::<T, O>(block, comm, (s.parity, ranks), call);
        }
        T::from_word(word(s.slots, comm.rec.lead as usize, 3))
    }

    /// The lead's part of [`allreduce_finish`](Self::allreduce_finish)
    /// where a process is reached through the hosts: it waits for the
    /// others' arrivals, combines, exchanges between processes and lets
    /// the others go. Out of line: the host route's exchange takes far
    /// longer than a call.
    #[inline(never)]
    fn finish_as_lead<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        s: Started,
        op: O,
    ) -> T {
        let (call, comm) = (Call::AllreduceFinish, s.comm);
        let ((bar, ranks), _) = self.barrier_word(block, comm);
        self.await_arrivals(block, call, (bar, ranks));
        let here = self.fold_here(block, comm, s.slots, op);
        let result = self.leaders_allreduce::<T, O>(block, comm, call, here);
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
