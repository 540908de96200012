//! Block-level primitives: the barrier, the thread loop, per-thread values
//! and their lane exchange (warp shuffles), the block copy, and the entry
//! of a rank. Everything block-collective above `arch` is written once on
//! these.
//!
//! On the GPU every thread of the block runs the caller, and a
//! [`PerThread`] is one register of each thread. The emulator does the
//! same: each thread of a rank is a coroutine on the rank's OS thread
//! (`arch::lanes`), run in lockstep from one barrier or shuffle
//! to the next, and a `PerThread` is a value of each coroutine. So the
//! same code computes the same values, bit for bit, and the emulator sees
//! every thread at every collective point. Only the intrinsics below
//! differ: the barrier, the shuffle, the copy and the rank's entry.

use core::cell::UnsafeCell;
use core::marker::PhantomData;

/// Threads in a warp. A rank has a whole number of warps.
pub const WARP: u32 = 32;

/// One thread of a rank, inside a per-thread region.
pub struct Thread {
    index: u32,
    _not_send: PhantomData<*mut ()>,
}

impl Thread {
    #[inline(always)]
    pub(crate) fn new(index: u32) -> Self {
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

/// A block-wide barrier. On the GPU the non-aligned `barrier.sync`: after a
/// leader operation thread 0 arrives later than the rest of its warp, and
/// the aligned `bar.sync` is undefined for such arrival under independent
/// thread scheduling (it hung on an H200). Such a warp leaves the barrier
/// in two parts, and stays so until something converges it: the thread
/// loop and the block copy do. In the emulator the rank's threads meet at
/// the scheduler, which checks that all of them came.
#[inline(always)]
pub fn barrier() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: a barrier; the asm block is a memory clobber.
    unsafe {
        core::arch::asm!("barrier.sync 0;", options(nostack))
    };
    #[cfg(not(target_arch = "nvptx64"))]
    super::lanes::barrier();
}

/// The calling thread's index in its block.
#[inline(always)]
fn own_index() -> u32 {
    #[cfg(target_arch = "nvptx64")]
    {
        super::thread_idx().x
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        super::lanes::index().unwrap_or_else(|| super::thread_idx().x)
    }
}

/// Runs `f` as per-thread code: the emulator then allows the per-thread
/// intrinsics, which it refuses in uniform code.
#[inline(always)]
fn region<R>(f: impl FnOnce() -> R) -> R {
    #[cfg(target_arch = "nvptx64")]
    {
        f()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        struct Restore(Option<super::Dim3>);
        impl Drop for Restore {
            fn drop(&mut self) {
                super::emu::set_thread(self.0);
            }
        }
        let _restore = Restore(super::emu::current_thread());
        super::emu::set_thread(Some(super::Dim3::x(own_index())));
        f()
    }
}

/// Runs `body` as a rank: on the GPU the calling thread runs it; in the
/// emulator each of the block's threads runs a clone of it, in lockstep.
/// `FnOnce + Clone`, not `Fn`: called by value, the body's arguments stay
/// values the compiler can keep out of loops (through `Fn`, a flag of the
/// ping-pong benchmark's arguments was loaded again in every iteration,
/// 0.17 us of latency, measured).
#[inline(always)]
pub fn run_rank(body: impl FnOnce() + Clone) {
    #[cfg(target_arch = "nvptx64")]
    body();
    #[cfg(not(target_arch = "nvptx64"))]
    super::lanes::run(super::block_dim().x, &|| body.clone()());
}

/// Marks the entry of rank API call `name` with the arguments that must
/// be the same on every thread. Nothing on the GPU; the emulator checks
/// that every thread makes the same call with the same arguments, and
/// names the caller's source location when they do not.
#[inline(always)]
#[track_caller]
pub fn enter_call<const N: usize>(name: &'static str, args: [(&'static str, u64); N]) {
    #[cfg(target_arch = "nvptx64")]
    let _ = (name, args);
    #[cfg(not(target_arch = "nvptx64"))]
    super::lanes::call(name, &args, core::panic::Location::caller());
}

/// A list's digest, for [`enter_call`]'s check that every thread passes
/// the same one (folded away on the GPU, where the check does not run).
#[inline(always)]
pub fn digest(list: &[u32]) -> u64 {
    list.iter().fold(0xcbf2_9ce4_8422_2325, |h: u64, &v| {
        (h ^ v as u64).wrapping_mul(0x100_0000_01b3)
    })
}

/// Ends the calling rank because its run was aborted: every thread
/// leaves (`exit`); the emulator unwinds the rank without a report.
#[inline(always)]
pub fn abort_rank() -> ! {
    #[cfg(target_arch = "nvptx64")]
    {
        super::exit_thread()
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        super::std::panic::panic_any(super::emu::Aborted)
    }
}

/// Runs `f` as the calling thread of a block of `threads`. On the GPU the
/// warp converges first: after a leader's turn thread 0 runs apart from
/// the rest of its warp, and a loop in `f` would run twice in that warp,
/// once for each part (a receive's 1 MiB copy took twice a put's:
/// `bench/results/2026-11-25-converge-h100`). Converging here rather than
/// at every barrier leaves the small calls' latency as it was.
#[inline(always)]
pub fn each_thread(threads: u32, f: impl FnOnce(&Thread)) {
    let _ = threads;
    #[cfg(target_arch = "nvptx64")]
    super::gpu::warp_converge();
    let t = Thread::new(own_index());
    region(|| f(&t))
}

