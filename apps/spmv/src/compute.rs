//! The compute that the dcuda version and the baselines share: the row
//! split, the matrix's rows on the device, and one thread's part of a
//! product.

use dcuda_device::DeviceSlice;

/// Rows `start..end` of `n` that part `i` of `parts` owns: an even split,
/// sizes differing by at most one.
#[inline(always)]
pub fn split(n: u32, parts: u32, i: u32) -> (u32, u32) {
    let at = |i: u32| (i as u64 * n as u64 / parts as u64) as u32;
    (at(i), at(i + 1))
}

/// The rows a process holds, in CSR form: row `r` (counted from the
/// process's first row) has the entries `row_ptr[r]..row_ptr[r + 1]` of
/// `cols` (global column indices) and `vals`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Csr {
    /// Where each row's entries start, and one past the last row's end.
    pub row_ptr: DeviceSlice<u32>,
    /// Column of each entry.
    pub cols: DeviceSlice<u32>,
    /// Value of each entry.
    pub vals: DeviceSlice<f64>,
}

// ANCHOR: rows
/// Thread `thread` of `threads` computes rows `rows` (counted from the
/// process's first row, global row `first`) of `y = scale · A x`, a row a
/// thread, each row's entries summed in order; returns its sum of `y²`.
/// `x` and `y` are indexed by global row.
///
/// # Safety
/// `csr` is well formed (`row_ptr` rises, within `cols` and `vals`; every
/// column is below `x.len()`), `first + rows.1 <= y.len()`, and while it
/// runs nothing writes what it reads or touches the rows it writes.
#[inline(always)]
pub unsafe fn product_rows(
    csr: Csr,
    (x, y): (DeviceSlice<f64>, DeviceSlice<f64>),
    (first, rows): (u32, (u32, u32)),
    scale: f64,
    (thread, threads): (u32, u32),
) -> f64 {
    let (ptr, cols, vals) = (csr.row_ptr.as_ptr(), csr.cols.as_ptr(), csr.vals.as_ptr());
    let (xs, ys) = (x.as_ptr(), y.as_mut_ptr());
    let mut squares = 0.0f64;
    let mut r = rows.0 + thread;
    while r < rows.1 {
        let (start, end) = (*ptr.add(r as usize), *ptr.add(r as usize + 1));
        let mut sum = 0.0f64;
        for e in start as usize..end as usize {
            sum += *vals.add(e) * *xs.add(*cols.add(e) as usize);
        }
        let v = scale * sum;
        *ys.add((first + r) as usize) = v;
        squares += v * v;
        r += threads;
    }
    squares
}
// ANCHOR_END: rows

/// [`product_rows`] out of line, for the rank kernel: called, the row loop
/// gets registers of its own, where inlined into the persistent kernel
/// ptxas reloaded its bounds from local memory on every row. The baseline
/// inlines it.
///
/// # Safety
/// As [`product_rows`].
#[inline(never)]
pub unsafe fn product_rows_apart(
    csr: &Csr,
    xy: &(DeviceSlice<f64>, DeviceSlice<f64>),
    first: u32,
    rows: (u32, u32),
    scale: f64,
    thread: u32,
    threads: u32,
) -> f64 {
    product_rows(*csr, *xy, (first, rows), scale, (thread, threads))
}

/// The global rows `[lo, hi)` within `band` of rows `rows` of `n`: the
/// entries of `x` that rows `rows` of a matrix of that bandwidth read.
#[inline(always)]
pub fn reach(rows: (u32, u32), band: u32, n: u32) -> (u32, u32) {
    (
        rows.0.saturating_sub(band),
        rows.1.saturating_add(band).min(n),
    )
}

/// The overlap of two row ranges (empty: `lo >= hi`).
#[inline(always)]
pub fn overlap(a: (u32, u32), b: (u32, u32)) -> (u32, u32) {
    (a.0.max(b.0), a.1.min(b.1))
}
