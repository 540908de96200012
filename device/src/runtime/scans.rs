//! Collectives that combine part of the ranks' values: `scan` and `exscan`
//! of one value (the ranks below, as `MPI_Scan` and `MPI_Exscan`), and
//! `reduce_scatter_into` (each rank's chunk of every rank's source, as
//! `MPI_Reduce_scatter_block`).
//!
//! Inside a GPU they meet as [`allreduce`](super::collective) does and each
//! rank combines what it needs itself, in rank order. Across processes
//! each rank first combines what the ranks here give it; then each GPU's
//! representative combines in what every other process's ranks give, as
//! it arrives, one process per step: for `reduce_scatter_into` their
//! chunks of the sources ([`gathers`](super::gathers)), for a scan their
//! values, which it combines into the word of each rank here that ranks
//! higher.

use super::collective::{each_local, record, word};
use super::comm::{world_rank, Comm};
use super::streams::{Apply, CombineIn, Runs, ONCE};
use super::Runtime;
use crate::abi::{Call, RankContext};
use crate::arch::{self, Scope};
use crate::block::{Block, ReduceOp, Reducible};
use crate::memory::{DeviceCopy, DeviceSlice};
use core::marker::PhantomData;

/// Combines a received value of rank `i` into the scan word (word 1 of the
/// record) of every rank here above `i` (or at it, `inclusive`).
struct ScanIn<T, O> {
    ctx: RankContext,
    comm: Comm,
    slots: *mut u64,
    inclusive: bool,
    op: PhantomData<(T, O)>,
}

impl<T: Reducible, O: ReduceOp<T>> Apply for ScanIn<T, O> {
    #[inline(always)]
    unsafe fn apply(
        &self,
        block: &Block,
        (i, _): (u32, u32),
        _: *mut u8,
        src: *const u8,
        _: usize,
    ) {
        // SAFETY: the staging area holds the value, as the caller promised.
        let v = unsafe { T::from_word((src as *const u64).read()) };
        let (threads, slots) = (block.threads(), self.slots);
        block.each_thread(|t| {
            each_local(&self.ctx, self.comm, (t.index(), threads), |r, dev| {
                if i < r + self.inclusive as u32 {
                    let at = record(slots, dev as usize).wrapping_add(1);
                    // SAFETY: the scan word of a rank here, waiting at the
                    // barrier; each rank's word is one thread's.
                    unsafe {
                        let acc = T::from_word(arch::load_relaxed(at, Scope::Gpu));
                        arch::store_relaxed(at, O::combine(acc, v).to_word(), Scope::Gpu);
                    }
                }
            });
        });
    }
}

