//! `y = a*x + y`, one element per thread.

use dcuda_device::arch::{block_dim, block_idx, thread_idx};
use dcuda_device::kernel;

// ANCHOR: saxpy
/// `y[i] = a * x[i] + y[i]` for `i < n`.
#[kernel]
pub unsafe fn saxpy(a: f32, x: *const f32, y: *mut f32, n: u32) {
    let i = block_idx().x * block_dim().x + thread_idx().x;
    if i < n {
        let i = i as usize;
        *y.add(i) = a * *x.add(i) + *y.add(i);
    }
}
// ANCHOR_END: saxpy
