//! The split-phase allreduce (`MPI_Iallreduce`, then `MPI_Wait`): the
//! start writes the rank's value into its record and arrives at its
//! communicator's barrier on this device without waiting; the finish
//! waits. Whatever a rank does between the two hides the meeting and the
//! exchange between GPUs.
//!
//! **By mailboxes** (the world's and the device's communicators over at
//! most [`SPLIT_SOURCES`] processes): the last rank here to arrive
//! combines the records, sends the device's part to the mailbox of every
//! process's leader (this one's too: step `SPLIT_STEP` + the process's
//! index) and resets the barrier word, all inside its start. At the finish
//! every rank reads the parts from its leader's mailbox once the leader's
//! counters show them, without consuming them for anyone else (each rank
//! counts what it has read in its own consumed counters), and combines
//! them in the order of the leaders' recursive doubling: the blocking
//! allreduce's bits. No rank waits for any one rank's work after its
//! start, only for the last start of each process. The counts are per
//! communicator slot; the world's and the device's slots are never used
//! by another communicator, so every rank's count matches its leader's.
//!
//! **Through the lead** (split communicators, and more processes): the
//! lead (the communicator's lowest rank here) arrives last, at its finish:
//! it waits for the others' arrivals, combines, exchanges with the other
//! processes' leads and only then flips the barrier.
//!
//! A pending allreduce holds the records' parity and the barrier word of
//! its communicator, which every other collective, barrier and window call
//! of this device uses too: while one is pending, its rank may start none
//! (an error naming the call), and a rank body may not end with one.

use super::collective::{record, word};
use super::comm::{Comm, CommKind};
use super::leaders::{tag, SPLIT_SOURCES, SPLIT_STEP};
use super::notify::{consumed, init_consumed, try_consume};
use super::sync::{COUNT, FLIP};
use super::wait::{abort_exit, poll};
use super::Runtime;
use crate::abi::{Call, Fault, RankContext, WaitStatus};
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
    /// Through the lead: the records of its parity; null for a rank alone
    /// on its device in a communicator that spans processes (it only
    /// exchanges). By mailboxes: null.
    slots: *mut u64,
    /// Through the lead: the barrier's phase at this rank's arrival
    /// (non-leads). By mailboxes: the mailboxes' parity.
    phase: u32,
    /// This rank's value.
    value: u64,
}