impl Runtime {
    /// Ranks `0..=rank`'s `value`s combined with `O` in rank order
    /// (`inclusive`), or ranks `0..rank`'s (`None` on rank 0).
    #[inline(always)]
    pub fn scan<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        value: T,
        (op, inclusive): (O, bool),
    ) -> Option<T> {
        let call = if inclusive { Call::Scan } else { Call::Exscan };
        let slots = self.meet(block, comm, call, [value.to_word(), 0, 0]);
        let (threads, me) = (block.threads(), comm.rank());
        let below = me + inclusive as u32;
        // As in `allreduce`: thread t folds ranks t, t + threads, ... below
        // `below`, then the block combines the threads in its fixed order.
        let v = block.reduce(
            |t| {
                let mut acc = O::identity();
                self.each_local(comm, t.index(), threads, |r, dev| {
                    if r < below {
                        acc = O::combine(acc, T::from_word(word(slots, dev as usize, 0)));
                    }
                });
                acc
            },
            op,
        );
        if !self.spans_processes(comm) {
            return (below > 0).then_some(v);
        }
        // This rank's part so far in word 1 of its record; the
        // representative combines in the other processes' values.
        let at = record(slots, block.id() as usize).wrapping_add(1);
        // SAFETY: this rank's own record; the barrier publishes it.
        block.leader(|_| unsafe { arch::store_relaxed(at, v.to_word(), Scope::Gpu) });
        self.local_barrier(block, comm, call);
        if block.id() == comm.rec.lead {
            self.scan_between_processes::<T, O>(block, comm, call, (slots, inclusive));
        }
        self.local_barrier(block, comm, call);
        let v = T::from_word(word(slots, block.id() as usize, 1));
        (below > 0).then_some(v)
    }

    /// On the representative: sends the values of the ranks here to every
    /// other process and combines theirs into the words of the ranks here
    /// that rank higher (or as high, `inclusive`).
    #[inline(always)]
    fn scan_between_processes<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        call: Call,
        (slots, inclusive): (*mut u64, bool),
    ) {
        let ctx = *self.ctx();
        let (p, reps) = (self.rep_index(comm), comm.rec.reps);
        let here = self.rep_process(comm, p);
        let value = move |ctx: &RankContext, i: u32, _: u32| {
            let dev = world_rank(ctx, comm, i).wrapping_sub(ctx.world_first);
            record(slots, dev as usize) as *mut u8
        };
        let nowhere = |_: &RankContext, _: u32, _: u32| core::ptr::null_mut();
        let apply = ScanIn::<T, O> {
            ctx,
            comm,
            slots,
            inclusive,
            op: PhantomData,
        };
        for s in 1..reps {
            let (to, from) = ((p + s) % reps, (p + reps - s) % reps);
            let send = Runs::new(&ctx, comm, (here, ONCE), 8, value);
            let back = self.rep_process(comm, from);
            let recv = Runs::new(&ctx, comm, (back, ONCE), 8, nowhere);
            self.stream_step(
                block,
                comm,
                call,
                Some((to, send)),
                Some((from, recv)),
                &apply,
            );
        }
    }

    /// `dst` (`n` elements) of rank `r` becomes chunk `r` of every rank's
    /// `src` (`size * n` elements) combined with `O`.
    #[inline(always)]
    pub fn reduce_scatter_into<T: Reducible + DeviceCopy, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        (src, dst): (DeviceSlice<T>, DeviceSlice<T>),
        _op: O,
    ) {
        let call = Call::ReduceScatter;
        let n = dst.len();
        self.check_buffer(
            block,
            call,
            (src.len(), comm.size() as usize * n, comm.size()),
            0,
        );
        let buffers = [
            Some(src.as_mut_ptr() as *mut u8),
            Some(dst.as_mut_ptr() as *mut u8),
        ];
        let slots = self.meet_slices(block, comm, call, buffers, (n, core::mem::size_of::<T>()));
        let (threads, first) = (block.threads() as usize, comm.rank() as usize * n);
        let out = dst.as_mut_ptr();
        block.each_thread(|t| {
            let mut e = t.index() as usize;
            while e < n {
                let mut acc = O::identity();
                self.each_local(comm, 0, 1, |_, dev| {
                    // SAFETY: element first + e of the source of a rank here
                    // (size * n elements, checked), unchanged until the
                    // barrier below.
                    acc = O::combine(acc, unsafe {
                        (word(slots, dev as usize, 0) as *const T)
                            .add(first + e)
                            .read()
                    });
                });
                // SAFETY: element e of this rank's own destination.
                unsafe { out.add(e).write(acc) };
                e += threads;
            }
        });
        if self.spans_processes(comm) {
            // The representative combines into destinations complete here.
            self.local_barrier(block, comm, call);
            if block.id() == comm.rec.lead {
                self.check_length_between_processes(block, comm, call, n);
                let run = n * core::mem::size_of::<T>();
                let apply = CombineIn::<T, O> {
                    theirs_first: false,
                    op: core::marker::PhantomData,
                };
                self.exchange_chunks(block, comm, call, (slots, run, false), &apply);
            }
        }
        // Every destination is complete, and no source is read any more.
        self.local_barrier(block, comm, call);
    }
}
