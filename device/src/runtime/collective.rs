//! Collectives between the ranks of a communicator: `allreduce` and
//! `bcast` of one value (slices: [`slices`](super::slices)).
//!
//! Inside a GPU the ranks meet in device memory: each writes its word to
//! its record of the communicator's slot, the communicator's barrier on
//! this device orders the writes before the reads, and every rank reads
//! the records of the communicator's ranks here and combines them in the
//! same fixed order (rank order), so all ranks get the same bits (on the
//! GPU and in the emulator alike). Two parities of records alternate per
//! communicator: a rank writes a parity again only two calls later, after
//! the barrier of the call in between, which every rank of the
//! communicator passes only once it has read the records it needs.
//!
//! Across processes (a communicator whose ranks are on several processes)
//! the ranks write their records and arrive at one device barrier, inside
//! which the leader (the communicator's lowest rank here) combines them
//! as above, combines the devices' results with the other leaders
//! ([`leaders`](super::leaders)) and leaves the result in its record
//! before it lets the others go, so a call has one device barrier, not
//! two. A rank alone on its device in the communicator skips the barrier
//! and the records, and only takes part in the leaders' exchange. A
//! broadcast is an or of words that are zero except at the root, so it
//! takes the same path.

use super::comm::{world_rank, Comm, CommKind};
use super::Runtime;
use crate::abi::{Call, Fault, RankContext, MAX_SPANNED, SLOT_WORDS};
use crate::arch::{self, Scope};
use crate::block::{BitOr, Block, ReduceOp, Reducible};

