//! Streams between the representatives of a communicator that spans
//! processes: the one way the collectives over slices move data between
//! GPUs.
//!
//! A stream is a sequence of runs of equal length, one per rank (or per
//! pair of ranks) of given processes, in rank order ([`Runs`]); both ends
//! walk the same sequence, so nothing but the bytes travels. A stream
//! moves in pieces of `STREAM_PIECE` bytes through the receiver's staging
//! area (two halves, beside its mailboxes in the memory a mapped GPU
//! reaches). The receiver grants a half with a notification (`room` tag of
//! the communicator's slot) and the sender writes a piece only once
//! granted, then notifies it (`data` tag): with two halves the sender
//! writes piece k + 1 while the receiver takes piece k. A mapped GPU is
//! written directly by every thread of the rank, any other process through
//! the hosts (a put per run, in order, then the notification).
//!
//! A grant carries no sender: with more than two representatives a
//! receiver already in a later step could grant a sender still in an
//! earlier one, which would take the grant for its own partner's. So with
//! more than two representatives every step starts with a barrier between
//! them: a grant is made only once every representative is done with the
//! steps before.

use super::comm::{world_rank, Comm, CommKind};
use super::notify::{init_consumed, try_consume};
use super::route::{process_index, Place};
use super::slices::TILE;
use super::Runtime;
use crate::abi::{
    Call, Op, Peer, RankContext, Route, Transfer, NO_TAG, STAGE_HALF, STAGE_WINDOW, STREAM_PIECE,
    VECTOR_TAGS,
};
use crate::block::{Block, ReduceOp, Reducible};

/// No process: a walk of one pass, with rank 0.
pub(super) const ONCE: u32 = u32::MAX;

/// The runs of a stream: for each rank `i` of `comm` on process `outer`
/// (in rank order), for each rank `j` on process `inner`, `run` bytes at
/// `at(ctx, i, j)`. A process is an index in the run's process table;
/// `ONCE` stands for a single pass.
pub(super) struct Runs<F> {
    comm: Comm,
    outer: u32,
    inner: u32,
    run: usize,
    at: F,
    /// The current pair of ranks (`i == size`: the end) and the bytes of
    /// its run already taken.
    i: u32,
    j: u32,
    taken: usize,
}

impl<F: Fn(&RankContext, u32, u32) -> *mut u8> Runs<F> {
    #[inline(always)]
    pub fn new(
        ctx: &RankContext,
        comm: Comm,
        (outer, inner): (u32, u32),
        run: usize,
        at: F,
    ) -> Self {
        let mut runs = Runs {
            comm,
            outer,
            inner,
            run,
            at,
            i: 0,
            j: 0,
            taken: 0,
        };
        runs.i = runs.next_on(ctx, outer, 0);
        runs.j = runs.next_on(ctx, inner, 0);
        if runs.j == runs.end(inner) {
            runs.i = comm.size(); // no inner rank: no run at all
        }
        runs
    }

    /// The stream's length in bytes.
    #[inline(always)]
    pub fn bytes(&self, ctx: &RankContext) -> usize {
        self.count(ctx, self.outer) * self.count(ctx, self.inner) * self.run
    }

    /// The next at most `max` bytes of the stream: the ranks of their run,
    /// where they are, and how many (`None` at the end).
    #[inline(always)]
    pub fn take(&mut self, ctx: &RankContext, max: usize) -> Option<((u32, u32), *mut u8, usize)> {
        while self.i < self.end(self.outer) {
            let left = self.run - self.taken;
            if left > 0 && max > 0 {
                let len = left.min(max);
                let at = (self.at)(ctx, self.i, self.j).wrapping_add(self.taken);
                self.taken += len;
                return Some(((self.i, self.j), at, len));
            }
            if max == 0 {
                return None;
            }
            self.taken = 0;
            self.j = self.next_on(ctx, self.inner, self.j.wrapping_add(1));
            if self.j == self.end(self.inner) {
                self.j = self.next_on(ctx, self.inner, 0);
                self.i = self.next_on(ctx, self.outer, self.i.wrapping_add(1));
            }
        }
        None
    }

    /// The end of a walk over `process`.
    #[inline(always)]
    fn end(&self, process: u32) -> u32 {
        match process {
            ONCE => 1,
            _ => self.comm.size(),
        }
    }

