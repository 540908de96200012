//! Collectives that combine part of the ranks' values: `scan` and `exscan`
//! of one value (the ranks below, as `MPI_Scan` and `MPI_Exscan`), and
//! `reduce_scatter_into` (each rank's chunk of every rank's source, as
//! `MPI_Reduce_scatter_block`).
//!
//! Inside a GPU they meet as [`allreduce`](super::collective) does and each
//! rank combines what it needs itself, in rank order. Across processes
//! `reduce_scatter_into` first combines the chunks of the ranks here, then
//! each GPU's representative combines in the chunks of every other
//! process's ranks, as they arrive ([`gathers`](super::gathers)). A scan
//! across processes is not built yet.

use super::collective::word;
use super::comm::Comm;
use super::streams::CombineIn;
use super::Runtime;
use crate::abi::{Call, Fault};
use crate::block::{Block, ReduceOp, Reducible};
use crate::memory::{DeviceCopy, DeviceSlice};

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
        if self.spans_processes(comm) {
            let values = [comm.size() as u64, comm.rec.reps as u64, 0, 0];
            self.fail(block, call, Fault::CollectiveAcrossProcesses, values);
        }
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
        (below > 0).then_some(v)
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
        let slots = self.meet_slices(block, comm, call, buffers, n);
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
