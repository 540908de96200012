//! Collectives over slices: `allreduce_into`.
//!
//! Inside a GPU a slice is reduced in place of the ranks' own buffers:
//! each rank publishes its source and destination, then reduces one chunk
//! of the elements over the sources of the communicator's ranks here, in
//! rank order, and writes the result into each of their destinations: each
//! rank reads and writes about the length of one buffer, whatever the
//! number of ranks, and every rank gets the same bits.
//!
//! Across processes the chunks are reduced into the destination of the
//! communicator's lowest rank here (its representative), the
//! representatives combine those vectors between processes
//! ([`vectors`](super::vectors)), and each rank here then copies its chunk
//! of the result into the other destinations. With one rank of the
//! communicator per GPU (a communicator per device rank, say) every rank
//! is its own representative and all of them move data at once.

use super::collective::word;
use super::comm::Comm;
use super::Runtime;
use crate::abi::{Call, Fault};
use crate::arch;
use crate::block::{Block, Max, ReduceOp, Reducible, Sum};
use crate::memory::{DeviceCopy, DeviceSlice};
use core::mem::size_of;

/// Where a slice's element size starts in the shape word of its record;
/// the length takes the bits below.
const ELEMENT_SHIFT: u32 = 48;
/// The longest slice a collective takes, in elements.
const LENGTH: u64 = (1 << ELEMENT_SHIFT) - 1;
/// Elements a thread reduces at once over the ranks' buffers.
pub(super) const TILE: usize = 8;

