//! Device intrinsics: thread and block indices, barriers, fences, scoped
//! atomics, sleep and the global timer.
//!
//! On `nvptx64` each function is inline PTX (the `gpu` module's source) so that
//! scope and ordering are exactly what the name says: `core::sync::atomic`
//! read-modify-write operations lose both on the nvptx LLVM backend. On the
//! host the same functions run on std atomics inside the CPU emulator.
//!
//! Memory operations follow the PTX memory model: a [`Scope`] names the set of
//! threads that the operation synchronises with, an [`Ordering`] its
//! semantics. Pointers are generic addresses, so the same call works on device
//! memory and on pinned host memory mapped into the device.

// The only place that tells the GPU from the CPU emulator: every module
// below `arch` has a GPU body and a CPU body, and nothing above it does.
#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

pub mod block;
#[cfg(not(target_arch = "nvptx64"))]
mod cpu;
#[cfg(not(target_arch = "nvptx64"))]
pub mod emu;
#[cfg(target_arch = "nvptx64")]
pub(crate) mod gpu;
#[cfg(not(target_arch = "nvptx64"))]
mod lanes;
pub mod nvshmem;
#[cfg(target_arch = "nvptx64")]
mod panic;
#[doc(hidden)]
pub mod shared;

#[cfg(not(target_arch = "nvptx64"))]
use cpu as imp;
#[cfg(target_arch = "nvptx64")]
use gpu as imp;

/// A three-component index or dimension, as CUDA's `dim3`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct Dim3 {
    /// x component.
    pub x: u32,
    /// y component.
    pub y: u32,
    /// z component.
    pub z: u32,
}

impl Dim3 {
    /// A one-dimensional value `(x, 1, 1)`.
    pub const fn x(x: u32) -> Self {
        Dim3 { x, y: 1, z: 1 }
    }

    /// The product `x * y * z`.
    pub const fn volume(self) -> u64 {
        self.x as u64 * self.y as u64 * self.z as u64
    }
}

/// The set of threads a memory operation or fence synchronises with
/// (PTX `.cta`, `.gpu`, `.sys`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scope {
    /// The threads of the calling thread block (`.cta`).
    Block,
    /// All threads of the calling GPU (`.gpu`).
    Gpu,
    /// All threads of the system: other GPUs and the host (`.sys`).
    System,
}

/// Memory ordering of an atomic read-modify-write operation (PTX `.sem`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Ordering {
    /// No ordering beyond the atomicity of the operation itself.
    Relaxed,
    /// Later accesses of this thread are not moved before the operation.
    Acquire,
    /// Earlier accesses of this thread are not moved after the operation.
    Release,
    /// Both [`Ordering::Acquire`] and [`Ordering::Release`].
    AcqRel,
}

/// A word that supports scoped atomic operations: `u32` and `u64`.
///
/// The methods are the backend's; call the free functions of this module.
pub trait AtomicWord: Copy + sealed::Sealed {
    #[doc(hidden)]
    unsafe fn load_relaxed(ptr: *const Self, scope: Scope) -> Self;
    #[doc(hidden)]
    unsafe fn load_acquire(ptr: *const Self, scope: Scope) -> Self;
    #[doc(hidden)]
    unsafe fn store_relaxed(ptr: *mut Self, value: Self, scope: Scope);
    #[doc(hidden)]
    unsafe fn store_release(ptr: *mut Self, value: Self, scope: Scope);
    #[doc(hidden)]
    unsafe fn fetch_add(ptr: *mut Self, value: Self, order: Ordering, scope: Scope) -> Self;
    #[doc(hidden)]
    unsafe fn add(ptr: *mut Self, value: Self, order: Ordering, scope: Scope);
    #[doc(hidden)]
    unsafe fn swap(ptr: *mut Self, value: Self, order: Ordering, scope: Scope) -> Self;
    #[doc(hidden)]
    unsafe fn compare_exchange(
        ptr: *mut Self,
        current: Self,
        new: Self,
        order: Ordering,
        scope: Scope,
    ) -> Self;
}

