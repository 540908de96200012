//! The compute that the dcuda version and the baseline share: the split of
//! the intervals and one thread's part of the sum.

/// Intervals `start..end` of `n` that part `i` of `parts` owns: an even
/// split, sizes differing by at most one.
#[inline(always)]
pub fn split(n: u64, parts: u32, i: u32) -> (u64, u64) {
    let at = |i: u32| (i as u128 * n as u128 / parts as u128) as u64;
    (at(i), at(i + 1))
}

// ANCHOR: midpoint
/// Thread `thread` of `threads`'s part of the midpoint sum over intervals
/// `range` of `n` on [0, 1]: Σ 4 / (1 + x²) at x = (i + ½) / n for every
/// `threads`-th interval `i` from `range.0 + thread`. Multiply the total
/// by `1 / n` for π.
#[inline(always)]
pub fn midpoint_sum(range: (u64, u64), n: u64, (thread, threads): (u64, u64)) -> f64 {
    let h = 1.0 / n as f64;
    let mut sum = 0.0f64;
    let mut i = range.0 + thread;
    while i < range.1 {
        let x = (i as f64 + 0.5) * h;
        sum += 4.0 / (1.0 + x * x);
        i += threads;
    }
    sum
}
// ANCHOR_END: midpoint

/// [`midpoint_sum`] out of line, for the rank kernel: called, the loop gets
/// registers of its own, where inlined into the persistent kernel (capped
/// at 64 registers beside the runtime's state) ptxas reloaded its bounds
/// and step from local memory on every interval. The baseline inlines it.
#[inline(never)]
pub fn midpoint_sum_apart(range: (u64, u64), n: u64, thread: (u64, u64)) -> f64 {
    midpoint_sum(range, n, thread)
}
