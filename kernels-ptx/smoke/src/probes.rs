//! One tiny kernel per intrinsic. They are never run: a test reads their PTX
//! and checks that each emits the instruction its name promises
//! (`examples/tests/ptx_instructions.rs`).

use dcuda_device::arch::{self, Ordering, Scope};
use dcuda_device::{kernel, shared_array};

shared_array!(static PROBE_TILE: [f64; 32]);

#[kernel]
pub unsafe fn probe_indices(out: *mut u32) {
    let (t, b, bd, gd) = (
        arch::thread_idx(),
        arch::block_idx(),
        arch::block_dim(),
        arch::grid_dim(),
    );
    *out = t.x + t.y + t.z + b.x + b.y + b.z + bd.x + bd.y + bd.z + gd.x + gd.y + gd.z;
}

#[kernel]
pub unsafe fn probe_sync_threads() {
    arch::sync_threads();
}

#[kernel]
pub unsafe fn probe_fence_block() {
    arch::fence(Scope::Block);
}

#[kernel]
pub unsafe fn probe_fence_gpu() {
    arch::fence(Scope::Gpu);
}

#[kernel]
pub unsafe fn probe_fence_sys() {
    arch::fence(Scope::System);
}

#[kernel]
pub unsafe fn probe_fence_sc_gpu() {
    arch::fence_seq_cst(Scope::Gpu);
}

#[kernel]
pub unsafe fn probe_load_acquire_gpu(p: *const u32, out: *mut u32) {
    *out = arch::load_acquire(p, Scope::Gpu);
}

#[kernel]
pub unsafe fn probe_load_acquire_sys(p: *const u64, out: *mut u64) {
    *out = arch::load_acquire(p, Scope::System);
}

#[kernel]
pub unsafe fn probe_load_relaxed_gpu(p: *const u32, out: *mut u32) {
    *out = arch::load_relaxed(p, Scope::Gpu);
}

#[kernel]
pub unsafe fn probe_store_release_gpu(p: *mut u32, v: u32) {
    arch::store_release(p, v, Scope::Gpu);
}

#[kernel]
pub unsafe fn probe_store_release_sys(p: *mut u32, v: u32) {
    arch::store_release(p, v, Scope::System);
}

#[kernel]
pub unsafe fn probe_store_relaxed_sys(p: *mut u64, v: u64) {
    arch::store_relaxed(p, v, Scope::System);
}

#[kernel]
pub unsafe fn probe_fetch_add_relaxed_gpu(p: *mut u32, out: *mut u32) {
    *out = arch::fetch_add(p, 1, Ordering::Relaxed, Scope::Gpu);
}

#[kernel]
pub unsafe fn probe_fetch_add_acq_rel_sys(p: *mut u64, out: *mut u64) {
    *out = arch::fetch_add(p, 1, Ordering::AcqRel, Scope::System);
}

#[kernel]
pub unsafe fn probe_fetch_add_release_block(p: *mut u32, out: *mut u32) {
    *out = arch::fetch_add(p, 1, Ordering::Release, Scope::Block);
}

#[kernel]
pub unsafe fn probe_add_release_gpu(p: *mut u32) {
    arch::add(p, 1, Ordering::Release, Scope::Gpu);
}

#[kernel]
pub unsafe fn probe_add_relaxed_sys(p: *mut u64) {
    arch::add(p, 1, Ordering::Relaxed, Scope::System);
}

#[kernel]
pub unsafe fn probe_exit_thread() {
    arch::exit_thread();
}

#[kernel]
pub unsafe fn probe_swap_acquire_gpu(p: *mut u32, out: *mut u32) {
    *out = arch::swap(p, 7, Ordering::Acquire, Scope::Gpu);
}

#[kernel]
pub unsafe fn probe_swap_acq_rel_sys(p: *mut u64, out: *mut u64) {
    *out = arch::swap(p, 7, Ordering::AcqRel, Scope::System);
}

#[kernel]
pub unsafe fn probe_compare_exchange_acq_rel_gpu(p: *mut u32, out: *mut u32) {
    *out = arch::compare_exchange(p, 1, 2, Ordering::AcqRel, Scope::Gpu);
}

#[kernel]
pub unsafe fn probe_compare_exchange_relaxed_sys(p: *mut u64, out: *mut u64) {
    *out = arch::compare_exchange(p, 1, 2, Ordering::Relaxed, Scope::System);
}

#[kernel]
pub unsafe fn probe_nanosleep() {
    arch::nanosleep(100);
}

#[kernel]
pub unsafe fn probe_prefetch_l1(p: *const f64) {
    arch::prefetch_l1(p);
}

#[kernel]
pub unsafe fn probe_sqrt(x: f64, out: *mut f64) {
    *out = arch::sqrt(x);
}

/// One divided where `x` is zero, zero selected after: the dividend goes
/// through `opaque`, so that LLVM keeps the selected one.
#[kernel]
pub unsafe fn probe_opaque(x: f64, y: f64, out: *mut f64) {
    let zero = x == 0.0;
    let q = arch::opaque(if zero { 1.0 } else { x }) / y;
    *out = if zero { 0.0 } else { q };
}

#[kernel]
pub unsafe fn probe_global_timer(out: *mut u64) {
    *out = arch::global_timer();
}

#[kernel]
pub unsafe fn probe_shared(out: *mut f64) {
    let t = arch::thread_idx().x as usize % 32;
    PROBE_TILE.set(t, t as f64);
    arch::sync_threads();
    *out = PROBE_TILE.get(31 - t);
}

#[kernel]
pub unsafe fn probe_trap() {
    arch::trap();
}