/// Runs `f` as thread 0: `Some` of its result there, `None` on the other
/// threads.
#[inline(always)]
pub fn on_thread_zero<R>(f: impl FnOnce(&Thread) -> R) -> Option<R> {
    if own_index() == 0 {
        Some(region(|| f(&Thread::new(0))))
    } else {
        None
    }
}

/// A value per thread that lives across collective calls: a register of
/// each thread. Read and write it only inside per-thread regions, through
/// the [`Thread`].
pub struct PerThread<T: Copy> {
    value: UnsafeCell<T>,
}

// SAFETY: each thread reaches only its own value (through its `Thread`,
// which cannot leave its region); in the emulator each thread is a
// coroutine with its own `PerThread`.
unsafe impl<T: Copy> Sync for PerThread<T> {}

impl<T: Copy> PerThread<T> {
    /// Each thread's value is `init(thread)`.
    #[inline(always)]
    pub(crate) fn from_fn(threads: u32, init: impl FnOnce(&Thread) -> T) -> Self {
        let _ = threads;
        #[cfg(target_arch = "nvptx64")]
        super::gpu::warp_converge(); // As in `each_thread`: `reduce` runs user loops here.
        let t = Thread::new(own_index());
        PerThread {
            value: UnsafeCell::new(region(|| init(&t))),
        }
    }

    /// This thread's value.
    #[inline(always)]
    pub fn get(&self, t: &Thread) -> T {
        let _ = t;
        // SAFETY: the slot is this thread's own.
        unsafe { *self.value.get() }
    }

    /// Sets this thread's value.
    #[inline(always)]
    pub fn set(&self, t: &Thread, value: T) {
        let _ = t;
        // SAFETY: the slot is this thread's own.
        unsafe { *self.value.get() = value }
    }

    /// Replaces this thread's value with `f(value)`.
    #[inline(always)]
    pub fn update(&self, t: &Thread, f: impl FnOnce(T) -> T) {
        self.set(t, f(self.get(t)))
    }

    /// The calling thread's value, for a value every thread holds alike
    /// (the result of a broadcast).
    #[inline(always)]
    pub(crate) fn uniform(&self) -> T {
        // SAFETY: the slot is this thread's own.
        unsafe { *self.value.get() }
    }

    /// A new per-thread value, `f(thread, value)` on every thread.
    #[inline(always)]
    pub(crate) fn map<U: Copy>(&self, threads: u32, f: impl Fn(&Thread, T) -> U) -> PerThread<U> {
        PerThread::from_fn(threads, |t| f(t, self.get(t)))
    }

    /// Each thread gets the value of the lane `partner(lane)` of its warp
    /// (`shfl.sync`): the only place threads exchange registers.
    #[inline(always)]
    pub(crate) fn exchange(&self, threads: u32, mode: Shuffle) -> PerThread<T>
    where
        T: LaneWord,
    {
        let _ = threads;
        let v = self.uniform();
        #[cfg(target_arch = "nvptx64")]
        let moved = super::gpu::shuffle(v, mode);
        #[cfg(not(target_arch = "nvptx64"))]
        let moved = T::from_word(super::lanes::shuffle(v.to_word(), mode));
        PerThread {
            value: UnsafeCell::new(moved),
        }
    }
}

/// Which lane a warp shuffle reads (PTX `shfl.sync` modes).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Shuffle {
    /// Lane `lane ^ mask` (`bfly`).
    Xor(u32),
    /// Lane `lane - delta`, or its own lane below `delta` (`up`).
    Up(u32),
    /// Lane `lane` (`idx`).
    Index(u32),
}

/// A value that warp shuffles can move: at most 8 bytes, as a word.
pub trait LaneWord: Copy {
    #[doc(hidden)]
    fn to_word(self) -> u64;
    #[doc(hidden)]
    fn from_word(word: u64) -> Self;
    /// Whether it fits in 32 bits (one shuffle instead of two).
    #[doc(hidden)]
    const NARROW: bool;
}

/// Copies `bytes` from `src` to `dst` with every thread of a block of
/// `threads`, coalesced: in 16-byte vectors where both addresses are equally
/// aligned (bytes before and after the aligned middle one by one), else in
/// words or bytes. In the emulator, one `memmove` by thread 0.
///
/// # Safety
/// Both ranges must be valid for `bytes`; they may overlap only if equal.
#[inline(always)]
pub unsafe fn copy(threads: u32, dst: *mut u8, src: *const u8, bytes: usize) {
    if core::ptr::eq(dst, src) || bytes == 0 {
        return; // Overlapping windows: the data is already there.
    }
    #[cfg(target_arch = "nvptx64")]
    {
        let t = super::thread_idx().x as usize;
        super::gpu::block_copy(dst, src, bytes, t, threads as usize);
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        let _ = threads;
        if own_index() == 0 {
            core::ptr::copy(src, dst, bytes)
        }
    }
}
