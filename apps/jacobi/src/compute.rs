//! The compute that the dcuda version and the baselines share: the row
//! split and one thread's part of a sweep.

use dcuda_device::DeviceSlice;

/// Rows `start..end` of `n` rows that part `i` of `parts` owns: an even
/// split, sizes differing by at most one.
#[inline(always)]
pub fn split(n: u32, parts: u32, i: u32) -> (u32, u32) {
    let at = |i: u32| (i as u64 * n as u64 / parts as u64) as u32;
    (at(i), at(i + 1))
}

// ANCHOR: sweep
/// Thread `thread` of `threads` updates its columns of rows `rows` (row
/// indices of `old` and `new`, each `nx` wide) and returns its sum of
/// squared changes. A thread walks down its columns, keeping the row above
/// and the row itself in registers (three loads a point), four rows at a
/// time so that four rows' loads are in flight at once.
///
/// # Safety
/// While it runs, nothing else writes what it reads (rows
/// `rows.0 - 1 ..= rows.1` of `old`) or touches what it writes (its
/// columns of `rows` in `new`).
#[inline(always)]
pub unsafe fn sweep(
    old: DeviceSlice<f32>,
    new: DeviceSlice<f32>,
    nx: usize,
    rows: (usize, usize),
    (thread, threads): (usize, usize),
) -> f32 {
    // One check up front; the loop below stays within it.
    assert!(
        rows.0 >= 1 && rows.0 <= rows.1 && (rows.1 + 1) * nx <= old.len() && new.len() == old.len(),
        "sweep: rows outside the arrays"
    );
    let (a, b) = (old.as_ptr(), new.as_mut_ptr());
    // The update of one point from its four neighbours, in the order of
    // NVIDIA's samples (east, west, south, north).
    let point =
        |i: usize, south: f32, north: f32| 0.25 * (*a.add(i + 1) + *a.add(i - 1) + south + north);
    let mut norm = 0.0f32;
    let mut ix = 1 + thread;
    while ix + 1 < nx {
        let mut i = (rows.0 - 1) * nx + ix;
        let mut north = *a.add(i);
        i += nx;
        let mut here = *a.add(i);
        let mut row = rows.0;
        while row + 4 <= rows.1 {
            let (s0, s1, s2, s3) = (
                *a.add(i + nx),
                *a.add(i + 2 * nx),
                *a.add(i + 3 * nx),
                *a.add(i + 4 * nx),
            );
            let v0 = point(i, s0, north);
            let v1 = point(i + nx, s1, here);
            let v2 = point(i + 2 * nx, s2, s0);
            let v3 = point(i + 3 * nx, s3, s1);
            *b.add(i) = v0;
            *b.add(i + nx) = v1;
            *b.add(i + 2 * nx) = v2;
            *b.add(i + 3 * nx) = v3;
            for change in [v0 - here, v1 - s0, v2 - s1, v3 - s2] {
                norm += change * change;
            }
            (north, here) = (s2, s3);
            i += 4 * nx;
            row += 4;
        }
        while row < rows.1 {
            let south = *a.add(i + nx);
            let value = point(i, south, north);
            *b.add(i) = value;
            let change = value - here;
            norm += change * change;
            (north, here) = (here, south);
            i += nx;
            row += 1;
        }
        ix += threads;
    }
    norm
}
// ANCHOR_END: sweep
