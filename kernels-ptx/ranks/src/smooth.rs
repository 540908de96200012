//! A line of values smoothed in place, each rank owning a stretch between
//! two ghost elements: the kernel of the "Moving data in and out" example
//! (`examples/src/bin/moving_data.rs`), which fills the ghosts between runs
//! with a halo plan.

use dcuda_device::{rank, DeviceSlice, Rank};

// ANCHOR: kernel
/// Arguments of [`smooth_line`](SMOOTH_LINE).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct SmoothArgs {
    /// Per rank of this process: a ghost, `own` values, a ghost.
    pub parts: DeviceSlice<f32>,
    /// Scratch of the same shape.
    pub next: DeviceSlice<f32>,
    /// Values each rank owns.
    pub own: u32,
}

/// One smoothing step: every owned value becomes the mean of itself and
/// its two neighbours (a ghost at either end).
#[rank]
pub fn smooth_line(rank: &mut Rank, args: &SmoothArgs) {
    let own = args.own as usize;
    let base = rank.id() as usize * (own + 2);
    let stride = rank.threads_per_rank() as usize;
    rank.threads(|t| {
        let mut i = base + 1 + t.index() as usize;
        while i <= base + own {
            // SAFETY: `i - 1 ..= i + 1` lie in this rank's part.
            unsafe {
                let sum = args.parts.read(i - 1) + args.parts.read(i) + args.parts.read(i + 1);
                args.next.write(i, sum / 3.0);
            }
            i += stride;
        }
    });
    rank.sync_threads(); // every read of `parts` is done
    rank.threads(|t| {
        let mut i = base + 1 + t.index() as usize;
        while i <= base + own {
            // SAFETY: as above.
            unsafe { args.parts.write(i, args.next.read(i)) };
            i += stride;
        }
    });
}
// ANCHOR_END: kernel