    /// The first rank `>= from` of `comm` on `process`, or the end.
    #[inline(always)]
    fn next_on(&self, ctx: &RankContext, process: u32, from: u32) -> u32 {
        if process == ONCE {
            return from.min(1);
        }
        let (comm, size) = (self.comm, self.comm.size());
        if comm.kind == CommKind::World {
            // The world's ranks are numbered process by process.
            // SAFETY: a process of the job.
            let peer = unsafe { *ctx.peer(process) };
            return match from {
                f if f < peer.first => peer.first,
                f if f < peer.first + peer.ranks => f,
                _ => size,
            };
        }
        let mut r = from;
        while r < size && process_index(ctx, world_rank(ctx, comm, r)) != process {
            r += 1;
        }
        r
    }

    /// How many ranks of `comm` are on `process`.
    #[inline(always)]
    fn count(&self, ctx: &RankContext, process: u32) -> usize {
        let mut n = 0;
        let mut r = self.next_on(ctx, process, 0);
        while r < self.end(process) {
            n += 1;
            r = self.next_on(ctx, process, r + 1);
        }
        n
    }
}

/// What a receiver does with the bytes of a piece.
pub(super) trait Apply {
    /// Takes `bytes` bytes at `src` (the staging area) of the run of ranks
    /// `ranks` into `dst`, on every thread of the block (no barrier).
    ///
    /// # Safety
    /// Both ranges are valid and this rank's alone to touch.
    unsafe fn apply(
        &self,
        block: &Block,
        ranks: (u32, u32),
        dst: *mut u8,
        src: *const u8,
        bytes: usize,
    );
}

/// Copies the pieces over the runs.
pub(super) struct CopyIn;

impl Apply for CopyIn {
    #[inline(always)]
    unsafe fn apply(
        &self,
        block: &Block,
        _: (u32, u32),
        dst: *mut u8,
        src: *const u8,
        bytes: usize,
    ) {
        // SAFETY: as the caller promised.
        unsafe { block.copy(dst, src, bytes) }
    }
}

/// Combines the pieces with the runs' elements of type `T` with `O`; the
/// received values go first when `theirs_first`.
pub(super) struct CombineIn<T, O> {
    pub theirs_first: bool,
    pub op: core::marker::PhantomData<(T, O)>,
}

impl<T: Reducible, O: ReduceOp<T>> Apply for CombineIn<T, O> {
    #[inline(always)]
    unsafe fn apply(
        &self,
        block: &Block,
        _: (u32, u32),
        dst: *mut u8,
        src: *const u8,
        bytes: usize,
    ) {
        let (dst, src) = (dst as *mut T, src as *const T);
        let count = bytes / core::mem::size_of::<T>();
        let step = block.threads() as usize;
        block.each_thread(|t| {
            // SAFETY: as the caller promised.
            unsafe {
                combine_tiles::<T, O>(
                    dst,
                    src,
                    count,
                    (t.index() as usize, step),
                    self.theirs_first,
                )
            }
        });
    }
}

/// Thread `first` of `step`'s share of `CombineIn`: TILE elements at a
/// time, every load issued before the first store. One element at a time,
/// each load waited for the store before it (the ranges might alias), and
/// a 64 KiB piece took about 40 us on an H200. Not inlined, so that the
/// tile's registers stay out of the rank kernel's allocation.
///
/// # Safety
/// `dst` and `src` hold `count` elements, this thread's alone to touch.
#[inline(never)]
unsafe fn combine_tiles<T: Reducible, O: ReduceOp<T>>(
    dst: *mut T,
    src: *const T,
    count: usize,
    (first, step): (usize, usize),
    theirs_first: bool,
) {
    let mut at = first;
    while at < count {
        let tile = |k: usize| Some(at + k * step).filter(|&i| i < count);
        let (mut theirs, mut mine) = ([O::identity(); TILE], [O::identity(); TILE]);
        for k in 0..TILE {
            if let Some(i) = tile(k) {
                // SAFETY: element i of both ranges.
                unsafe { (theirs[k], mine[k]) = (src.add(i).read(), dst.add(i).read()) };
            }
        }
        for k in 0..TILE {
            if let Some(i) = tile(k) {
                let value = match theirs_first {
                    true => O::combine(theirs[k], mine[k]),
                    false => O::combine(mine[k], theirs[k]),
                };
                // SAFETY: as above.
                unsafe { dst.add(i).write(value) };
            }
        }
        at += TILE * step;
    }
}

