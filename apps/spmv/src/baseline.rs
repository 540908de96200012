//! The host-driven baselines' kernels: the same product, launched once per
//! step over a range of the process's rows split among the blocks as the
//! rank kernel splits them among ranks.

use crate::compute::{product_rows, split, Csr};
use dcuda_device::arch::{block_dim, block_idx, global_timer, grid_dim, sync_threads, thread_idx};
use dcuda_device::kernel::KernelParam;
use dcuda_device::{kernel, shared_array, DeviceSlice};

/// One launch of [`spmv_step`](SPMV_STEP).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Step {
    /// The process's rows.
    pub matrix: Csr,
    /// The vector the step reads (all `n` entries).
    pub x: DeviceSlice<f64>,
    /// The vector the step writes (its rows).
    pub y: DeviceSlice<f64>,
    /// Global row of the process's first row.
    pub base: u32,
    /// The rows the launch computes (`first..end`, counted from the
    /// process's first), split evenly among its blocks.
    pub first: u32,
    /// See `first`.
    pub end: u32,
    /// The scale of the product.
    pub scale: f64,
    /// Where block `b` writes its sum of squares: `partials[slot + b]`.
    pub partials: DeviceSlice<f64>,
    /// See `partials`.
    pub slot: u32,
}

// SAFETY: `#[repr(C)]` plain data, the same layout on both sides.
unsafe impl KernelParam for Step {}

shared_array!(static SQUARES: [f64; 1024]);

// ANCHOR: step
/// One product over rows `step.first..step.end`; each block's sum of
/// squares goes to its partial (a tree in shared memory).
///
/// # Safety
/// The launch contract: `step`'s slices are live device memory, the matrix
/// is well formed, the launch has at most 1024 threads a block, a power of
/// two, and no other work touches the rows it writes or writes what it
/// reads.
#[kernel]
pub unsafe fn spmv_step(step: Step) {
    let (t, threads) = (thread_idx().x, block_dim().x);
    let (b, blocks) = (block_idx().x, grid_dim().x);
    let (lo, hi) = split(step.end - step.first, blocks, b);
    let rows = (step.first + lo, step.first + hi);
    let vectors = (step.x, step.y);
    let squares = product_rows(
        step.matrix,
        vectors,
        (step.base, rows),
        step.scale,
        (t, threads),
    );
    SQUARES.set(t as usize, squares);
    let mut half = threads / 2;
    while half > 0 {
        sync_threads();
        if t < half {
            let s = SQUARES.get(t as usize) + SQUARES.get((t + half) as usize);
            SQUARES.set(t as usize, s);
        }
        half /= 2;
    }
    if t == 0 {
        step.partials
            .write((step.slot + b) as usize, SQUARES.get(0));
    }
}
// ANCHOR_END: step

/// Writes the device clock (`%globaltimer`, ns) to `out[at]`: queued on a
/// stream before and after the steps, it times them with the clock the
/// rank kernel uses.
///
/// # Safety
/// `out` is live device memory; launch one thread.
#[kernel]
pub unsafe fn clock_stamp(out: DeviceSlice<u64>, at: u32) {
    out.write(at as usize, global_timer());
}
