//! The host-driven baseline's kernels: the same sum, launched once per
//! integration over the process's intervals split among its blocks as the
//! rank kernel splits them among ranks.

use crate::compute::{midpoint_sum, split};
use dcuda_device::arch::{block_dim, block_idx, global_timer, grid_dim, sync_threads, thread_idx};
use dcuda_device::{kernel, shared_array, DeviceSlice};

shared_array!(static SUM_SCRATCH: [f64; 1024]);

// ANCHOR: blocks
/// One integration over intervals `first..end` of `intervals`; block `b`
/// writes its sum to `partials[b]` (a tree in shared memory, as CUDA's
/// samples reduce a block).
///
/// # Safety
/// `partials` is live device memory with a slot per block; the launch has
/// at most 1024 threads a block, a power of two.
#[kernel]
pub unsafe fn pi_blocks(intervals: u64, first: u64, end: u64, partials: DeviceSlice<f64>) {
    let (t, threads) = (thread_idx().x, block_dim().x);
    let (b, blocks) = (block_idx().x, grid_dim().x);
    let (lo, hi) = split(end - first, blocks, b);
    let range = (first + lo, first + hi);
    let sum = midpoint_sum(range, intervals, (t as u64, threads as u64));
    SUM_SCRATCH.set(t as usize, sum);
    let mut half = threads / 2;
    while half > 0 {
        sync_threads();
        if t < half {
            let s = SUM_SCRATCH.get(t as usize) + SUM_SCRATCH.get((t + half) as usize);
            SUM_SCRATCH.set(t as usize, s);
        }
        half /= 2;
    }
    if t == 0 {
        partials.write(b as usize, SUM_SCRATCH.get(0));
    }
}
// ANCHOR_END: blocks

/// Writes the device clock (`%globaltimer`, ns) to `out[at]`: queued on a
/// stream before and after the integrations, it times them with the clock
/// the rank kernel uses.
///
/// # Safety
/// `out` is live device memory; launch one thread.
#[kernel]
pub unsafe fn clock_stamp(out: DeviceSlice<u64>, at: u32) {
    out.write(at as usize, global_timer());
}