/// Whether `comm`'s split-phase allreduce goes by mailboxes: the same on
/// every rank of `comm`.
#[inline(always)]
fn by_mailboxes(comm: Comm) -> bool {
    comm.kind != CommKind::Split && comm.rec.reps <= SPLIT_SOURCES
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

    /// Starts an allreduce of `value` with `op` over `comm`: writes it and
    /// arrives, without waiting for any other rank.
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
        let started = if by_mailboxes(comm) {
            self.start_by_mailboxes(block, comm, value, op)
        } else {
            self.start_through_lead(block, comm, value.to_word())
        };
        self.split_phase.pending = true;
        started
    }

    /// [`allreduce_start`](Self::allreduce_start) by mailboxes: the last
    /// rank here to arrive combines and sends.
    #[inline(always)]
    fn start_by_mailboxes<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        value: T,
        op: O,
    ) -> Started {
        let call = Call::AllreduceStart;
        let parity = self.mailbox_parity(block, comm);
        let started = Started {
            comm,
            slots: core::ptr::null_mut(),
            phase: parity,
            value: value.to_word(),
        };
        let part = if self.alone_here(block, comm, call) {
            value
        } else {
            let slots = self.write_record(block, comm, call, [value.to_word(), 0, 0]);
            let ((bar, ranks), _) = self.barrier_word(block, comm);
            // The record's store and this add are the leader thread's: the
            // release orders them, and the last arrival's acquire sees
            // every record.
            // SAFETY: the barrier word lives for the whole run.
            let arrived =
                block.single(|_| unsafe { arch::fetch_add(bar, 1, Ordering::AcqRel, Scope::Gpu) });
            if arrived & COUNT != ranks - 1 {
                return started;
            }
            let part = self.fold_here(block, comm, slots, op);
            // Every thread has read the records before the word is reset.
            block.sync();
            let reset = move || {
                // SAFETY: as above. Back to no arrivals, the phase flipped,
                // as after a counted barrier.
                unsafe { arch::add(bar, FLIP - ranks, Ordering::Release, Scope::Gpu) };
            };
            let sent = self.split_send(block, (comm, call, parity), part.to_word(), reset);
            if !sent {
                abort_exit()
            }
            return started;
        };
        if !self.split_send(block, (comm, call, parity), part.to_word(), || ()) {
            abort_exit()
        }
        started
    }

    /// The parity of `comm`'s next split-phase mailboxes, from this rank's
    /// consumed counts of them: each finish consumes one of each process's
    /// words of its parity, and the parities alternate.
    #[inline(always)]
    fn mailbox_parity(&mut self, block: &mut Block, comm: Comm) -> u32 {
        let setup = self.counters.first_use();
        let start = self.ctx().notification_start;
        let at = |parity| tag(comm.slot, parity, SPLIT_STEP);
        block.single(|_| {
            if setup {
                init_consumed(start);
            }
            (consumed(at(0)) != consumed(at(1))) as u32
        })
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
        self.split_phase.pending = false;
        if by_mailboxes(s.comm) {
            return self.finish_by_mailboxes::<T, O>(block, s);
        }
        if s.slots.is_null() {
            // Alone here: the leaders' exchange only. Called from here, not
            // from inside the lead's finish, so that the two out-of-line
            // frames do not stack.
            let value = T::from_word(s.value);
            return self.alone_allreduce::<T, O>(block, s.comm, Call::AllreduceFinish, value);
        }
        self.finish_through_lead::<T, O>(block, s, op)
    }

    /// [`allreduce_finish`](Self::allreduce_finish) by mailboxes: every
    /// process's part, read from this process's leader's mailbox, combined
    /// as the leaders' recursive doubling combines them.
    #[inline(always)]
    fn finish_by_mailboxes<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        s: Started,
    ) -> T {
        let (comm, parity) = (s.comm, s.phase);
        let (lead, status) = (comm.rec.lead, self.ctx().status(block.id()));
        let processes = comm.rec.reps;
        let at = (lead, comm.slot, parity);
        let ctx = self.ctx();
        let word = block.single(|_| match read_parts(ctx, status, at, processes) {
            Some(words) => {
                let parts = words.map(T::from_word);
                doubling_order::<T, O>(parts, processes).to_word()
            }
            None => u64::MAX,
        });
        // All ones: the wait gave up (the abort flag stays raised), or a
        // result of all ones; only then is the flag loaded.
        // SAFETY: the flag lives for the run.
        if word == u64::MAX && unsafe { arch::load_relaxed(ctx.abort(), Scope::Gpu) } != 0 {
            abort_exit()
        }
        T::from_word(word)
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

/// Waits for the parts of `processes` processes in the mailbox of device
/// rank `lead` (communicator slot, parity) and reads them; `None` if the
/// run was aborted. On one thread, out of line: each rank runs it once a
/// call, and inlined its waits took Jacobi's rank kernel's stack frame far
/// past its budget.
#[inline(never)]
fn read_parts(
    ctx: &RankContext,
    status: *mut WaitStatus,
    (lead, slot, parity): (u32, u32, u32),
    processes: u32,
) -> Option<[u64; SPLIT_SOURCES as usize]> {
    let mut parts = [0; SPLIT_SOURCES as usize];
    for (p, part) in (0..processes).zip(parts.iter_mut()) {
        let tag = tag(slot, parity, SPLIT_STEP + p);
        poll(ctx, status, Call::AllreduceFinish, [tag, 1, 0], || {
            try_consume(ctx, lead, tag, 1)
        })?;
        let at = ctx.mailbox(lead, slot, parity, SPLIT_STEP + p);
        // SAFETY: the leader's mailbox; the counter's acquire ordered the
        // sender's store (or the host's copy) before this load.
        *part = unsafe { arch::load_relaxed(at, Scope::System) };
    }
    Some(parts)
}

/// The first `n` of `parts` (at most four) combined in the order of the
/// leaders' recursive doubling (`leaders.rs`): the processes beyond the
/// largest power of two folded into the first ones, then pairs, lower
/// first. The blocking allreduce's bits.
#[inline(always)]
fn doubling_order<T: Reducible, O: ReduceOp<T>>(parts: [T; 4], n: u32) -> T {
    let [a, b, c, d] = parts;
    match n {
        0 | 1 => a,
        2 => O::combine(a, b),
        3 => O::combine(O::combine(a, c), b),
        _ => O::combine(O::combine(a, b), O::combine(c, d)),
    }
}

#[path = "split_phase_lead.rs"]
mod through_lead;
