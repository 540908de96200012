//! The host-driven baseline's kernels: the same step as the rank kernel,
//! launched once per time step over a rectangle split in rows among the
//! blocks, and the packing of the columns that go to other processes.

use crate::compute::{copy_column, TimeStep};
use crate::layout::{split, Fields, Rect};
use crate::mirror::{has_mirrors, mirror_ghosts};
use crate::walk::{step, step_claimed, Claims, Walk};
use dcuda_device::arch::{block_dim, block_idx, global_timer, grid_dim, sync_threads, thread_idx};
use dcuda_device::kernel::KernelParam;
use dcuda_device::{kernel, shared_array, DeviceSlice};

shared_array!(static BLOCK_CLAIMS: [u32; 32]);

/// One launch of a `panfilov_step_*` kernel ([`PANFILOV_STEP_1`] and the other batches).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct StepArgs {
    /// The process's fields' shape.
    pub fields: Fields,
    /// The excitation before the step.
    pub old: DeviceSlice<f64>,
    /// The excitation after it.
    pub new: DeviceSlice<f64>,
    /// The recovery variable, updated in place.
    pub r: DeviceSlice<f64>,
    /// The points the launch steps; its rows are split among the blocks.
    pub rect: Rect,
    /// The time step.
    pub step: TimeStep,
}

// SAFETY: `#[repr(C)]` plain data, the same layout on both sides.
unsafe impl KernelParam for StepArgs {}

// ANCHOR: kernel
/// One time step over `args.rect`, its rows split among the blocks, a
/// thread loading `batch` points before it stores any.
#[inline(always)]
unsafe fn step_rows(args: StepArgs, batch: u32) {
    let rect = block_rows(&args);
    let walk = Walk {
        thread: thread_idx().x as usize,
        threads: block_dim().x as usize,
        batch,
    };
    step(
        args.fields,
        (args.old, args.new, args.r),
        rect,
        args.step,
        walk,
    );
}

/// This block's rows of `args.rect`.
#[inline(always)]
fn block_rows(args: &StepArgs) -> Rect {
    let rows = split(args.rect.height(), grid_dim().x, block_idx().x);
    Rect {
        y0: args.rect.y0 + rows.0,
        y1: args.rect.y0 + rows.1,
        ..args.rect
    }
}

/// The step kernels, one a batch: a kernel's registers are those of its
/// busiest path, so a batch of 8 in the same kernel would cost the batch
/// of 1 its occupancy.
macro_rules! step_kernels {
    ($($name:ident = $batch:literal),*) => {$(
        /// One time step over `args.rect`, a thread loading this many
        /// points before storing any.
        ///
        /// # Safety
        /// The launch contract: the slices are live device memory of the
        /// fields' shape, and no other work touches what the step reads or
        /// writes.
        #[kernel]
        pub unsafe fn $name(args: StepArgs) {
            step_rows(args, $batch)
        }
    )*};
}
step_kernels!(
    panfilov_step_1 = 1,
    panfilov_step_2 = 2,
    panfilov_step_4 = 4,
    panfilov_step_8 = 8
);
// ANCHOR_END: kernel

/// One time step over `args.rect`, its rows split among the blocks, whose
/// threads claim the points as they go ([`step_claimed`]); then a block
/// on the grid's sides mirrors its ghost points ([`mirror_ghosts`]).
///
/// # Safety
/// As the `panfilov_step_*` kernels ([`PANFILOV_STEP_1`]).
#[kernel]
pub unsafe fn panfilov_claimed(args: StepArgs) {
    claimed_step::<false>(args)
}

/// [`panfilov_claimed`] asking for each next chunk's lines ahead, as the
/// rank kernel does.
///
/// # Safety
/// As the `panfilov_step_*` kernels ([`PANFILOV_STEP_1`]).
#[kernel]
pub unsafe fn panfilov_claimed_ahead(args: StepArgs) {
    claimed_step::<true>(args)
}

#[inline(always)]
unsafe fn claimed_step<const AHEAD: bool>(args: StepArgs) {
    let t = thread_idx().x;
    if t < 32 {
        BLOCK_CLAIMS.set(t as usize, 0);
    }
    sync_threads();
    let (rect, thread) = (block_rows(&args), (t, block_dim().x));
    let claims = Claims::at_step(BLOCK_CLAIMS.as_mut_ptr(), thread, &rect, 0);
    let state = (args.old, args.new, args.r);
    let inner = Fields {
        edges: 0,
        ..args.fields
    };
    step_claimed::<AHEAD>(&inner, &state, &rect, &args.step, &claims);
    if has_mirrors(&args.fields, &rect) {
        // The mirrored points are other threads'.
        sync_threads();
        mirror_ghosts(&args.fields, args.new, &rect, thread);
    }
}

/// Packs (`pack` 1) column `col`, rows 1 to `height`, of `field` into
/// `column`, or unpacks it (`pack` 0).
///
/// # Safety
/// As the `panfilov_step_*` kernels ([`PANFILOV_STEP_1`]); one block.
#[kernel]
pub unsafe fn panfilov_column(
    fields: Fields,
    field: DeviceSlice<f64>,
    col: u32,
    column: DeviceSlice<f64>,
    pack: u32,
) {
    let thread = (thread_idx().x as usize, block_dim().x as usize);
    let rows = (1, fields.height + 1);
    copy_column(fields, field, (col, rows), column, pack != 0, thread);
}

/// Writes the device clock (`%globaltimer`, ns) to `out[at]`.
///
/// # Safety
/// `out` is live device memory; launch one thread.
#[kernel]
pub unsafe fn clock_stamp(out: DeviceSlice<u64>, at: u32) {
    out.write(at as usize, global_timer());
}

// SAFETY: `#[repr(C)]` plain data, the same layout on both sides.
unsafe impl KernelParam for Fields {}