mod sealed {
    pub trait Sealed {}
    impl Sealed for u32 {}
    impl Sealed for u64 {}
}

/// Index of the calling thread within its block (`%tid`).
#[inline(always)]
pub fn thread_idx() -> Dim3 {
    imp::thread_idx()
}

/// Index of the calling block within the grid (`%ctaid`).
#[inline(always)]
pub fn block_idx() -> Dim3 {
    imp::block_idx()
}

/// Dimensions of a block in threads (`%ntid`).
#[inline(always)]
pub fn block_dim() -> Dim3 {
    imp::block_dim()
}

/// Dimensions of the grid in blocks (`%nctaid`).
#[inline(always)]
pub fn grid_dim() -> Dim3 {
    imp::grid_dim()
}

/// Block-wide barrier (`bar.sync 0`): no thread of the block continues until
/// all have arrived, and block-scoped memory accesses before it are visible
/// to the block after it. Every thread of the block must reach the same call.
#[inline(always)]
pub fn sync_threads() {
    imp::sync_threads()
}

/// Acquire-release fence at `scope` (`fence.acq_rel.{cta,gpu,sys}`).
#[inline(always)]
pub fn fence(scope: Scope) {
    imp::fence_acq_rel(scope)
}

/// Sequentially consistent fence at `scope` (`fence.sc.{cta,gpu,sys}`).
#[inline(always)]
pub fn fence_seq_cst(scope: Scope) {
    imp::fence_sc(scope)
}

/// Loads 16 bytes with one vector instruction (`ld.v4.u32`): what a
/// strided copy of 16-byte units moves at once.
///
/// # Safety
/// `p` must be valid for 16 bytes and 16-byte aligned.
#[inline(always)]
pub(crate) unsafe fn load_16(p: *const u8) -> [u32; 4] {
    imp::load_v4(p)
}

/// Asks for the cache line holding `p` in L1 (`prefetch.L1`) without
/// waiting for it, so that a later load finds it there: a load in flight
/// that holds no register. Nothing on the emulator.
///
/// # Safety
/// `p` must be valid for reads.
#[inline(always)]
pub unsafe fn prefetch_l1<T>(p: *const T) {
    imp::prefetch_l1(p as *const u8)
}

/// Stores 16 bytes with one vector instruction (`st.v4.u32`).
///
/// # Safety
/// `p` must be valid for 16 bytes and 16-byte aligned.
#[inline(always)]
pub(crate) unsafe fn store_16(p: *mut u8, v: [u32; 4]) {
    imp::store_v4(p, v)
}

/// Relaxed atomic load (`ld.relaxed.scope`).
///
/// # Safety
/// `ptr` must be valid and aligned for reads.
#[inline(always)]
pub unsafe fn load_relaxed<T: AtomicWord>(ptr: *const T, scope: Scope) -> T {
    T::load_relaxed(ptr, scope)
}

/// Acquire load (`ld.acquire.scope`): pairs with a release at `scope`.
///
/// # Safety
/// `ptr` must be valid and aligned for reads.
#[inline(always)]
pub unsafe fn load_acquire<T: AtomicWord>(ptr: *const T, scope: Scope) -> T {
    T::load_acquire(ptr, scope)
}

/// Relaxed atomic store (`st.relaxed.scope`).
///
/// # Safety
/// `ptr` must be valid and aligned for writes.
#[inline(always)]
pub unsafe fn store_relaxed<T: AtomicWord>(ptr: *mut T, value: T, scope: Scope) {
    T::store_relaxed(ptr, value, scope)
}

/// Release store (`st.release.scope`): everything this thread wrote before
/// is visible to a thread in `scope` that acquires the value.
///
/// # Safety
/// `ptr` must be valid and aligned for writes.
#[inline(always)]
pub unsafe fn store_release<T: AtomicWord>(ptr: *mut T, value: T, scope: Scope) {
    T::store_release(ptr, value, scope)
}

