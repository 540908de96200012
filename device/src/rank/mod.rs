//! Rank kernels: a rank is a whole thread block.
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
//! closure once for itself; in the emulator one OS thread runs the uniform
//! code and loops over the thread indices in each region. Reductions and
//! scans combine values in the same order on both, so results are bitwise
//! identical.

pub(crate) mod collective;

pub use collective::{Max, Min, ReduceOp, Reducible, Sum};

use crate::arch;
#[cfg(not(target_arch = "nvptx64"))]
use crate::arch::Dim3;
use core::cell::UnsafeCell;
use core::marker::PhantomData;

/// Threads in a warp. A rank has a whole number of warps.
pub const WARP: u32 = 32;

/// The argument struct of a rank kernel: plain data, copied to the device
/// once per launch and read by every rank.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be the argument struct of a rank kernel",
    note = "rank kernel arguments must be `Copy + 'static` (plain data: numbers and device pointers)"
)]
pub trait RankArgs: Copy + 'static {}
impl<T: Copy + 'static> RankArgs for T {}

pub use crate::runtime::RankContext;

/// The block-level handle of a rank kernel. Its methods are block-collective:
/// every thread of the block must reach the same calls with the same
/// arguments, which the rank DSL guarantees by construction.
pub struct Rank {
    pub(crate) id: u32,
    pub(crate) size: u32,
    pub(crate) threads: u32,
    pub(crate) context: *const RankContext,
    /// Which of two broadcast slots the next leader operation uses.
    pub(crate) flip: u32,
    /// Bit `w` is set while window `w` is live (the same on every thread).
    pub(crate) windows_live: u32,
    /// Host replies received so far.
    pub(crate) replies_seen: u32,
    /// Whether the leader has set up the consumed-notification counters.
    pub(crate) consumed_ready: bool,
    /// Whether the leader has set up the ring credit cache.
    pub(crate) credit_ready: bool,
    /// Accesses handed to the host so far, and how many of them are known
    /// to be complete.
    pub(crate) host_ops: u32,
    pub(crate) host_completed: u32,
    // A rank is one block: not shareable across blocks or threads.
    _not_send: PhantomData<*mut ()>,
}

/// One thread of a rank, inside a per-thread region.
pub struct Thread {
    index: u32,
    _not_send: PhantomData<*mut ()>,
}

impl Thread {
    fn new(index: u32) -> Self {
        Thread {
            index,
            _not_send: PhantomData,
        }
    }

    /// The thread's index in its rank, `0..rank.threads_per_rank()`.
    #[inline(always)]
    pub fn index(&self) -> u32 {
        self.index
    }

    /// The thread's lane in its warp.
    #[inline(always)]
    pub fn lane(&self) -> u32 {
        self.index % WARP
    }

    /// The thread's warp in its rank.
    #[inline(always)]
    pub fn warp(&self) -> u32 {
        self.index / WARP
    }
}

/// A value per thread that lives across collective calls: a register of
/// each thread on the GPU, an array in the emulator. Read and write it only
/// inside per-thread regions, through the [`Thread`].
pub struct PerThread<T: Copy> {
    #[cfg(target_arch = "nvptx64")]
    value: UnsafeCell<T>,
    #[cfg(not(target_arch = "nvptx64"))]
    values: UnsafeCell<std::vec::Vec<T>>,
}

impl<T: Copy> PerThread<T> {
    #[inline(always)]
    fn slot(&self, t: &Thread) -> *mut T {
        #[cfg(target_arch = "nvptx64")]
        {
            let _ = t;
            self.value.get()
        }
        #[cfg(not(target_arch = "nvptx64"))]
        // SAFETY: the emulator runs a rank's threads one at a time; the
        // vector is never resized after creation.
        unsafe {
            (*self.values.get()).as_mut_ptr().add(t.index as usize)
        }
    }

    /// This thread's value.
    #[inline(always)]
    pub fn get(&self, t: &Thread) -> T {
        // SAFETY: the slot is this thread's own.
        unsafe { *self.slot(t) }
    }

    /// Sets this thread's value.
    #[inline(always)]
    pub fn set(&self, t: &Thread, value: T) {
        // SAFETY: the slot is this thread's own.
        unsafe { *self.slot(t) = value }
    }

    /// Replaces this thread's value with `f(value)`.
    #[inline(always)]
    pub fn update(&self, t: &Thread, f: impl FnOnce(T) -> T) {
        self.set(t, f(self.get(t)))
    }
}

