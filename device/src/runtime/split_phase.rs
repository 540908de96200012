//! The split-phase allreduce (`MPI_Iallreduce`, then `MPI_Wait`): the
//! blocking allreduce cut at its barrier. The start writes the rank's value
//! into its record and arrives at its communicator's barrier word on this
//! device (the arrival that completes it flips its phase, as in a
//! barrier); the finish waits for the flip and combines the records, on
//! every rank. Whatever a rank does in between hides the others'
//! arrivals: a finish waits only for every rank's start, not for any given
//! rank's finish. Across processes whose GPUs map each other, the first
//! rank of each device to finish also writes the device's result, its
//! partial, into every device's memory, and each rank combines the
//! partials ([`partials`](super::partials)).
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

/// How a started allreduce finishes.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Way {
    /// Each rank waits for the flip and combines the records here itself
    /// (and, across processes, the devices' partials).
    Here,
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
    /// The barrier's phase at this rank's arrival (leader thread).
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
        let alone = self.alone_here(block, comm, call);
        let parity = (self.split_phase.parity >> comm.slot) & 1;
        self.split_phase.parity ^= 1 << comm.slot;
        let spans = self.spans_processes(comm);
        let mapped = !spans || self.partials_mapped(comm);
        let mut s = Started {
            comm,
            way: if mapped { Way::Here } else { Way::ByLead },
            slots: core::ptr::null_mut(),
            phase: 0,
            parity,
            value: value.to_word(),
        };
        self.split_phase.pending = true;
        if alone {
            if mapped {
                self.publish_partial(block, comm, parity, s.value);
            } else {
                s.way = Way::Alone;
            }
            return s;
        }
        s.slots = self.write_record(block, comm, call, [s.value, 0, 0]);
        let ((bar, ranks), lead) = self.barrier_word(block, comm);
        // As in a barrier the lead adds FLIP - (ranks - 1), the others 1,
        // so the last arrival's own add flips the phase; a lead that
        // combines at its finish adds there instead.
        let add = match (s.way, lead) {
            (Way::ByLead, true) => 0,
            (_, true) => FLIP - (ranks - 1),
            _ => 1,
        };
        if add != 0 && ranks > 1 {
            // The record's store and this add are the leader thread's: the
            // release orders them. Only the leader thread waits at the
            // finish, so only it needs the phase, and nothing waits for
            // the add's reply until then.
            // SAFETY: the barrier word lives for the whole run.
            let old = block
                .leader(|_| unsafe { arch::fetch_add(bar, add, Ordering::AcqRel, Scope::Gpu) });
            s.phase = old.unwrap_or(0) & FLIP;
        }
        s
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
            self.wait_until(block, call, [ranks, 0, 0], || {
                // SAFETY: the barrier word lives for the whole run.
                let now = unsafe { arch::load_acquire(bar, Scope::Gpu) };
                if now & FLIP != s.phase {
                    Ok(0)
                } else {
                    Err(now & COUNT)
                }
            });
        }
        match s.way {
            Way::ByLead => T::from_word(word(s.slots, comm.rec.lead as usize, 3)),
            _ if !self.spans_processes(comm) => self.fold_here(block, comm, s.slots, op),
            _ => {
                if !s.slots.is_null() {
                    let here = self.fold_here(block, comm, s.slots, op).to_word();
                    self.publish_first(block, comm, s.parity, here);
                }
                self.await_partials::<T, O>(block, comm, (s.parity, ranks), call)
            }
        }
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