impl Runtime {
    /// `dst[i]` on every rank of `comm` becomes every rank's `src[i]`
    /// combined with `op`: in rank order on each device, then device by
    /// device in process order. Every rank passes slices of one length, in
    /// its GPU's global memory; `src` and `dst` may be the same.
    #[inline(always)]
    pub fn allreduce_into<T: Reducible + DeviceCopy, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        (src, dst): (DeviceSlice<T>, DeviceSlice<T>),
        _op: O,
    ) {
        let call = Call::AllreduceInto;
        let n = src.len();
        if dst.len() != n {
            let values = [n as u64, dst.len() as u64, u64::MAX, 0];
            self.fail(block, call, Fault::LengthMismatch, values);
        }
        let buffers = [
            Some(src.as_mut_ptr() as *mut u8),
            Some(dst.as_mut_ptr() as *mut u8),
        ];
        let slots = self.meet_slices(block, comm, call, buffers, (n, size_of::<T>()));
        let threads = block.threads();
        // This rank's place among the ranks here, in rank order.
        let me = comm.rank();
        let place = block.reduce(
            |t| {
                let mut below = 0u32;
                self.each_local(comm, t.index(), threads, |r, _| below += (r < me) as u32);
                below
            },
            Sum,
        );
        let spans = self.spans_processes(comm);
        if spans && comm.rec.local == 1 {
            // This rank is the communicator's only one here (a rail, one
            // rank per GPU): its own source is this GPU's whole share.
            if src.as_ptr() != dst.as_ptr() {
                // SAFETY: both slices hold n elements (checked above).
                unsafe {
                    block.copy(
                        dst.as_mut_ptr() as *mut u8,
                        src.as_ptr() as _,
                        n * size_of::<T>(),
                    )
                };
            }
            self.local_barrier(block, comm, call);
            self.check_length_between_processes(block, comm, call, n);
            self.leaders_allreduce_into::<T, O>(block, comm, call, dst.as_mut_ptr(), n);
            self.local_barrier(block, comm, call);
            return self.local_barrier(block, comm, call);
        }
        let lead = comm.rec.lead as usize;
        let chunk = n.div_ceil(comm.rec.local.max(1) as usize);
        let start = (place as usize * chunk).min(n);
        let end = (start + chunk).min(n);
        block.each_thread(|t| {
            // TILE elements of this thread at a time: the ranks' buffers
            // are looked up once per tile, not once per element.
            let mut at = start + t.index() as usize;
            while at < end {
                let tile = |k: usize| Some(at + k * threads as usize).filter(|&i| i < end);
                let mut acc = [O::identity(); TILE];
                self.each_local(comm, 0, 1, |_, dev| {
                    let src = word(slots, dev as usize, 0) as *const T;
                    for (k, a) in acc.iter_mut().enumerate() {
                        if let Some(i) = tile(k) {
                            // SAFETY: the source of n elements of a rank
                            // here, published before the barrier and
                            // unchanged until the barrier below.
                            *a = O::combine(*a, unsafe { src.add(i).read() });
                        }
                    }
                });
                let put = |dev: u32| {
                    let dst = word(slots, dev as usize, 1) as *mut T;
                    for (k, a) in acc.iter().enumerate() {
                        if let Some(i) = tile(k) {
                            // SAFETY: a destination of a rank here; element
                            // i is this rank's alone to write.
                            unsafe { dst.add(i).write(*a) };
                        }
                    }
                };
                if spans {
                    put(lead as u32);
                } else {
                    self.each_local(comm, 0, 1, |_, dev| put(dev));
                }
                at += TILE * threads as usize;
            }
        });
        if spans {
            self.local_barrier(block, comm, call);
            if block.id() as usize == lead {
                self.check_length_between_processes(block, comm, call, n);
                let buf = word(slots, lead, 1) as *mut T;
                self.leaders_allreduce_into::<T, O>(block, comm, call, buf, n);
            }
            self.local_barrier(block, comm, call);
            let result = word(slots, lead, 1) as *const T;
            block.each_thread(|t| {
                let mut at = start + t.index() as usize;
                while at < end {
                    let tile = |k: usize| Some(at + k * threads as usize).filter(|&i| i < end);
                    let mut v = [O::identity(); TILE];
                    for (k, v) in v.iter_mut().enumerate() {
                        if let Some(i) = tile(k) {
                            // SAFETY: the representative's result, complete
                            // after the barrier.
                            *v = unsafe { result.add(i).read() };
                        }
                    }
                    self.each_local(comm, 0, 1, |_, dev| {
                        if dev as usize == lead {
                            return;
                        }
                        let dst = word(slots, dev as usize, 1) as *mut T;
                        for (k, v) in v.iter().enumerate() {
                            if let Some(i) = tile(k) {
                                // SAFETY: element i of the other
                                // destinations is this rank's alone to write.
                                unsafe { dst.add(i).write(*v) };
                            }
                        }
                    });
                    at += TILE * threads as usize;
                }
            });
        }
        // Every destination is complete, and no source is read any more.
        self.local_barrier(block, comm, call);
    }

    /// Publishes this rank's `buffers` (source, destination; `None` where
    /// this rank passes none), length `n` and element size `elem` to the
    /// ranks of `comm` here, after checking that the buffers are global
    /// memory (other ranks and the host reach them), and fails unless every
    /// rank here passed `n` elements of `elem` bytes: each rank reads and
    /// writes the others' buffers by its own `n` and `elem`. Returns the
    /// records (words: source, destination, shape).
    #[inline(always)]
    pub(super) fn meet_slices(
        &mut self,
        block: &mut Block,
        comm: Comm,
        call: Call,
        buffers: [Option<*mut u8>; 2],
        (n, elem): (usize, usize),
    ) -> *mut u64 {
        for s in buffers.into_iter().flatten() {
            if n > 0 && !arch::is_global(s) {
                let values = [s as u64, comm.rank() as u64, 0, 0];
                self.fail(block, call, Fault::NotGlobal, values);
            }
        }
        if n as u64 > LENGTH {
            self.fail(block, call, Fault::CountTooLarge, [n as u64, LENGTH, 0, 0]);
        }
        let shape = n as u64 | (elem as u64) << ELEMENT_SHIFT;
        let word_of = |b: Option<*mut u8>| b.map_or(0, |p| p as u64);
        let mine = [word_of(buffers[0]), word_of(buffers[1]), shape];
        let slots = self.meet(block, comm, call, mine);
        let threads = block.threads();
        // The highest rank here that disagrees on the shape, plus one.
        let odd = block.reduce(
            |t| {
                let mut found = 0u32;
                self.each_local(comm, t.index(), threads, |r, dev| {
                    if word(slots, dev as usize, 2) != shape {
                        found = found.max(r + 1);
                    }
                });
                found
            },
            Max,
        );
        if odd != 0 {
            let dev = self.world_rank(comm, odd - 1) - self.ctx().world_first;
            let theirs = word(slots, dev as usize, 2);
            let (their_n, their_elem) = (theirs & LENGTH, theirs >> ELEMENT_SHIFT);
            let rank = odd as u64 - 1;
            if their_elem != elem as u64 {
                // No window: the values name the rank and both sizes.
                let values = [u64::MAX, their_elem, elem as u64, rank];
                self.fail(block, call, Fault::ElementMismatch, values);
            }
            let values = [n as u64, their_n, rank, 0];
            self.fail(block, call, Fault::LengthMismatch, values);
        }
        slots
    }

    /// Fails `call` unless a buffer of `len` elements has `needed`, `size`
    /// chunks (`which`: 0 the source, 1 the destination).
    #[inline(always)]
    pub(super) fn check_buffer(
        &mut self,
        block: &mut Block,
        call: Call,
        (len, needed, size): (usize, usize, u32),
        which: u64,
    ) {
        if len != needed {
            let values = [len as u64, needed as u64, which, size as u64];
            self.fail(block, call, Fault::BufferLength, values);
        }
    }

    /// Fails unless every process's ranks of `comm` passed `n` elements
    /// (on the representative, whose every thread calls it).
    #[inline(always)]
    pub(super) fn check_length_between_processes(
        &mut self,
        block: &mut Block,
        comm: Comm,
        call: Call,
        n: usize,
    ) {
        if n > u32::MAX as usize {
            self.fail(
                block,
                call,
                Fault::CountTooLarge,
                [n as u64, u32::MAX as u64, 0, 0],
            );
        }
        // The largest length and the largest complement, in one word.
        let packed = ((n as u64) << 32) | (u32::MAX as u64 - n as u64);
        let both = self.leaders_allreduce::<u64, Max>(block, comm, call, packed);
        let (most, least) = (both >> 32, u32::MAX as u64 - (both & u32::MAX as u64));
        if most != least {
            let other = if most != n as u64 { most } else { least };
            let values = [n as u64, other, u64::MAX - 1, 0];
            self.fail(block, call, Fault::LengthMismatch, values);
        }
    }
}
