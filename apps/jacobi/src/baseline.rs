//! The host-driven baseline's kernels: the same sweep as the rank kernel,
//! launched once per step over a band of rows split among the blocks as
//! the rank kernel splits them among ranks.

use crate::compute::{split, sweep};
use dcuda_device::arch::{block_dim, block_idx, global_timer, grid_dim, sync_threads, thread_idx};
use dcuda_device::kernel::KernelParam;
use dcuda_device::{kernel, shared_array, DeviceSlice};

/// One launch of [`jacobi_step`](JACOBI_STEP).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Step {
    /// The state the step reads.
    pub old: DeviceSlice<f32>,
    /// The state the step writes.
    pub new: DeviceSlice<f32>,
    /// Columns.
    pub nx: u32,
    /// The rows the launch updates (`first..end`, row indices of the
    /// arrays), split evenly among its blocks.
    pub first: u32,
    /// See `first`.
    pub end: u32,
    /// Where block `b` writes its squared-change sum: `partials[slot + b]`.
    pub partials: DeviceSlice<f32>,
    /// See `partials`.
    pub slot: u32,
}

// SAFETY: `#[repr(C)]` plain data, the same layout on both sides.
unsafe impl KernelParam for Step {}

shared_array!(static NORM_SCRATCH: [f32; 1024]);

// ANCHOR: step
/// One Jacobi step over `step.first..step.end`; each block's sum of squared
/// changes goes to its partial (a tree in shared memory, as CUDA's samples
/// reduce a block).
///
/// # Safety
/// The launch contract: `step`'s slices are live device memory, the launch
/// has at most 1024 threads a block, a power of two, and no other work
/// touches the rows it reads or writes.
#[kernel]
pub unsafe fn jacobi_step(step: Step) {
    let (t, threads) = (thread_idx().x, block_dim().x);
    let (b, blocks) = (block_idx().x, grid_dim().x);
    let (lo, hi) = split(step.end - step.first, blocks, b);
    let rows = ((step.first + lo) as usize, (step.first + hi) as usize);
    let norm = sweep(
        step.old,
        step.new,
        step.nx as usize,
        rows,
        (t as usize, threads as usize),
    );
    NORM_SCRATCH.set(t as usize, norm);
    let mut half = threads / 2;
    while half > 0 {
        sync_threads();
        if t < half {
            let sum = NORM_SCRATCH.get(t as usize) + NORM_SCRATCH.get((t + half) as usize);
            NORM_SCRATCH.set(t as usize, sum);
        }
        half /= 2;
    }
    if t == 0 {
        step.partials
            .write((step.slot + b) as usize, NORM_SCRATCH.get(0));
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
