//! Rank kernels: a rank is a whole thread block, and [`Rank`] is its
//! handle: a thin facade over the block (per-thread regions and
//! block-collective operations) and the runtime (communication).
//!
//! Code in a rank kernel is **uniform**: every thread of the block runs it
//! identically, so it may call the block-collective operations, the methods
//! of [`Rank`]. Per-thread work happens only inside a **per-thread region**,
//! [`Rank::threads`], whose closure receives the [`Thread`] and cannot reach
//! the `Rank` (the region borrows it mutably). Per-thread values come back
//! into uniform code only through block-collective reductions and scans
//! ([`Rank::reduce`], [`Rank::scan`], [`Rank::single`]); per-thread state
//! that lives across collective calls is a [`PerThread<T>`].
//!
//! On the GPU every thread runs the uniform code and each runs the region
//! closure once for itself. The emulator does the same, with one coroutine
//! per thread run in lockstep, and checks at every call of this API that
//! every thread makes it with the same arguments: a divergence stops the
//! rank with a report. Reductions and scans combine values in the same
//! order on both, so results are bitwise identical.

mod collectives;
mod comms;
mod communication;
mod messages;
mod put_targets;
mod slices;
mod split_phase;
pub use split_phase::PendingAllreduce;
mod trace;
mod typed;

use crate::abi::RankContext;
use crate::arch;
use crate::block::{Block, PerThread, ReduceOp, Reducible, Thread};
use crate::runtime::Runtime;
use crate::shared::{SharedArray, SharedSymbol};
use core::marker::PhantomData;

/// The largest argument struct a rank kernel may have, in bytes (CUDA's
/// classic kernel-parameter limit): every rank copies its arguments into
/// shared memory, so they count against the ranks that fit.
pub const MAX_ARGS_BYTES: usize = 4096;

/// Words of shared memory that `#[rank]` reserves to stage a kernel's
/// arguments of type `A` (at least one: PTX has no empty arrays).
#[doc(hidden)]
pub const fn args_words<A>() -> usize {
    let words = core::mem::size_of::<A>().div_ceil(8);
    if words == 0 {
        1
    } else {
        words
    }
}

/// The argument struct of a rank kernel: plain data, copied to the device
/// once per launch and by every rank into its shared memory at its start,
/// so at most [`MAX_ARGS_BYTES`] (a compile-time error says so).
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the argument struct of a rank kernel",
    note = "rank kernel arguments must be `Copy + Sync + 'static`: plain data, numbers and `DeviceSlice`s (a raw pointer is not `Sync`: pass a `DeviceSlice` instead)"
)]
pub trait RankArgs: Copy + Sync + 'static {}
impl<T: Copy + Sync + 'static> RankArgs for T {}

/// The block-level handle of a rank kernel. Its methods are block-collective:
/// every thread of the block must reach the same calls with the same
/// arguments, which the rank DSL guarantees by construction.
pub struct Rank {
    block: Block,
    rt: Runtime,
    // A rank is one block: not shareable across blocks or threads.
    _not_send: PhantomData<*mut ()>,
}