/// Which parity of records the next collective of each communicator slot
/// uses: one bit per slot.
#[derive(Default)]
pub(crate) struct Collectives {
    pub parity: u32,
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
        op: O,
    ) -> T {
        let call = Call::Allreduce;
        if self.alone_here(block, comm, call) {
            return self.alone_allreduce::<T, O>(block, comm, call, value);
        }
        let words = [value.to_word(), 0, 0];
        if !self.spans_processes(comm) {
            let slots = self.meet(block, comm, call, words);
            return self.fold_here(block, comm, slots, op);
        }
        let word = self.through_lead(block, comm, call, words, |rt, block, slots| {
            let partial = rt.fold_here(block, comm, slots, op);
            rt.leaders_allreduce::<T, O>(block, comm, call, partial)
                .to_word()
        });
        T::from_word(word)
    }

    /// The leaders' exchange alone, for a rank alone on its device in a
    /// communicator that spans processes. Out of line: a second inlined
    /// copy of the exchange in every collective took Jacobi's rank kernel
    /// from 856 to 1192 bytes of stack and made it 17% slower on two H200s
    /// (`bench/results/2026-11-27-jacobi-regression-h200x2/`).
    #[inline(never)]
    pub(super) fn alone_allreduce<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        call: Call,
        value: T,
    ) -> T {
        self.leaders_allreduce::<T, O>(block, comm, call, value)
    }

    /// The first words of the records of `comm`'s ranks here, combined with
    /// `O` in rank order, on every thread.
    #[inline(always)]
    pub(super) fn fold_here<T: Reducible, O: ReduceOp<T>>(
        &self,
        block: &mut Block,
        comm: Comm,
        slots: *mut u64,
        op: O,
    ) -> T {
        let threads = block.threads();
        // Thread t folds the ranks here t, t + threads, ... in order; the
        // block reduction then combines the threads in its fixed order.
        block.reduce(
            |t| {
                let mut acc = O::identity();
                self.each_local(comm, t.index(), threads, |_, dev| {
                    acc = O::combine(acc, T::from_word(word(slots, dev as usize, 0)));
                });
                acc
            },
            op,
        )
    }

    /// [`allreduce`](Self::allreduce), kept on rank `root` only.
    #[inline(always)]
    pub fn reduce_to<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        root: u32,
        value: T,
        op: O,
    ) -> Option<T> {
        if root >= comm.size() {
            let values = [root as u64, comm.size() as u64, 0, 0];
            self.fail(block, Call::ReduceTo, Fault::RankOutOfRange, values);
        }
        let v = self.allreduce(block, comm, value, op);
        (comm.rank() == root).then_some(v)
    }

    /// Rank `root`'s `value`, on every rank of `comm`.
    #[inline(always)]
    pub fn bcast<T: Reducible>(&mut self, block: &mut Block, comm: Comm, root: u32, value: T) -> T {
        if root >= comm.size() {
            let values = [root as u64, comm.size() as u64, 0, 0];
            self.fail(block, Call::Bcast, Fault::RankOutOfRange, values);
        }
        if self.alone_here(block, comm, Call::Bcast) {
            let mine = if comm.rank() == root {
                value.to_word()
            } else {
                0
            };
            let word = self.alone_allreduce::<u64, BitOr>(block, comm, Call::Bcast, mine);
            return T::from_word(word);
        }
        let words = [value.to_word(), 0, 0];
        // The root's device rank, once `meet` or `through_lead` checked
        // `comm` (a freed one's table part may be another's by now).
        let root_here = |rt: &Runtime| rt.world_rank(comm, root).wrapping_sub(rt.ctx().world_first);
        if !self.spans_processes(comm) {
            let slots = self.meet(block, comm, Call::Bcast, words);
            return T::from_word(word(slots, root_here(self) as usize, 0));
        }
        let word = self.through_lead(block, comm, Call::Bcast, words, |rt, block, slots| {
            // The root's word where the root is, zero elsewhere: or-ed
            // together between the leaders, the root's word everywhere.
            let dev = root_here(rt);
            let mine = if dev < rt.ctx().ranks {
                word(slots, dev as usize, 0)
            } else {
                0
            };
            rt.leaders_allreduce::<u64, BitOr>(block, comm, Call::Bcast, mine)
        });
        T::from_word(word)
    }

    /// Writes `words` to this rank's record of `comm`'s next parity and
    /// waits until every rank of `comm` on this device has written its
    /// own; returns the records (indexed by device rank).
    #[inline(always)]
    pub(super) fn meet(
        &mut self,
        block: &mut Block,
        comm: Comm,
        call: Call,
        words: [u64; 3],
    ) -> *mut u64 {
        let slots = self.write_record(block, comm, call, words);
        self.local_barrier(block, comm, call);
        slots
    }

    /// Writes `words` to this rank's record of `comm`'s next parity (for a
    /// barrier to publish); returns the records (indexed by device rank).
    #[inline(always)]
    pub(super) fn write_record(
        &mut self,
        block: &mut Block,
        comm: Comm,
        call: Call,
        words: [u64; 3],
    ) -> *mut u64 {
        // A pending split-phase allreduce is refused by the barrier that
        // follows (`counted_barrier`, `gated`), or by `allreduce_start`.
        self.check_spanned(block, comm, call);
        let parity = (self.collectives.parity >> comm.slot) & 1;
        self.collectives.parity ^= 1 << comm.slot;
        let ctx = self.ctx();
        let records = (comm.slot * 2 + parity) as usize * ctx.ranks as usize * SLOT_WORDS;
        let slots = (ctx.collective_slots as *mut u64).wrapping_add(records);
        let mine = record(slots, block.id() as usize);
        block.leader(|_| {
            for (k, w) in words.into_iter().enumerate() {
                // SAFETY: this rank's own record; the barrier publishes it.
                unsafe { arch::store_relaxed(mine.wrapping_add(k), w, Scope::Gpu) }
            }
        });
        slots
    }

    /// Checks `comm`, and that it spans no more processes than a
    /// collective takes.
    #[inline(always)]
    fn check_spanned(&mut self, block: &mut Block, comm: Comm, call: Call) {
        self.check_comm(block, call, comm);
        if comm.rec.reps > MAX_SPANNED {
            let values = [comm.rec.reps as u64, MAX_SPANNED as u64, 0, 0];
            self.fail(block, call, Fault::TooManyProcesses, values);
        }
    }

    /// Whether this rank is `comm`'s only one on this device and `comm`
    /// spans processes (then checked): such a collective needs no meeting
    /// on the device, only the leaders' exchange, with this rank's own
    /// (thread 0's) value.
    #[inline(always)]
    pub(super) fn alone_here(&mut self, block: &mut Block, comm: Comm, call: Call) -> bool {
        if comm.rec.local != 1 || !self.spans_processes(comm) {
            return false; // `meet` checks `comm`.
        }
        self.check_spanned(block, comm, call);
        true
    }

    /// Calls `f` with the rank and device rank of every rank of `comm` on
    /// this device that thread `t` of `threads` handles, in rank order:
    /// thread `t` takes ranks `t`, `t + threads`, ... and skips those
    /// elsewhere.
    #[inline(always)]
    pub(super) fn each_local(&self, comm: Comm, t: u32, threads: u32, f: impl FnMut(u32, u32)) {
        each_local(self.ctx(), comm, (t, threads), f)
    }
}

