//! Block-level primitives, GPU and CPU bodies side by side: the barrier,
//! the thread loop, per-thread values and their lane exchange (warp
//! shuffles), and the block copy. Everything block-collective above `arch`
//! is written once on these.
//!
//! On the GPU every thread of the block runs the caller, and a
//! [`PerThread`] is one register of each thread. In the emulator one OS
//! thread runs the whole block: a `PerThread` is an array with a value per
//! thread, and each operation below runs for every thread before the next
//! one starts, which is the lockstep a barrier gives on the GPU. So the same
//! sequence of operations computes the same values, bit for bit.

#[cfg(not(target_arch = "nvptx64"))]
use super::std::vec::Vec;
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
/// thread scheduling (it hung on an H200). In the emulator the block's
/// threads run one operation at a time, so there is nothing to wait for.
#[inline(always)]
pub fn barrier() {
    #[cfg(target_arch = "nvptx64")]
    // SAFETY: a barrier; the asm block is a memory clobber.
    unsafe {
        core::arch::asm!("barrier.sync 0;", options(nostack))
    };
}

/// Runs `f` for each thread of a block of `threads`: on the GPU the
/// calling thread's own index, in the emulator every index in turn.
#[inline(always)]
pub fn each_thread(threads: u32, mut f: impl FnMut(&Thread)) {
    #[cfg(target_arch = "nvptx64")]
    {
        let _ = threads;
        f(&Thread::new(super::thread_idx().x))
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        struct Uniform;
        impl Drop for Uniform {
            fn drop(&mut self) {
                super::emu::set_thread(None);
            }
        }
        let _uniform = Uniform;
        for index in 0..threads {
            super::emu::set_thread(Some(super::Dim3::x(index)));
            f(&Thread::new(index));
        }
    }
}

/// Runs `f` as thread 0: `Some` of its result there, `None` on the GPU's
/// other threads.
#[inline(always)]
pub fn on_thread_zero<R>(f: impl FnOnce(&Thread) -> R) -> Option<R> {
    #[cfg(target_arch = "nvptx64")]
    {
        if super::thread_idx().x == 0 {
            Some(f(&Thread::new(0)))
        } else {
            None
        }
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        super::emu::set_thread(Some(super::Dim3::x(0)));
        let r = f(&Thread::new(0));
        super::emu::set_thread(None);
        Some(r)
    }
}

/// A value per thread that lives across collective calls: a register of
/// each thread on the GPU, an array in the emulator. Read and write it
/// only inside per-thread regions, through the [`Thread`].
pub struct PerThread<T: Copy> {
    #[cfg(target_arch = "nvptx64")]
    value: UnsafeCell<T>,
    #[cfg(not(target_arch = "nvptx64"))]
    values: UnsafeCell<Vec<T>>,
}

impl<T: Copy> PerThread<T> {
    /// Each thread's value is `init(thread)`.
    #[inline(always)]
    pub(crate) fn from_fn(threads: u32, mut init: impl FnMut(&Thread) -> T) -> Self {
        #[cfg(target_arch = "nvptx64")]
        {
            let _ = threads;
            PerThread {
                value: UnsafeCell::new(init(&Thread::new(super::thread_idx().x))),
            }
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            let mut values = Vec::with_capacity(threads as usize);
            each_thread(threads, |t| values.push(init(t)));
            PerThread {
                values: UnsafeCell::new(values),
            }
        }
    }

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

    /// The value every thread holds, when they all hold the same one (the
    /// result of a broadcast): the calling thread's on the GPU, thread 0's
    /// in the emulator.
    #[inline(always)]
    pub(crate) fn uniform(&self) -> T {
        #[cfg(target_arch = "nvptx64")]
        {
            // SAFETY: the slot is this thread's own.
            unsafe { *self.value.get() }
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            // SAFETY: as in `slot`; a block has at least one thread.
            unsafe { (&(*self.values.get()))[0] }
        }
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
        #[cfg(target_arch = "nvptx64")]
        {
            let _ = threads;
            // SAFETY: the slot is this thread's own.
            let v = unsafe { *self.value.get() };
            PerThread {
                value: UnsafeCell::new(super::gpu::shuffle(v, mode)),
            }
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            PerThread::from_fn(threads, |t| {
                let (lane, base) = (t.lane(), t.index - t.lane());
                let from = match mode {
                    Shuffle::Xor(m) => lane ^ m,
                    Shuffle::Up(d) if lane >= d => lane - d,
                    Shuffle::Up(_) => lane,
                    Shuffle::Index(l) => l,
                };
                self.get(&Thread::new(base + from))
            })
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
/// words or bytes. In the emulator, one `memmove`.
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
        core::ptr::copy(src, dst, bytes)
    }
}
