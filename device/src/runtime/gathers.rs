//! Collectives that move chunks between ranks: `allgather_into`,
//! `gather_into`, `scatter_from` and `alltoall_into`. Chunk `j` of a
//! buffer is elements `j * n .. (j + 1) * n`, where `n` is the length every
//! rank passes.
//!
//! Inside a GPU every rank publishes its buffers and copies its chunks
//! straight between them, in parallel with the other ranks. Across
//! processes each GPU's representative (the communicator's lowest rank
//! there) then moves the chunks of other GPUs' ranks as streams
//! ([`streams`](super::streams)), straight from and into the buffers of
//! its GPU's ranks: a ring for `allgather_into` (each step forwards the
//! chunks the last one brought), one step per other process for the rest.

use super::collective::word;
use super::comm::{world_rank, Comm};
use super::route::process_index;
use super::streams::{CopyIn, Runs, ONCE};
use super::Runtime;
use crate::abi::{Call, Fault, RankContext};
use crate::block::Block;
use crate::memory::{DeviceCopy, DeviceSlice};

/// Word `k` (0 source, 1 destination) of the record of rank `i` of `comm`,
/// a rank of this device, as a pointer.
#[inline(always)]
fn buffer(ctx: &RankContext, comm: Comm, slots: *mut u64, i: u32, k: usize) -> *mut u8 {
    let dev = world_rank(ctx, comm, i).wrapping_sub(ctx.world_first);
    word(slots, dev as usize, k) as *mut u8
}

/// The pointer of a slice, as bytes.
#[inline(always)]
fn bytes_of<T: DeviceCopy>(s: DeviceSlice<T>) -> *mut u8 {
    s.as_mut_ptr() as *mut u8
}