/// [`Runtime::each_local`], given the run's context.
#[inline(always)]
pub(super) fn each_local(
    ctx: &RankContext,
    comm: Comm,
    (t, threads): (u32, u32),
    mut f: impl FnMut(u32, u32),
) {
    // The world's ranks here are `world_first..`, the device's `0..`.
    let (end, first) = match comm.kind {
        CommKind::Split => (comm.rec.size, None),
        CommKind::World => (comm.rec.local, Some(ctx.world_first)),
        CommKind::Device => (comm.rec.local, Some(0)),
    };
    let mut r = t;
    while r < end {
        match first {
            None => {
                let dev = world_rank(ctx, comm, r).wrapping_sub(ctx.world_first);
                if dev < ctx.ranks {
                    f(r, dev);
                }
            }
            Some(first) => f(first + r, r),
        }
        r += threads;
    }
}

impl Runtime {
    /// Writes `words` to this rank's record; `comm`'s lead here (its lowest
    /// rank), once every rank here has written its own, runs `exchange`
    /// with the records, leaves its result in word 3 of its record and
    /// lets the others go ([`gated`](Self::gated)): one device barrier.
    /// Every rank returns the result. The record's parity is written again
    /// only two collectives later, once every rank has read it: the lead
    /// lets no rank out of the next call before all have arrived at it.
    #[inline(always)]
    fn through_lead(
        &mut self,
        block: &mut Block,
        comm: Comm,
        call: Call,
        words: [u64; 3],
        exchange: impl FnOnce(&mut Runtime, &mut Block, *mut u64) -> u64,
    ) -> u64 {
        let slots = self.write_record(block, comm, call, words);
        let lead = comm.rec.lead as usize;
        let at = record(slots, lead).wrapping_add(3);
        let mine = self.gated(block, comm, call, |rt, block| {
            let result = exchange(rt, block, slots);
            // SAFETY: the lead's own record; the gate's release publishes it.
            block.leader(|_| unsafe { arch::store_relaxed(at, result, Scope::Gpu) });
            result
        });
        mine.unwrap_or_else(|| word(slots, lead, 3))
    }
}

/// Rank `r`'s record among `slots`.
#[inline(always)]
pub(super) fn record(slots: *mut u64, r: usize) -> *mut u64 {
    slots.wrapping_add(r * SLOT_WORDS)
}

/// Word `k` of rank `r`'s record.
#[inline(always)]
pub(super) fn word(slots: *mut u64, r: usize, k: usize) -> u64 {
    // SAFETY: a record of the run's slots, written before the barrier.
    unsafe { arch::load_relaxed(record(slots, r).wrapping_add(k), Scope::Gpu) }
}