impl Runtime {
    /// One step between representatives of `comm`: sends the stream `send`
    /// to representative `to` and takes the stream `recv` from
    /// representative `from` with `apply`, piece by piece (either may be
    /// `None`). Every thread of this representative calls it, and every
    /// representative takes every step (with nothing to do, if so).
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    pub(super) fn stream_step<S, R, A>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        call: Call,
        send: Option<(u32, Runs<S>)>,
        recv: Option<(u32, Runs<R>)>,
        apply: &A,
    ) where
        S: Fn(&RankContext, u32, u32) -> *mut u8,
        R: Fn(&RankContext, u32, u32) -> *mut u8,
        A: Apply,
    {
        if comm.rec.reps > 2 {
            self.leaders_barrier(block, comm);
        }
        let ctx = *self.ctx();
        let (room, data) = (VECTOR_TAGS + 2 * comm.slot, VECTOR_TAGS + 2 * comm.slot + 1);
        let send_bytes = send.as_ref().map_or(0, |(_, runs)| runs.bytes(&ctx));
        let recv_bytes = recv.as_ref().map_or(0, |(_, runs)| runs.bytes(&ctx));
        let (sends, recvs) = (
            send_bytes.div_ceil(STREAM_PIECE),
            recv_bytes.div_ceil(STREAM_PIECE),
        );
        let ((to, to_peer), mut out) = match send {
            Some((to, runs)) => (self.rep_place(comm, to), Some(runs)),
            None => (self.rep_place(comm, 0), None),
        };
        let ((from, _), mut inn) = match recv {
            Some((from, runs)) => (self.rep_place(comm, from), Some(runs)),
            None => (self.rep_place(comm, 0), None),
        };
        for _ in 0..recvs.min(2) {
            self.signal(block, &from, room);
        }
        let me = block.id();
        for k in 0..sends.max(recvs) {
            let half = (k % 2) as u32;
            if let (true, Some(runs)) = (k < sends, out.as_mut()) {
                let len = (send_bytes - k * STREAM_PIECE).min(STREAM_PIECE);
                self.wait_reserved(block, call, room);
                block.sync(); // The runs are complete before they are read.
                let mut done = 0;
                while let Some((_, at, bytes)) = runs.take(&ctx, len - done) {
                    let offset = half as usize * STAGE_HALF + done;
                    if to.route == Route::Host {
                        let t = Transfer {
                            target: to.world,
                            window: STAGE_WINDOW,
                            offset: offset as u64,
                            local: at as u64,
                            bytes: bytes as u64,
                        };
                        self.through_host(block, call, Op::Put, NO_TAG, t);
                    } else {
                        // SAFETY: the partner's staging, mapped here and
                        // granted to this step; the run is the sender's.
                        let stage = to_peer.stage(to.dev, 0).wrapping_add(offset);
                        unsafe { block.copy(stage, at, bytes) };
                    }
                    done += bytes;
                }
                self.signal(block, &to, data);
            }
            let (true, Some(runs)) = (k < recvs, inn.as_mut()) else {
                continue;
            };
            let len = (recv_bytes - k * STREAM_PIECE).min(STREAM_PIECE);
            self.wait_reserved(block, call, data);
            if sends > 0 {
                // The host may still read a run this piece overwrites.
                self.wait_host(block, call);
            }
            let stage = ctx.stage(me, half) as *const u8;
            let mut done = 0;
            while let Some((ranks, at, bytes)) = runs.take(&ctx, len - done) {
                // SAFETY: the granted half, written before the notification
                // just consumed; the run is this rank's to write.
                unsafe { apply.apply(block, ranks, at, stage.wrapping_add(done), bytes) };
                done += bytes;
            }
            block.sync(); // Every thread is done with the half before it is granted again.
            if k + 2 < recvs {
                self.signal(block, &from, room);
            }
        }
        if sends > 0 {
            self.wait_host(block, call); // The host has read every run.
        }
    }

    /// Where representative `r` of `comm` is, and its process.
    #[inline(always)]
    fn rep_place(&self, comm: Comm, r: u32) -> (Place, Peer) {
        let ctx = self.ctx();
        let world = self.rep_world_rank(comm, r);
        // SAFETY: a rank of the job, so its process is in the table.
        let peer = unsafe { *ctx.peer(process_index(ctx, world)) };
        let place = Place {
            world,
            dev: world - peer.first,
            route: peer.route(),
            counters: peer.notifications,
        };
        (place, peer)
    }

    /// The process (an index in the run's process table) of representative
    /// `r` of `comm`.
    #[inline(always)]
    pub(super) fn rep_process(&self, comm: Comm, r: u32) -> u32 {
        process_index(self.ctx(), self.rep_world_rank(comm, r))
    }

    /// Waits for one notification of reserved tag `tag` and consumes it.
    #[inline(always)]
    fn wait_reserved(&mut self, block: &mut Block, call: Call, tag: u32) {
        let (ctx, id) = (*self.ctx(), block.id());
        let mut setup = self.counters.first_use();
        self.wait_until(block, call, [tag, 1, 0], || {
            if core::mem::take(&mut setup) {
                init_consumed(ctx.notification_start);
            }
            try_consume(&ctx, id, tag, 1)
        });
    }
}
