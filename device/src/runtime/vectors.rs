//! The step between devices of a collective over a vector (`allreduce_into`
//! across processes): the communicator's representatives combine their
//! devices' vectors by recursive doubling, as [`leaders`](super::leaders)
//! does for one word, with every thread of the representative's rank
//! moving the data through [`streams`](super::streams).

use super::comm::Comm;
use super::streams::{CombineIn, CopyIn, Runs, ONCE};
use super::Runtime;
use crate::abi::Call;
use crate::block::{Block, ReduceOp, Reducible};

impl Runtime {
    /// Combines `buf` (`n` elements) of every representative of `comm`
    /// with `O`, in place, on every thread of this representative. The
    /// partner's values go first when it is the lower representative, so
    /// every one combines in the same order.
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
        let ctx = *self.ctx();
        let bytes = n * core::mem::size_of::<T>();
        let whole = || Runs::new(&ctx, comm, (ONCE, ONCE), bytes, |_, _, _| buf as *mut u8);
        let combine = |theirs_first| CombineIn::<T, O> {
            theirs_first,
            op: core::marker::PhantomData,
        };
        // Every representative takes every step (each starts with a
        // barrier between them), with nothing to do in some.
        if reps > m {
            // The representatives beyond m fold their vectors into p - m.
            let send = (p >= m).then(|| (p - m, whole()));
            let recv = (p + m < reps).then(|| (p + m, whole()));
            self.stream_step(block, comm, call, send, recv, &combine(false));
        }
        let mut bit = 1;
        while bit < m {
            let partner = p ^ bit;
            let pair = (p < m).then(|| (partner, whole()));
            self.stream_step(
                block,
                comm,
                call,
                pair,
                (p < m).then(|| (partner, whole())),
                &combine(partner < p),
            );
            bit <<= 1;
        }
        if reps > m {
            let send = (p + m < reps).then(|| (p + m, whole()));
            let recv = (p >= m).then(|| (p - m, whole()));
            self.stream_step(block, comm, call, send, recv, &CopyIn);
        }
    }
}
