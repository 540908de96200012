//! Collectives between the ranks of a communicator: `allreduce` and
//! `bcast` of one value, and `allreduce_into` of a slice.
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
//! A slice is reduced in place of the ranks' own buffers, all in this
//! GPU's memory: each rank publishes its source and destination, then
//! reduces one chunk of the elements over every rank's source, in rank
//! order, and writes the result into every rank's destination: each rank
//! reads and writes about the length of one buffer, whatever the number of
//! ranks, and every rank gets the same bits.
//!
//! Across processes (a world communicator of a job) each device first
//! combines its own ranks' values as above; the device leaders then combine
//! the devices' results ([`leaders`](super::leaders)), and the leader (the
//! communicator's lowest rank here) hands the result to its ranks through
//! its record, after one more barrier. A broadcast is an or of words that are zero except at the root,
//! so it takes the same path. Slices across processes are not built yet:
//! `allreduce_into` fails with a clear error there.

use super::comm::{Comm, CommKind};
use super::Runtime;
use crate::abi::{Call, Fault, MAX_SPANNED, SLOT_WORDS};
use crate::arch::{self, Scope};
use crate::block::{BitOr, Block, Max, ReduceOp, Reducible};
use crate::memory::{DeviceCopy, DeviceSlice};

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
        _op: O,
    ) -> T {
        let call = Call::Allreduce;
        let slots = self.meet(block, comm, call, [value.to_word(), 0, 0]);
        let threads = block.threads();
        // Thread t folds the ranks here t, t + threads, ... in order; the
        // block reduction then combines the threads in its fixed order.
        let partial = block.reduce(
            |t| {
                let mut acc = O::identity();
                self.each_local(comm, t.index(), threads, |dev| {
                    acc = O::combine(acc, T::from_word(word(slots, dev as usize, 0)));
                });
                acc
            },
            _op,
        );
        if !self.spans_processes(comm) {
            return partial;
        }
        let word = self.share_leaders_result(block, comm, call, slots, |rt, block| {
            rt.leaders_allreduce::<T, O>(block, comm, call, partial)
                .to_word()
        });
        T::from_word(word)
    }

    /// Rank `root`'s `value`, on every rank of `comm`.
    #[inline(always)]
    pub fn bcast<T: Reducible>(&mut self, block: &mut Block, comm: Comm, root: u32, value: T) -> T {
        if root >= comm.size() {
            let values = [root as u64, comm.size() as u64, 0, 0];
            self.fail(block, Call::Bcast, Fault::RankOutOfRange, values);
        }
        let slots = self.meet(block, comm, Call::Bcast, [value.to_word(), 0, 0]);
        let ctx = self.ctx();
        let dev = self.world_rank(comm, root).wrapping_sub(ctx.world_first);
        if !self.spans_processes(comm) {
            return T::from_word(word(slots, dev as usize, 0));
        }
        // The root's word where the root is, zero elsewhere: or-ed together
        // between the leaders, the root's word everywhere.
        let mine = if dev < ctx.ranks {
            word(slots, dev as usize, 0)
        } else {
            0
        };
        let word = self.share_leaders_result(block, comm, Call::Bcast, slots, |rt, block| {
            rt.leaders_allreduce::<u64, BitOr>(block, comm, Call::Bcast, mine)
        });
        T::from_word(word)
    }

    /// `dst[i]` on every rank of `comm` becomes every rank's `src[i]`
    /// combined with `op`, in rank order. Every rank passes slices of one
    /// length, in this GPU's global memory; `src` and `dst` may be the same.
    #[inline(always)]
    pub fn allreduce_into<T: Reducible + DeviceCopy, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        (src, dst): (DeviceSlice<T>, DeviceSlice<T>),
        _op: O,
    ) {
        let call = Call::AllreduceInto;
        if self.spans_processes(comm) {
            let values = [comm.size() as u64, self.ctx().processes as u64, 0, 0];
            self.fail(block, call, Fault::CollectiveAcrossProcesses, values);
        }
        let n = src.len();
        if dst.len() != n {
            let values = [n as u64, dst.len() as u64, u64::MAX, 0];
            self.fail(block, call, Fault::LengthMismatch, values);
        }
        for s in [src.as_mut_ptr(), dst.as_mut_ptr()] {
            if n > 0 && !arch::is_global(s) {
                let values = [s as u64, comm.rank() as u64, 0, 0];
                self.fail(block, call, Fault::NotGlobal, values);
            }
        }
        let mine = [src.as_mut_ptr() as u64, dst.as_mut_ptr() as u64, n as u64];
        let slots = self.meet(block, comm, call, mine);
        let (ranks, threads) = (comm.size() as usize, block.threads() as usize);
        // Every rank is on this device: rank q's record is at `devs(q)`.
        let first = self.ctx().world_first;
        let devs = |q: usize| (self.world_rank(comm, q as u32) - first) as usize;
        // The highest rank that disagrees on the length, plus one.
        let odd = block.reduce(
            |t| {
                let (mut r, mut found) = (t.index() as usize, 0u32);
                while r < ranks {
                    if word(slots, devs(r), 2) != n as u64 {
                        found = r as u32 + 1;
                    }
                    r += threads;
                }
                found
            },
            Max,
        );
        if odd != 0 {
            let theirs = word(slots, devs(odd as usize - 1), 2);
            let values = [n as u64, theirs, odd as u64 - 1, 0];
            self.fail(block, call, Fault::LengthMismatch, values);
        }
        let chunk = n.div_ceil(ranks.max(1));
        let start = (comm.rank() as usize * chunk).min(n);
        let end = (start + chunk).min(n);
        block.each_thread(|t| {
            let mut i = start + t.index() as usize;
            while i < end {
                let mut acc = O::identity();
                for q in 0..ranks {
                    // SAFETY: rank q's source of n elements, published before
                    // the barrier and unchanged until the barrier below.
                    acc = O::combine(acc, unsafe {
                        (word(slots, devs(q), 0) as *const T).add(i).read()
                    });
                }
                for q in 0..ranks {
                    // SAFETY: rank q's destination; element i is this rank's
                    // alone to write.
                    unsafe { (word(slots, devs(q), 1) as *mut T).add(i).write(acc) };
                }
                i += threads;
            }
        });
        // Every destination is complete, and no source is read any more.
        self.local_barrier(block, comm, call);
    }

    /// Writes `words` to this rank's record of `comm`'s next parity and
    /// waits until every rank of `comm` on this device has written its
    /// own; returns the records (indexed by device rank).
    #[inline(always)]
    fn meet(&mut self, block: &mut Block, comm: Comm, call: Call, words: [u64; 3]) -> *mut u64 {
        self.check_comm(block, call, comm);
        if comm.rec.reps > MAX_SPANNED {
            let values = [comm.rec.reps as u64, MAX_SPANNED as u64, 0, 0];
            self.fail(block, call, Fault::TooManyProcesses, values);
        }
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
        self.local_barrier(block, comm, call);
        slots
    }

    /// Calls `f` with the device rank of every rank of `comm` on this
    /// device that thread `t` of `threads` handles, in rank order: thread
    /// `t` takes ranks `t`, `t + threads`, ... and skips those elsewhere.
    #[inline(always)]
    fn each_local(&self, comm: Comm, t: u32, threads: u32, mut f: impl FnMut(u32)) {
        let ctx = self.ctx();
        let (end, split) = match comm.kind {
            CommKind::Split => (comm.rec.size, true),
            _ => (comm.rec.local, false),
        };
        let mut r = t;
        while r < end {
            let dev = match split {
                true => self.world_rank(comm, r).wrapping_sub(ctx.world_first),
                false => r,
            };
            if dev < ctx.ranks {
                f(dev);
            }
            r += threads;
        }
    }
}