impl Rank {
    /// Sets up the rank state and runs `body` as the rank. Called by the
    /// entry point that `#[rank]` emits.
    ///
    /// # Safety
    /// Only from a rank kernel entry point (GPU) or an emulated rank thread.
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn run(context: *const RankContext, body: impl FnOnce(&mut Rank)) {
        let mut rank = Rank {
            id: arch::block_idx().x,
            size: arch::grid_dim().x,
            threads: arch::block_dim().x,
            context,
            flip: 0,
            windows_live: 0,
            replies_seen: 0,
            consumed_ready: false,
            credit_ready: false,
            host_ops: 0,
            host_completed: 0,
            _not_send: PhantomData,
        };
        crate::runtime::init(&mut rank);
        body(&mut rank);
        crate::runtime::finish(&mut rank);
    }

    /// This rank's index among the ranks of the launch.
    #[inline(always)]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// The number of ranks in the launch.
    #[inline(always)]
    pub fn size(&self) -> u32 {
        self.size
    }

    /// Threads per rank (a multiple of [`WARP`]).
    #[inline(always)]
    pub fn threads_per_rank(&self) -> u32 {
        self.threads
    }

    /// The runtime context the rank was launched with.
    #[inline(always)]
    pub(crate) fn ctx(&self) -> &RankContext {
        // SAFETY: the host passes a valid context for the whole launch.
        unsafe { &*self.context }
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
    pub fn threads(&mut self, f: impl Fn(&Thread)) {
        each_thread(self.threads, |t| f(t))
    }

    /// Per-thread state, initialised by `init` for each thread.
    #[inline(always)]
    pub fn per_thread<T: Copy>(&mut self, init: impl Fn(&Thread) -> T) -> PerThread<T> {
        #[cfg(target_arch = "nvptx64")]
        {
            PerThread {
                value: UnsafeCell::new(init(&Thread::new(arch::thread_idx().x))),
            }
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let mut values = std::vec::Vec::with_capacity(self.threads as usize);
            each_thread(self.threads, |t| values.push(init(t)));
            PerThread {
                values: UnsafeCell::new(values),
            }
        }
    }

    /// Block-wide barrier: shared-memory writes of every thread before it are
    /// visible to every thread after it.
    #[inline(always)]
    pub fn sync_threads(&mut self) {
        collective::barrier()
    }

    /// Combines one value per thread with `op`; every thread gets the same
    /// result (bitwise: the combining order is fixed, the same on the GPU
    /// and in the emulator).
    #[inline(always)]
    pub fn reduce<T: Reducible, O: ReduceOp<T>>(&mut self, f: impl Fn(&Thread) -> T, op: O) -> T {
        collective::reduce(self.threads, f, op)
    }

    /// Inclusive scan of one value per thread with `op`: thread `i` gets
    /// `op(v0, ..., vi)`.
    #[inline(always)]
    pub fn scan<T: Reducible, O: ReduceOp<T>>(
        &mut self,
        f: impl Fn(&Thread) -> T,
        op: O,
    ) -> PerThread<T> {
        collective::scan(self, f, op)
    }

    /// Runs `f` on thread 0 only and gives its result to every thread: the
    /// place for non-idempotent work such as an atomic operation.
    #[inline(always)]
    pub fn single<T: Reducible>(&mut self, f: impl FnOnce(&Thread) -> T) -> T {
        collective::single(self, f)
    }
}

/// Runs `f` for each thread: on the GPU the calling thread's own index, in
/// the emulator every index in turn.
#[inline(always)]
pub(crate) fn each_thread(threads: u32, mut f: impl FnMut(&Thread)) {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = threads;
        f(&Thread::new(arch::thread_idx().x))
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        struct Uniform;
        impl Drop for Uniform {
            fn drop(&mut self) {
                crate::emu::set_thread(None);
            }
        }
        let _uniform = Uniform;
        for index in 0..threads {
            crate::emu::set_thread(Some(Dim3::x(index)));
            f(&Thread::new(index));
        }
    }
}

/// Runs `f` as thread 0 (GPU: only on thread 0).
#[inline(always)]
pub(crate) fn on_thread_zero<R>(f: impl FnOnce(&Thread) -> R) -> Option<R> {
    #[cfg(target_arch = "nvptx64")]
    {
        if arch::thread_idx().x == 0 {
            Some(f(&Thread::new(0)))
        } else {
            None
        }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        crate::emu::set_thread(Some(Dim3::x(0)));
        let r = f(&Thread::new(0));
        crate::emu::set_thread(None);
        Some(r)
    }
}
