//! A row that a stage also stores at a neighbour's halo row, where the
//! rank can store there itself.

use dcuda_device::DeviceSlice;

// ANCHOR: mirror
/// A row of a rank's band that a stage also stores where a neighbour's
/// halo row lies, when the rank can store there itself: across the
/// periodic wrap within one process (the fields are shared), or on a
/// mapped GPU (`Rank::put_target_slice`). The rank then announces the row
/// with a notification instead of putting a copy of it after the stage:
/// the put's copy is on the ring's path, a store in the stage is not.
/// The baseline's kernels never do: the host moves their halos.
///
/// One row a stage at most: a second compare a point cost the rank
/// kernel's loops registers. `NONE` is a sentinel row, not an `Option`:
/// as `Option<Mirror>` the loops were the same, yet the rank body's
/// spills moved and the seed's grid ran 4.7% slower
/// (`bench/results/2026-11-30-hdiff-mirror-option-h200/`).
#[derive(Clone, Copy, Debug)]
pub struct Mirror {
    /// The row, in the process's fields; `usize::MAX`: none.
    pub row: usize,
    /// Where the row goes: a row's elements at least (checked).
    pub to: DeviceSlice<f64>,
}

impl Mirror {
    /// No row stored twice.
    pub const NONE: Mirror = Mirror {
        row: usize::MAX,
        to: DeviceSlice::empty(),
    };

    /// Whether it names a row.
    #[inline(always)]
    pub fn is_some(&self) -> bool {
        self.row != usize::MAX
    }
}

// ANCHOR_END: mirror

/// A [`Mirror`] as a walk over rows `rows` keeps it: the row within the
/// band.
#[derive(Clone, Copy)]
pub(super) struct BandMirror {
    /// The band-relative row; `u32::MAX`: none.
    row: u32,
    to: *mut f64,
}

impl BandMirror {
    /// Checks once that the destination holds a row of `width` elements.
    #[inline(always)]
    pub(super) fn new(mirror: Mirror, rows: (usize, usize), width: usize) -> BandMirror {
        let inside = mirror.row >= rows.0 && mirror.row < rows.1;
        assert!(
            !inside || mirror.to.len() >= width,
            "hdiff: a mirrored row's destination is shorter than a row"
        );
        BandMirror {
            row: if inside {
                (mirror.row - rows.0) as u32
            } else {
                u32::MAX
            },
            to: mirror.to.as_mut_ptr(),
        }
    }

    /// Stores `v` of point `at` of band row `r` (index `c`, column `x`),
    /// and again where the mirror says if `r` is its row.
    ///
    /// # Safety
    /// As the stencils'; `at` is below a row's elements (`new` checked
    /// that the destination holds them).
    #[inline(always)]
    pub(super) unsafe fn store<V: Copy>(
        &self,
        (r, at): (u32, usize),
        (c, x, v): (usize, u32, V),
        (store, also): (
            &mut impl FnMut(usize, u32, V),
            &mut impl FnMut(*mut f64, u32, V),
        ),
    ) {
        store(c, x, v);
        if r == self.row {
            also(self.to.add(at), x, v);
        }
    }
}
