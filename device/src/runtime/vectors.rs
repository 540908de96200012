//! The step between devices of a collective over a vector (`allreduce_into`
//! across processes): the communicator's representatives combine their
//! devices' vectors by recursive doubling, as [`leaders`](super::leaders)
//! does for one word, with every thread of the representative's rank
//! moving the data.
//!
//! A vector moves in pieces of `STAGE_HALF` bytes through the receiver's
//! staging area (two halves, beside its mailboxes in the memory a mapped
//! GPU reaches). The receiver grants a half with a notification (`room`
//! tag) and the sender writes a piece there only once granted, then
//! notifies it (`data` tag): the receiver's staging is written only by the
//! partner it granted, for the step it is in, so no other communicator's
//! traffic can land there. With two halves the sender writes piece k + 1
//! while the receiver combines piece k. A mapped GPU is written directly by
//! every thread of the rank; any other process through the hosts.

use super::comm::Comm;
use super::notify::{init_consumed, try_consume};
use super::route::{process_index, Place};
use super::Runtime;
use crate::abi::{Call, Op, Route, Transfer, STAGE_HALF, STAGE_WINDOW, VECTOR_TAGS};
use crate::block::{Block, ReduceOp, Reducible};

/// What a step does with the pieces it receives.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Take {
    /// Nothing is received.
    Nothing,
    /// Copied over the vector (the final result).
    Copy,
    /// Combined with the vector; the partner's values go first when it is
    /// the lower representative, so every one combines in the same order.
    Combine { theirs_first: bool },
}

impl Runtime {
    /// Combines `buf` (`n` elements) of every representative of `comm`
    /// with `O`, in place, on every thread of this representative.
    #[inline(always)]
    pub fn leaders_allreduce_into<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        call: Call,
        buf: *mut T,
        n: usize,
    ) {
        let (p, reps) = (self.rep_index(comm), comm.rec.reps);
        let m = 1u32 << (31 - reps.leading_zeros()); // largest power of two <= reps
        let combine = |theirs_first| Take::Combine { theirs_first };
        if p >= m {
            self.vector_step::<T, O>(block, comm, call, p - m, (true, Take::Nothing), buf, n);
            self.vector_step::<T, O>(block, comm, call, p - m, (false, Take::Copy), buf, n);
            return;
        }
        if p + m < reps {
            self.vector_step::<T, O>(block, comm, call, p + m, (false, combine(false)), buf, n);
        }
        let mut bit = 1;
        while bit < m {
            let partner = p ^ bit;
            let take = combine(partner < p);
            self.vector_step::<T, O>(block, comm, call, partner, (true, take), buf, n);
            bit <<= 1;
        }
        if p + m < reps {
            self.vector_step::<T, O>(block, comm, call, p + m, (true, Take::Nothing), buf, n);
        }
    }

    /// One step with representative `partner`: sends `buf` to it if `send`,
    /// and takes its pieces as `take`, piece by piece.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn vector_step<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        block: &mut Block,
        comm: Comm,
        call: Call,
        partner: u32,
        (send, take): (bool, Take),
        buf: *mut T,
        n: usize,
    ) {
        let ctx = *self.ctx();
        let world = self.rep_world_rank(comm, partner);
        // SAFETY: a rank of the job, so its process is in the table.
        let peer = unsafe { *ctx.peer(process_index(&ctx, world)) };
        let place = Place {
            world,
            dev: world - peer.first,
            route: peer.route(),
            counters: peer.notifications,
        };
        let (room, data) = (VECTOR_TAGS + 2 * comm.slot, VECTOR_TAGS + 2 * comm.slot + 1);
        let bytes = n * core::mem::size_of::<T>();
        let pieces = bytes.div_ceil(STAGE_HALF);
        let receiving = take != Take::Nothing;
        if receiving {
            for _ in 0..pieces.min(2) {
                self.signal(block, &place, room);
            }
        }
        let me = block.id();
        for k in 0..pieces {
            let half = (k % 2) as u32;
            let start = k * STAGE_HALF;
            let len = (bytes - start).min(STAGE_HALF);
            let piece = (buf as *mut u8).wrapping_add(start);
            if send {
                self.wait_reserved(block, call, room);
                if place.route == Route::Host {
                    let t = Transfer {
                        target: world,
                        window: STAGE_WINDOW,
                        offset: (half as usize * STAGE_HALF) as u64,
                        local: piece as u64,
                        bytes: len as u64,
                    };
                    self.through_host(block, call, Op::Put, data, t);
                } else {
                    block.sync(); // The piece is complete before it is read.
                                  // SAFETY: the partner's staging half, mapped here and
                                  // granted to this step; the piece lies in `buf`.
                    unsafe { block.copy(peer.stage(place.dev, half), piece, len) };
                    self.signal(block, &place, data);
                }
            }
            if !receiving {
                continue;
            }
            self.wait_reserved(block, call, data);
            if send {
                // The host may still read the piece this one overwrites.
                self.wait_host(block, call);
            }
            let stage = ctx.stage(me, half) as *const T;
            let (first, count) = (
                start / core::mem::size_of::<T>(),
                len / core::mem::size_of::<T>(),
            );
            block.each_thread(|t| {
                let mut i = t.index() as usize;
                while i < count {
                    // SAFETY: element i of the granted half, written before
                    // the notification just consumed; element first + i of
                    // `buf`, this thread's alone.
                    unsafe {
                        let theirs = stage.add(i).read();
                        let at = buf.add(first + i);
                        at.write(match take {
                            Take::Combine { theirs_first: true } => O::combine(theirs, at.read()),
                            Take::Combine {
                                theirs_first: false,
                            } => O::combine(at.read(), theirs),
                            _ => theirs,
                        });
                    }
                    i += block.threads() as usize;
                }
            });
            block.sync(); // Every thread is done with the half before it is granted again.
            if k + 2 < pieces {
                self.signal(block, &place, room);
            }
        }
        if send {
            self.wait_host(block, call); // The host has read every piece.
        }
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