impl Rank {
    /// Sets up the rank state and runs `body` as the rank with its
    /// arguments. Called by the entry point that `#[rank]` emits.
    ///
    /// The arguments and the run's context are copied into the rank's
    /// shared memory first (one barrier): a wait's acquire load empties
    /// the L1 cache on the GPU, and a field read from global memory after
    /// it would cost an L2 round trip (this bought 0.4 µs of a notified
    /// put's 1.9 µs on an H100; `docs/design.md`).
    ///
    /// # Safety
    /// Only from a rank kernel entry point (GPU) or an emulated rank thread,
    /// with the context the host built for the run and the launch's
    /// arguments (of a [`RankArgs`] type: `#[rank]` checks it, with its own
    /// message); `staged` is the kernel's own array, of at least
    /// [`args_words::<A>()`](args_words) words.
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn run<A, const N: usize, S: SharedSymbol>(
        context: *const RankContext,
        args: *const A,
        staged: &SharedArray<u64, N, S>,
        body: impl FnOnce(&mut Rank, &A) + Clone,
    ) {
        // `#[rank]` checks the first two with its own message, at the kernel.
        const {
            assert!(core::mem::align_of::<A>() <= 8 && core::mem::size_of::<A>() <= MAX_ARGS_BYTES);
            assert!(N >= args_words::<A>());
        };
        let to = staged.as_mut_ptr() as *mut u8;
        arch::block::run_rank(move || {
            let block = Block::current();
            // SAFETY: the caller's arguments, into the kernel's own array
            // of at least their size.
            unsafe { block.copy(to, args as *const u8, core::mem::size_of::<A>()) };
            Runtime::stage_context(context, &block);
            block.sync();
            let mut rank = Rank {
                block,
                rt: Runtime::new(),
                _not_send: PhantomData,
            };
            // SAFETY: a copy of the arguments, aligned (the array is), and
            // never written again during the launch.
            body(&mut rank, unsafe { &*(to as *const A) });
            rank.rt.finish(&mut rank.block);
        })
    }

    /// This rank's index among the ranks of its device (its block index).
    #[inline(always)]
    pub fn id(&self) -> u32 {
        self.block.id()
    }

    /// The number of ranks on this device.
    #[inline(always)]
    pub fn size(&self) -> u32 {
        self.block.size()
    }

    /// Threads per rank (a multiple of [`WARP`](crate::block::WARP)).
    #[inline(always)]
    pub fn threads_per_rank(&self) -> u32 {
        self.block.threads()
    }

    /// A per-thread region: runs `f` once for every thread of the rank.
    ///
    /// The region borrows the rank mutably, so no collective operation can be
    /// called from inside it; and `f` is `Fn`, so it cannot assign to
    /// variables of the uniform code. Keep per-thread state in a
    /// [`PerThread`]. There is no barrier around a region: separate a
    /// region's shared-memory writes from another thread's reads with
    /// [`sync_threads`](Self::sync_threads).
    #[inline(always)]
    #[track_caller]
    pub fn threads(&mut self, f: impl Fn(&Thread) + Sync) {
        arch::block::enter_call("threads", []);
        self.block.each_thread(f)
    }

    /// Per-thread state, initialised by `init` for each thread.
    #[inline(always)]
    #[track_caller]
    pub fn per_thread<T: Copy>(&mut self, init: impl Fn(&Thread) -> T + Sync) -> PerThread<T> {
        arch::block::enter_call("per_thread", []);
        self.block.per_thread(init)
    }

    /// Block-wide barrier: shared-memory writes of every thread before it are
    /// visible to every thread after it.
    #[inline(always)]
    #[track_caller]
    pub fn sync_threads(&mut self) {
        arch::block::enter_call("sync_threads", []);
        self.block.sync()
    }

    /// Combines one value per thread with `op`; every thread gets the same
    /// result (bitwise: the combining order is fixed, the same on the GPU
    /// and in the emulator).
    #[inline(always)]
    #[track_caller]
    pub fn reduce<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        f: impl Fn(&Thread) -> T + Sync,
        op: O,
    ) -> T {
        arch::block::enter_call("reduce", []);
        self.block.reduce(f, op)
    }

    /// Inclusive scan of one value per thread with `op`: thread `i` gets
    /// `op(v0, ..., vi)`.
    #[inline(always)]
    #[track_caller]
    pub fn scan<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        f: impl Fn(&Thread) -> T + Sync,
        op: O,
    ) -> PerThread<T> {
        arch::block::enter_call("scan", []);
        self.block.scan(f, op)
    }

    /// Runs `f` on thread 0 only and gives its result to every thread: the
    /// place for non-idempotent work such as an atomic operation.
    #[inline(always)]
    #[track_caller]
    pub fn single<T: Reducible>(&mut self, f: impl Fn(&Thread) -> T + Sync) -> T {
        arch::block::enter_call("single", []);
        self.block.single(f)
    }
}
