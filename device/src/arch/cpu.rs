//! The host backend: the intrinsics on std atomics, run by the CPU emulator.
//!
//! Host memory is coherent system-wide, so every [`Scope`] maps to the same
//! std atomic; orderings map one to one.

use super::emu;
use super::std;
use super::{AtomicWord, Dim3, Ordering, Scope};
use core::sync::atomic::{self, AtomicU32, AtomicU64, Ordering as Std};

pub fn thread_idx() -> Dim3 {
    emu::thread_idx("thread_idx")
}
pub fn block_idx() -> Dim3 {
    emu::with_thread("block_idx", |t| t.block_idx)
}
pub fn block_dim() -> Dim3 {
    emu::with_thread("block_dim", |t| t.block_dim)
}
pub fn grid_dim() -> Dim3 {
    emu::with_thread("grid_dim", |t| t.grid_dim)
}

pub fn sync_threads() {
    emu::sync_threads()
}

pub fn fence_acq_rel(_scope: Scope) {
    atomic::fence(Std::AcqRel)
}

pub fn fence_sc(_scope: Scope) {
    atomic::fence(Std::SeqCst)
}

fn std_order(order: Ordering) -> Std {
    match order {
        Ordering::Relaxed => Std::Relaxed,
        Ordering::Acquire => Std::Acquire,
        Ordering::Release => Std::Release,
        Ordering::AcqRel => Std::AcqRel,
    }
}

/// The strongest ordering a failed compare-exchange (a load) may have.
fn failure_order(order: Ordering) -> Std {
    match order {
        Ordering::Relaxed | Ordering::Release => Std::Relaxed,
        Ordering::Acquire | Ordering::AcqRel => Std::Acquire,
    }
}

macro_rules! impl_atomic_word {
    ($t:ty, $atomic:ty) => {
        impl AtomicWord for $t {
            unsafe fn load_relaxed(ptr: *const Self, _scope: Scope) -> Self {
                <$atomic>::from_ptr(ptr as *mut $t).load(Std::Relaxed)
            }
            unsafe fn load_acquire(ptr: *const Self, _scope: Scope) -> Self {
                <$atomic>::from_ptr(ptr as *mut $t).load(Std::Acquire)
            }
            unsafe fn store_relaxed(ptr: *mut Self, value: Self, _scope: Scope) {
                <$atomic>::from_ptr(ptr).store(value, Std::Relaxed)
            }
            unsafe fn store_release(ptr: *mut Self, value: Self, _scope: Scope) {
                <$atomic>::from_ptr(ptr).store(value, Std::Release)
            }
            unsafe fn fetch_add(
                ptr: *mut Self,
                value: Self,
                order: Ordering,
                _scope: Scope,
            ) -> Self {
                emu::require_thread("fetch_add");
                <$atomic>::from_ptr(ptr).fetch_add(value, std_order(order))
            }
            unsafe fn add(ptr: *mut Self, value: Self, order: Ordering, _scope: Scope) {
                emu::require_thread("add");
                <$atomic>::from_ptr(ptr).fetch_add(value, std_order(order));
            }
            unsafe fn swap(ptr: *mut Self, value: Self, order: Ordering, _scope: Scope) -> Self {
                emu::require_thread("swap");
                <$atomic>::from_ptr(ptr).swap(value, std_order(order))
            }
            unsafe fn compare_exchange(
                ptr: *mut Self,
                current: Self,
                new: Self,
                order: Ordering,
                _scope: Scope,
            ) -> Self {
                emu::require_thread("compare_exchange");
                match <$atomic>::from_ptr(ptr).compare_exchange(
                    current,
                    new,
                    std_order(order),
                    failure_order(order),
                ) {
                    Ok(v) | Err(v) => v,
                }
            }
        }
    };
}

impl_atomic_word!(u32, AtomicU32);
impl_atomic_word!(u64, AtomicU64);

#[inline(always)]
pub fn sqrt(x: f64) -> f64 {
    x.sqrt()
}

#[inline(always)]
pub fn opaque(x: f64) -> f64 {
    x
}

pub fn nanosleep(ns: u32) {
    emu::check_abort();
    if ns >= 1_000 {
        std::thread::sleep(std::time::Duration::from_nanos(ns as u64));
    } else {
        std::thread::yield_now();
    }
}

pub fn global_timer() -> u64 {
    emu::require_thread_or(
        "global_timer",
        "read the rank's clock with `rank.timestamp()` (once, the same on every thread)",
    );
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos() as u64)
        .unwrap_or(0)
}

pub fn is_global(ptr: *const u8) -> bool {
    !emu::is_shared(ptr)
}

#[track_caller]
pub fn exit_thread() -> ! {
    if super::lanes::index().is_some() {
        super::lanes::exit(core::panic::Location::caller())
    }
    // A raw kernel's thread is an OS thread of its own: it just ends.
    std::panic::panic_any(emu::Aborted)
}

pub fn trap() -> ! {
    panic!("device trap")
}

/// # Safety
/// `p` must be valid for 16 bytes and 16-byte aligned.
pub(crate) unsafe fn load_v4(p: *const u8) -> [u32; 4] {
    (p as *const [u32; 4]).read()
}

/// Nothing to ask for: the emulator has no cache to warm.
///
/// # Safety
/// `p` must be valid for reads.
pub(crate) unsafe fn prefetch_l1(_p: *const u8) {}

/// # Safety
/// `p` must be valid for 16 bytes and 16-byte aligned.
pub(crate) unsafe fn store_v4(p: *mut u8, v: [u32; 4]) {
    (p as *mut [u32; 4]).write(v)
}
