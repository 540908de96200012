//! The host-driven baseline's kernel: one stage of the same stencils as the
//! rank kernel, launched once per stage over a band of rows split among
//! the blocks as the rank kernel splits them among ranks.

use crate::compute::{fluxes, laplacian, output, split, Mirror, Order, Shape, Walk, Work};
use dcuda_device::arch::{block_dim, block_idx, global_timer, grid_dim, thread_idx};
use dcuda_device::kernel::KernelParam;
use dcuda_device::{kernel, DeviceSlice};

/// The stages, in the order of an iteration.
#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Stage {
    /// The Laplacian of the input.
    Laplacian = 0,
    /// The limited fluxes.
    Fluxes = 1,
    /// The output.
    Output = 2,
}

/// One launch of a `hdiff_stage_*` kernel ([`HDIFF_STAGE_1`] and the other batches).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct StageArgs {
    /// The process's fields' shape.
    pub shape: Shape,
    /// The input of the iteration.
    pub inp: DeviceSlice<f64>,
    /// The intermediate fields and the coefficient.
    pub work: Work,
    /// The output of the iteration.
    pub out: DeviceSlice<f64>,
    /// Which stage ([`Stage`] as a number).
    pub stage: u32,
    /// The rows the launch computes (`first..end`, row indices of the
    /// fields), split evenly among its blocks.
    pub first: u32,
    /// See `first`.
    pub end: u32,
    /// Points of a row walked down a block's rows at a time (see [`Walk`]).
    pub chunk: u32,
    /// Points ahead a thread asks for in L1, in the `_p` kernels (see
    /// [`Walk`]).
    pub prefetch: u32,
}

// SAFETY: `#[repr(C)]` plain data, the same layout on both sides.
unsafe impl KernelParam for StageArgs {}

// ANCHOR: stage
/// One stage over rows `s.first..s.end`, a thread loading `batch` points
/// before it stores any, and walking a band of rows by chunks of
/// `s.chunk` points if `chunked` (else row by row: a walk by chunks costs
/// registers, and so occupancy, that a block of one row has no use for).
#[inline(always)]
unsafe fn stage(s: StageArgs, batch: u32, chunked: bool, prefetched: bool) {
    let (b, blocks) = (block_idx().x, grid_dim().x);
    let (lo, hi) = split(s.end - s.first, blocks, b);
    let rows = ((s.first + lo) as usize, (s.first + hi) as usize);
    let walk = Walk {
        thread: thread_idx().x as usize,
        threads: block_dim().x as usize,
        order: Order::Down {
            batch,
            chunk: if chunked { s.chunk } else { 0 },
        },
        prefetch: if prefetched { s.prefetch } else { 0 },
        // The host moves the halos.
        mirror: Mirror::NONE,
    };
    match s.stage {
        0 => laplacian(s.shape, s.inp, s.work.lap, rows, walk),
        1 => fluxes(s.shape, s.inp, s.work, rows, walk),
        _ => output(s.shape, s.inp, s.work, s.out, rows, walk),
    }
}

/// The stage kernels, one a batch and walk: a kernel's registers are
/// those of its busiest path, so a batch of 8 in the same kernel would cost
/// the batch of 1 its occupancy.
macro_rules! stage_kernels {
    ($($name:ident = $batch:literal, $chunked:literal, $prefetched:literal;)*) => {$(
        /// One stage over rows `s.first..s.end`, split evenly among the
        /// blocks, a thread loading this many points before storing any.
        ///
        /// # Safety
        /// The launch contract: the slices are live device memory of the
        /// shape given, and no other work touches what the stage reads or
        /// writes (the stencils' contracts).
        #[kernel]
        pub unsafe fn $name(s: StageArgs) {
            stage(s, $batch, $chunked, $prefetched)
        }
    )*};
}
stage_kernels!(
    hdiff_stage_1 = 1, false, false;
    hdiff_stage_2 = 2, false, false;
    hdiff_stage_4 = 4, false, false;
    hdiff_stage_8 = 8, false, false;
    hdiff_bands_1 = 1, true, false;
    hdiff_bands_2 = 2, true, false;
    hdiff_bands_4 = 4, true, false;
    hdiff_bands_8 = 8, true, false;
    hdiff_stage_1p = 1, false, true;
    hdiff_stage_2p = 2, false, true;
    hdiff_bands_1p = 1, true, true;
    hdiff_bands_2p = 2, true, true;
);
// ANCHOR_END: stage

/// Writes the device clock (`%globaltimer`, ns) to `out[at]`: queued on a
/// stream before and after the iterations, it times them with the clock
/// the rank kernel uses.
///
/// # Safety
/// `out` is live device memory; launch one thread.
#[kernel]
pub unsafe fn clock_stamp(out: DeviceSlice<u64>, at: u32) {
    out.write(at as usize, global_timer());
}