/// Atomic add returning the previous value (`atom.sem.scope.add`).
///
/// # Safety
/// `ptr` must be valid and aligned for reads and writes.
#[inline(always)]
pub unsafe fn fetch_add<T: AtomicWord>(ptr: *mut T, value: T, order: Ordering, scope: Scope) -> T {
    T::fetch_add(ptr, value, order, scope)
}

/// Atomic exchange returning the previous value (`atom.sem.scope.exch`).
///
/// # Safety
/// `ptr` must be valid and aligned for reads and writes.
#[inline(always)]
pub unsafe fn swap<T: AtomicWord>(ptr: *mut T, value: T, order: Ordering, scope: Scope) -> T {
    T::swap(ptr, value, order, scope)
}

/// Atomic compare-and-swap (`atom.sem.scope.cas`): stores `new` if the value
/// equals `current`; returns the previous value either way.
///
/// # Safety
/// `ptr` must be valid and aligned for reads and writes.
#[inline(always)]
pub unsafe fn compare_exchange<T: AtomicWord>(
    ptr: *mut T,
    current: T,
    new: T,
    order: Ordering,
    scope: Scope,
) -> T {
    T::compare_exchange(ptr, current, new, order, scope)
}

/// Suspends the thread for about `ns` nanoseconds (`nanosleep`); use it as
/// back-off in poll loops. In the emulator it yields the OS thread.
#[inline(always)]
pub fn nanosleep(ns: u32) {
    imp::nanosleep(ns)
}

/// The square root of `x`, rounded to nearest (`sqrt.rn.f64`): IEEE 754's
/// correctly rounded square root, so the GPU and the emulator (`f64::sqrt`)
/// give the same bits. `core` has no square root without `std`.
#[inline(always)]
pub fn sqrt(x: f64) -> f64 {
    imp::sqrt(x)
}

/// `x`, which the optimizer may not look through (`mov.b64` in inline PTX;
/// the value itself on the CPU). For a value chosen to keep the GPU on a
/// fast path that the optimizer would otherwise prove unneeded and fold
/// away: Aliev–Panfilov divides one instead of zero and selects zero after,
/// and without this LLVM divides the zero again.
#[inline(always)]
pub fn opaque(x: f64) -> f64 {
    imp::opaque(x)
}

/// The GPU's global nanosecond timer (`%globaltimer`); wall-clock
/// nanoseconds in the emulator. Each thread reads its own: in a rank
/// kernel use `Rank::timestamp`, read once and the same on every thread
/// (the emulator refuses this call in a rank's uniform code).
#[inline(always)]
pub fn global_timer() -> u64 {
    imp::global_timer()
}

/// Atomic add without a result (`red.sem.scope.add`): cheaper than
/// [`fetch_add`] when the old value is not needed, as for notifications.
///
/// # Safety
/// `ptr` must be valid and aligned for reads and writes.
#[inline(always)]
pub unsafe fn add<T: AtomicWord>(ptr: *mut T, value: T, order: Ordering, scope: Scope) {
    T::add(ptr, value, order, scope)
}

/// Whether `ptr` points into global memory (`isspacep.global`): not into
/// shared or local memory. In the emulator: not into the block's shared
/// memory.
#[inline(always)]
pub fn is_global<T>(ptr: *const T) -> bool {
    imp::is_global(ptr as *const u8)
}

/// Ends the calling thread (`exit`). When every thread of every block has
/// exited, the kernel completes normally, unlike [`trap`]. In a rank
/// kernel the emulator reports it: a rank must return on every thread.
#[inline(always)]
#[track_caller]
pub fn exit_thread() -> ! {
    imp::exit_thread()
}

/// Aborts the kernel (`trap`); the host's launch returns an error.
#[inline(always)]
pub fn trap() -> ! {
    imp::trap()
}