impl Runtime {
    /// Runs `exchange` on the leader (`comm`'s lowest rank here), which leaves its
    /// result in word 3 of its record, then gives that word to every rank
    /// of the device after one device barrier. The record's parity is
    /// written again only two collectives later, after every rank has read
    /// it (as in `meet`).
    #[inline(always)]
    fn share_leaders_result(
        &mut self,
        block: &mut Block,
        comm: Comm,
        call: Call,
        slots: *mut u64,
        exchange: impl FnOnce(&mut Runtime, &mut Block) -> u64,
    ) -> u64 {
        let lead = comm.rec.lead;
        if block.id() == lead {
            let result = exchange(self, block);
            let at = record(slots, lead as usize).wrapping_add(3);
            // SAFETY: the leader's own record; the barrier publishes it.
            block.leader(|_| unsafe { arch::store_relaxed(at, result, Scope::Gpu) });
        }
        self.local_barrier(block, comm, call);
        word(slots, lead as usize, 3)
    }
}

/// Rank `r`'s record among `slots`.
#[inline(always)]
fn record(slots: *mut u64, r: usize) -> *mut u64 {
    slots.wrapping_add(r * SLOT_WORDS)
}

/// Word `k` of rank `r`'s record.
#[inline(always)]
fn word(slots: *mut u64, r: usize, k: usize) -> u64 {
    // SAFETY: a record of the run's slots, written before the barrier.
    unsafe { arch::load_relaxed(record(slots, r).wrapping_add(k), Scope::Gpu) }
}