impl Runtime {
    /// Every rank's `src` (`n` elements), chunk by chunk in rank order, in
    /// every rank's `dst` (`size * n` elements).
    #[inline(always)]
    pub fn allgather_into<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        (src, dst): (DeviceSlice<T>, DeviceSlice<T>),
    ) {
        let call = Call::Allgather;
        let n = src.len();
        self.check_buffer(
            block,
            call,
            (dst.len(), comm.size() as usize * n, comm.size()),
            1,
        );
        let slots = self.meet_slices(
            block,
            comm,
            call,
            [Some(bytes_of(src)), Some(bytes_of(dst))],
            (n, core::mem::size_of::<T>()),
        );
        let (ctx, run, mine) = (*self.ctx(), n * core::mem::size_of::<T>(), bytes_of(dst));
        // SAFETY: the sources the ranks here published, of the lengths
        // checked; chunk j of this rank's destination is its own.
        unsafe {
            self.copy_chunks(block, comm, run, |j, dev| {
                let from = word(slots, dev as usize, 0) as *const u8;
                (mine.wrapping_add(j as usize * run), from)
            })
        };
        if self.spans_processes(comm) {
            let lead = comm.rec.lead;
            if block.id() == lead {
                self.check_length_between_processes(block, comm, call, n);
                let (p, reps) = (self.rep_index(comm), comm.rec.reps);
                let chunk =
                    move |_: &RankContext, i: u32, _: u32| mine.wrapping_add(i as usize * run);
                // Step s passes on the chunks of the process s places back.
                for s in 0..reps - 1 {
                    let out = self.rep_process(comm, (p + reps - s) % reps);
                    let inn = self.rep_process(comm, (p + 2 * reps - 1 - s) % reps);
                    let send = Runs::new(&ctx, comm, (out, ONCE), run, chunk);
                    let recv = Runs::new(&ctx, comm, (inn, ONCE), run, chunk);
                    let (right, left) = ((p + 1) % reps, (p + reps - 1) % reps);
                    self.stream_step(
                        block,
                        comm,
                        call,
                        Some((right, send)),
                        Some((left, recv)),
                        &CopyIn,
                    );
                }
            }
            self.local_barrier(block, comm, call);
            if block.id() != lead {
                let all = word(slots, lead as usize, 1) as *const u8;
                // SAFETY: the representative's destination, complete after
                // the barrier; this rank's own destination.
                unsafe { block.copy(mine, all, comm.size() as usize * run) };
            }
        }
        // Every destination is complete, and no buffer is read any more.
        self.local_barrier(block, comm, call);
    }

    /// Every rank's `src` (`n` elements), chunk by chunk in rank order, in
    /// rank `root`'s `dst` (`size * n` elements; ignored elsewhere).
    #[inline(always)]
    pub fn gather_into<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        root: u32,
        (src, dst): (DeviceSlice<T>, DeviceSlice<T>),
    ) {
        let call = Call::Gather;
        let (slots, run) = self.meet_rooted(block, (comm, call, root), (src, dst), src.len());
        if self.is_here(comm, root) {
            let to = buffer(self.ctx(), comm, slots, root, 1);
            let to = to.wrapping_add(comm.rank() as usize * run);
            // SAFETY: this rank's chunk of the root's destination.
            unsafe { block.copy(to, bytes_of(src), run) };
        }
        if self.spans_processes(comm) && block.id() == comm.rec.lead {
            let source = move |ctx: &RankContext, i: u32, _: u32| buffer(ctx, comm, slots, i, 0);
            let into = move |ctx: &RankContext, i: u32, _: u32| {
                buffer(ctx, comm, slots, root, 1).wrapping_add(i as usize * run)
            };
            let chunk = (run, src.len());
            self.rooted_steps(block, (comm, call, root, true), chunk, (source, into));
        }
        // The root's destination is complete, and no source is read any more.
        self.local_barrier(block, comm, call);
    }

    /// Chunk `r` of rank `root`'s `src` (`size * n` elements; ignored
    /// elsewhere) in the `dst` (`n` elements) of every rank `r`.
    #[inline(always)]
    pub fn scatter_from<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        root: u32,
        (src, dst): (DeviceSlice<T>, DeviceSlice<T>),
    ) {
        let call = Call::Scatter;
        let (slots, run) = self.meet_rooted(block, (comm, call, root), (src, dst), dst.len());
        if self.is_here(comm, root) {
            let from = buffer(self.ctx(), comm, slots, root, 0);
            let from = from.wrapping_add(comm.rank() as usize * run);
            // SAFETY: this rank's chunk of the root's source; its own destination.
            unsafe { block.copy(bytes_of(dst), from, run) };
        }
        if self.spans_processes(comm) && block.id() == comm.rec.lead {
            let source = move |ctx: &RankContext, i: u32, _: u32| {
                buffer(ctx, comm, slots, root, 0).wrapping_add(i as usize * run)
            };
            let into = move |ctx: &RankContext, i: u32, _: u32| buffer(ctx, comm, slots, i, 1);
            let chunk = (run, dst.len());
            self.rooted_steps(block, (comm, call, root, false), chunk, (source, into));
        }
        // Every destination is complete, and the root's source is not read any more.
        self.local_barrier(block, comm, call);
    }

    /// The checks and the meeting of `gather_into` and `scatter_from`
    /// (chunks of `n` elements): the root's buffer of `size * n` elements
    /// (its destination for a gather, its source for a scatter) is the only
    /// one of its kind used. Returns the records and the chunk's bytes.
    #[inline(always)]
    fn meet_rooted<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        (comm, call, root): (Comm, Call, u32),
        (src, dst): (DeviceSlice<T>, DeviceSlice<T>),
        n: usize,
    ) -> (*mut u64, usize) {
        self.check_root(block, call, comm, root);
        let at_root = comm.rank() == root;
        // A gather's root gathers into its destination; a scatter's root
        // scatters from its source.
        let (whole, k) = if call == Call::Gather {
            (dst, 1)
        } else {
            (src, 0)
        };
        if at_root {
            let size = comm.size();
            self.check_buffer(block, call, (whole.len(), size as usize * n, size), k);
        }
        let mut buffers = [Some(bytes_of(src)), Some(bytes_of(dst))];
        if !at_root {
            buffers[k as usize] = None;
        }
        let slots = self.meet_slices(block, comm, call, buffers, (n, core::mem::size_of::<T>()));
        (slots, n * core::mem::size_of::<T>())
    }

    /// The steps between processes of `gather_into` (`toward_root`) and
    /// `scatter_from`: one per other process, between the root's
    /// representative and that process's, carrying the chunks of that
    /// process's ranks from `source` into `into`.
    #[inline(always)]
    fn rooted_steps<S, R>(
        &mut self,
        block: &mut Block,
        (comm, call, root, toward_root): (Comm, Call, u32, bool),
        (run, n): (usize, usize),
        (source, into): (S, R),
    ) where
        S: Fn(&RankContext, u32, u32) -> *mut u8 + Copy,
        R: Fn(&RankContext, u32, u32) -> *mut u8 + Copy,
    {
        self.check_length_between_processes(block, comm, call, n);
        let ctx = *self.ctx();
        let (p, reps) = (self.rep_index(comm), comm.rec.reps);
        let top = self.rep_of(comm, root);
        for s in 1..reps {
            let q = (top + s) % reps;
            let process = self.rep_process(comm, q);
            let (from, to) = if toward_root { (q, top) } else { (top, q) };
            let walk = (process, ONCE);
            let send = (p == from).then(|| (to, Runs::new(&ctx, comm, walk, run, source)));
            let recv = (p == to).then(|| (from, Runs::new(&ctx, comm, walk, run, into)));
            self.stream_step(block, comm, call, send, recv, &CopyIn);
        }
    }

    /// Chunk `r` of every rank `j`'s `src` in chunk `j` of rank `r`'s `dst`
    /// (both `size * n` elements).
    #[inline(always)]
    pub fn alltoall_into<T: DeviceCopy>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        (src, dst): (DeviceSlice<T>, DeviceSlice<T>),
    ) {
        let call = Call::Alltoall;
        let size = comm.size() as usize;
        let n = src.len() / size;
        self.check_buffer(block, call, (src.len(), size * n, comm.size()), 0);
        self.check_buffer(block, call, (dst.len(), size * n, comm.size()), 1);
        let slots = self.meet_slices(
            block,
            comm,
            call,
            [Some(bytes_of(src)), Some(bytes_of(dst))],
            (n, core::mem::size_of::<T>()),
        );
        let (run, me) = (n * core::mem::size_of::<T>(), comm.rank() as usize);
        let mine = bytes_of(dst);
        // SAFETY: chunk `me` of the source of a rank here; chunk j of this
        // rank's own destination.
        unsafe {
            self.copy_chunks(block, comm, run, |j, dev| {
                let from = (word(slots, dev as usize, 0) as *const u8).wrapping_add(me * run);
                (mine.wrapping_add(j as usize * run), from)
            })
        };
        if self.spans_processes(comm) && block.id() == comm.rec.lead {
            self.check_length_between_processes(block, comm, call, n);
            self.exchange_chunks(block, comm, call, (slots, run, true), &CopyIn);
        }
        // Every destination is complete, and no source is read any more.
        self.local_barrier(block, comm, call);
    }

    /// The step between processes of `alltoall_into` and
    /// `reduce_scatter_into`: for each other process, its ranks' chunks of
    /// this device's sources go to it, and this device's ranks' chunks of
    /// its sources come in, through `apply`: sender `i`'s chunk for rank
    /// `j` into chunk `i` of `j`'s destination if `stacked`, else into the
    /// whole of it. One step per other process: s places ahead and s places
    /// back.
    #[inline(always)]
    pub(super) fn exchange_chunks<A: super::streams::Apply>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        call: Call,
        (slots, run, stacked): (*mut u64, usize, bool),
        apply: &A,
    ) {
        let ctx = *self.ctx();
        let (p, reps) = (self.rep_index(comm), comm.rec.reps);
        let here = self.rep_process(comm, p);
        let source = move |ctx: &RankContext, i: u32, j: u32| {
            buffer(ctx, comm, slots, i, 0).wrapping_add(j as usize * run)
        };
        let into = move |ctx: &RankContext, i: u32, j: u32| {
            buffer(ctx, comm, slots, j, 1).wrapping_add(stacked as usize * i as usize * run)
        };
        for s in 1..reps {
            let (to, from) = ((p + s) % reps, (p + reps - s) % reps);
            let (there, back) = (self.rep_process(comm, to), self.rep_process(comm, from));
            let send = Runs::new(&ctx, comm, (here, there), run, source);
            let recv = Runs::new(&ctx, comm, (back, here), run, into);
            self.stream_step(
                block,
                comm,
                call,
                Some((to, send)),
                Some((from, recv)),
                apply,
            );
        }
    }

    /// Fails `call` unless `root` is a rank of `comm`.
    #[inline(always)]
    pub(super) fn check_root(&mut self, block: &mut Block, call: Call, comm: Comm, root: u32) {
        if root >= comm.size() {
            let values = [root as u64, comm.size() as u64, 0, 0];
            self.fail(block, call, Fault::RankOutOfRange, values);
        }
    }

    /// Whether rank `r` of `comm` is on this device.
    #[inline(always)]
    fn is_here(&self, comm: Comm, r: u32) -> bool {
        let ctx = self.ctx();
        self.world_rank(comm, r).wrapping_sub(ctx.world_first) < ctx.ranks
    }

    /// The representative index of the process holding rank `r` of `comm`.
    #[inline(always)]
    fn rep_of(&self, comm: Comm, r: u32) -> u32 {
        let process = process_index(self.ctx(), self.world_rank(comm, r));
        let mut q = 0;
        while q + 1 < comm.rec.reps && self.rep_process(comm, q) != process {
            q += 1;
        }
        q
    }
}
