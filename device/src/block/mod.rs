//! The block handle: a rank's threads as one unit. Per-thread regions,
//! per-thread state and the block-collective operations (barrier,
//! reduction, scan, broadcast from one thread), written once on the
//! primitives of [`arch::block`].

mod collective;
mod ops;

pub use crate::arch::block::{PerThread, Thread, WARP};
pub use ops::{BitAnd, BitOr, BitXor, Max, Min, Prod, ReduceOp, Reducible, Sum};

use crate::arch::{self, block as prim};

/// One rank's block: its index, the grid, its threads, and the state of
/// its leader broadcasts.
pub(crate) struct Block {
    id: u32,
    size: u32,
    threads: u32,
    /// Which of two broadcast slots the next leader operation uses.
    flip: u32,
}

impl Block {
    /// The calling block.
    #[inline(always)]
    pub fn current() -> Block {
        Block {
            id: arch::block_idx().x,
            size: arch::grid_dim().x,
            threads: arch::block_dim().x,
            flip: 0,
        }
    }

    /// This block's index in the launch: its device rank.
    #[inline(always)]
    pub fn id(&self) -> u32 {
        self.id
    }

    /// Blocks in the launch.
    #[inline(always)]
    pub fn size(&self) -> u32 {
        self.size
    }

    /// Threads in the block.
    #[inline(always)]
    pub fn threads(&self) -> u32 {
        self.threads
    }

    /// Runs `f` once for every thread.
    #[inline(always)]
    pub fn each_thread(&self, f: impl Fn(&Thread)) {
        prim::each_thread(self.threads, |t| f(t))
    }

    /// Per-thread state, initialised by `init` for each thread.
    #[inline(always)]
    pub fn per_thread<T: Copy>(&self, init: impl Fn(&Thread) -> T) -> PerThread<T> {
        PerThread::from_fn(self.threads, init)
    }

    /// Block-wide barrier.
    #[inline(always)]
    pub fn sync(&self) {
        prim::barrier()
    }

    /// Runs `f` on thread 0 only (no barrier; the other threads skip it).
    #[inline(always)]
    pub fn leader<R>(&self, f: impl FnOnce(&Thread) -> R) -> Option<R> {
        prim::on_thread_zero(f)
    }

    /// Copies `bytes` from `src` to `dst` with every thread.
    ///
    /// # Safety
    /// As [`arch::block::copy`](crate::arch::block::copy).
    #[inline(always)]
    pub unsafe fn copy(&self, dst: *mut u8, src: *const u8, bytes: usize) {
        prim::copy(self.threads, dst, src, bytes)
    }
}
