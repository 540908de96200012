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
/// and the row itself in registers, four rows at a time so that four
/// rows' loads are in flight at once. Where rows are 16-byte aligned
/// (`nx` a multiple of 4, arrays aligned), a thread takes four columns at
/// a time (`sweep_by4`): one 16-byte load a row instead of four, so
/// that more bytes are in flight; otherwise one column at a time.
///
/// # Safety
/// While it runs, nothing else writes what it reads (rows
/// `rows.0 - 1 ..= rows.1` of `old`) or touches what it writes (its
/// columns of `rows` in `new`; with four columns at a time, also the
/// boundary columns of its groups, rewritten with their value in `old`,
/// which must equal theirs in `new`).
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
    let aligned = (old.as_ptr() as usize | new.as_ptr() as usize).is_multiple_of(16);
    if nx.is_multiple_of(4) && aligned {
        return sweep_by4(old, new, nx, rows, (thread, threads));
    }
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

/// Four `f32`s that load and store as one 16-byte access.
#[repr(C, align(16))]
#[derive(Clone, Copy)]
struct Four([f32; 4]);

/// [`sweep`] four columns at a time: thread `thread` takes the groups of
/// columns `4g..4g + 4` for `g = thread, thread + threads, ...`. The
/// points are the same sums in the same order as one column at a time
/// (east, west, south, north), so the grid is bitwise the same; a group's
/// east and west neighbours outside it are single loads (the neighbouring
/// groups', mostly from cache). The grid's boundary columns (the first
/// group's first, the last group's last) are written back unchanged.
///
/// # Safety
/// As [`sweep`], and `nx % 4 == 0` with both arrays 16-byte aligned.
#[inline(always)]
unsafe fn sweep_by4(
    old: DeviceSlice<f32>,
    new: DeviceSlice<f32>,
    nx: usize,
    rows: (usize, usize),
    (thread, threads): (usize, usize),
) -> f32 {
    let (a, b) = (old.as_ptr(), new.as_mut_ptr());
    let load = |i: usize| (*(a.add(i) as *const Four)).0;
    // The points west and east of the group's row at `i`.
    let sides = |i: usize| (*a.add(i - 1), *a.add(i + 4));
    let mut norm = 0.0f32;
    // The group's row at `i` from the rows around it and the points west
    // and east of it; the boundary lanes keep their value. Adds the
    // squared changes to `norm`.
    let mut row = |i: usize,
                   (first, last): (bool, bool),
                   [here, north, south]: [[f32; 4]; 3],
                   (west, east): (f32, f32)| {
        let mut v = [0.0f32; 4];
        for j in 0..4 {
            let e = if j < 3 { here[j + 1] } else { east };
            let w = if j > 0 { here[j - 1] } else { west };
            v[j] = 0.25 * (e + w + south[j] + north[j]);
        }
        if first {
            v[0] = here[0];
        }
        if last {
            v[3] = here[3];
        }
        *(b.add(i) as *mut Four) = Four(v);
        for j in 0..4 {
            let change = v[j] - here[j];
            norm += change * change;
        }
    };
    let mut g = thread;
    while 4 * g < nx {
        let edges = (g == 0, 4 * g + 4 == nx);
        let mut i = (rows.0 - 1) * nx + 4 * g;
        let mut north = load(i);
        i += nx;
        let mut here = load(i);
        let mut r = rows.0;
        while r + 4 <= rows.1 {
            // Every load of the four rows before any store: the stores
            // could alias them, so the compiler would not move them up.
            let (s0, s1, s2, s3) = (
                load(i + nx),
                load(i + 2 * nx),
                load(i + 3 * nx),
                load(i + 4 * nx),
            );
            let side = [0, 1, 2, 3].map(|k| sides(i + k * nx));
            row(i, edges, [here, north, s0], side[0]);
            row(i + nx, edges, [s0, here, s1], side[1]);
            row(i + 2 * nx, edges, [s1, s0, s2], side[2]);
            row(i + 3 * nx, edges, [s2, s1, s3], side[3]);
            (north, here) = (s2, s3);
            i += 4 * nx;
            r += 4;
        }
        while r < rows.1 {
            let south = load(i + nx);
            row(i, edges, [here, north, south], sides(i));
            (north, here) = (here, south);
            i += nx;
            r += 1;
        }
        g += threads;
    }
    norm
}
