//! The compute that the dcuda version and the baselines share: one
//! thread's part of a time step over a rectangle, and the packing of a
//! ghost column.

use crate::layout::{Fields, Rect};
use dcuda_device::DeviceSlice;

/// The model's constants (Aliev and Panfilov 1996, as in the classic
/// cardiac-simulation code).
pub mod model {
    /// Excitation threshold.
    pub const A: f64 = 0.1;
    /// Recovery parameter.
    pub const B: f64 = 0.1;
    /// Reaction rate.
    pub const KK: f64 = 8.0;
    /// Recovery rate parameters.
    pub const M1: f64 = 0.07;
    /// See `M1`.
    pub const M2: f64 = 0.3;
    /// Recovery time scale.
    pub const EPSILON: f64 = 0.01;
    /// Diffusion coefficient.
    pub const D: f64 = 5e-5;
}

/// The time step and the diffusion number of a grid of `n` points a side.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TimeStep {
    /// The time step: 95% of the explicit scheme's stability limit.
    pub dt: f64,
    /// `D·dt/dx²`.
    pub alpha: f64,
}

impl TimeStep {
    /// The classic code's choice for a grid of `n` points a side
    /// (`dx = 1/(n−1)`).
    pub fn for_grid(n: u32) -> TimeStep {
        use model::*;
        let dx = 1.0 / (n.max(2) - 1) as f64;
        let rp = KK * (B + 1.0) * (B + 1.0) / 4.0;
        let dte = (dx * dx) / (D * 4.0 + (dx * dx) * (rp + KK));
        let dtr = 1.0 / (EPSILON + ((M1 / M2) * rp));
        let dt = 0.95 * if dte < dtr { dte } else { dtr };
        TimeStep {
            dt,
            alpha: D * dt / (dx * dx),
        }
    }
}

/// One point's step: the excitation `e` after diffusion (`lap` the sum of
/// the four neighbours), then both fields after the reaction.
#[inline(always)]
pub fn point(e: f64, lap: f64, r: f64, s: TimeStep) -> (f64, f64) {
    use model::*;
    let e = e + s.alpha * (lap - 4.0 * e);
    let e = e - s.dt * (KK * e * (e - A) * (e - 1.0) + e * r);
    let r = r + s.dt * (EPSILON + recovery_quotient(e, r)) * (-r - KK * e * (e - B - 1.0));
    (e, r)
}

// ANCHOR: quotient
/// `M1·r / (e + M2)`, without dividing zero. A GPU's `f64` division takes
/// a slow subroutine when the dividend's exponent is out of its fast
/// path's range, zero included (SASS: `FSETP.GEU |hi|, 6.58e-37` before
/// `CALL`), and at rest `r` is exactly zero over whole regions: the ranks
/// holding them were 15% slower a step and paced every other rank.
/// Dividing one and selecting zero keeps every warp on the fast path and
/// the result bitwise the same (`±0 / d` added to `EPSILON` is `EPSILON`);
/// `opaque` stops LLVM from proving the one unneeded and dividing zero.
#[inline(always)]
fn recovery_quotient(e: f64, r: f64) -> f64 {
    use model::*;
    let at_rest = r == 0.0;
    let q = dcuda_device::arch::opaque(if at_rest { 1.0 } else { M1 * r }) / (e + M2);
    if at_rest {
        0.0
    } else {
        q
    }
}
// ANCHOR_END: quotient

/// One thread's walk over the points of a step: thread `thread` of
/// `threads` takes every `threads`-th point, so that a warp reads
/// consecutive points, and loads `batch` points (1, 2, 4 or 8) before it
/// stores any. Stores could alias the loads, so the compiler would not
/// move loads above them itself; a batch keeps more loads in flight, which
/// a rank kernel's low occupancy needs and a full GPU of blocks may not
/// (more registers).
#[derive(Clone, Copy, Debug)]
pub struct Walk {
    /// This thread.
    pub thread: usize,
    /// Threads of the rank or block.
    pub threads: usize,
    /// Points loaded before they are stored.
    pub batch: u32,
}

// ANCHOR: step
/// Thread `thread` of `threads` steps its points of `rect`: `old` → `new`
/// for the excitation, the recovery `r` in place. Where the process's
/// side is the grid's boundary, the point one in from the edge is also
/// written to the ghost point it mirrors (no flux).
///
/// # Safety
/// While it runs, nothing writes `old` in `rect` and the ring around it,
/// and nothing else touches this thread's points of `new` and `r` or the
/// ghost points they mirror to.
#[inline(always)]
pub unsafe fn step(
    fields: Fields,
    (old, new, r): (DeviceSlice<f64>, DeviceSlice<f64>, DeviceSlice<f64>),
    rect: Rect,
    s: TimeStep,
    walk: Walk,
) {
    let state = (old, new, r);
    match walk.batch {
        1 => batched::<1>(fields, state, rect, s, walk),
        2 => batched::<2>(fields, state, rect, s, walk),
        4 => batched::<4>(fields, state, rect, s, walk),
        _ => batched::<8>(fields, state, rect, s, walk),
    }
}
// ANCHOR_END: step

/// [`step`] for the rank kernel, each batch out of line: called, the walk
/// gets registers of its own, where inlined into the persistent kernel
/// (capped beside the runtime's state) ptxas reloaded 16 of its invariants
/// from local memory at every point (8 out of line at 64 registers, none
/// at 96). The baseline inlines [`step`].
///
/// # Safety
/// As [`step`].
#[inline(always)]
pub unsafe fn step_apart(
    fields: &Fields,
    state: &(DeviceSlice<f64>, DeviceSlice<f64>, DeviceSlice<f64>),
    rect: &Rect,
    s: &TimeStep,
    walk: &Walk,
) {
    match walk.batch {
        1 => batched_apart::<1>(fields, state, rect, s, walk),
        2 => batched_apart::<2>(fields, state, rect, s, walk),
        4 => batched_apart::<4>(fields, state, rect, s, walk),
        _ => batched_apart::<8>(fields, state, rect, s, walk),
    }
}

#[inline(never)]
unsafe fn batched_apart<const BATCH: usize>(
    fields: &Fields,
    state: &(DeviceSlice<f64>, DeviceSlice<f64>, DeviceSlice<f64>),
    rect: &Rect,
    s: &TimeStep,
    walk: &Walk,
) {
    // Whether the rectangle holds a point that mirrors to a ghost point
    // (the point one in from a side on the grid's boundary).
    let mirrors = (fields.edges & Fields::WEST != 0 && rect.x0 <= 2)
        || (fields.edges & Fields::EAST != 0 && rect.x1 >= fields.width)
        || (fields.edges & Fields::NORTH != 0 && rect.y0 <= 2)
        || (fields.edges & Fields::SOUTH != 0 && rect.y1 >= fields.height);
    if !mirrors {
        // None: the walk's mirror checks fold away and it keeps fewer
        // values live.
        let inner = Fields {
            edges: 0,
            ..*fields
        };
        batched::<BATCH>(inner, *state, *rect, *s, *walk)
    } else {
        batched::<BATCH>(*fields, *state, *rect, *s, *walk)
    }
}

#[inline(always)]
unsafe fn batched<const BATCH: usize>(
    fields: Fields,
    (old, new, r): (DeviceSlice<f64>, DeviceSlice<f64>, DeviceSlice<f64>),
    rect: Rect,
    s: TimeStep,
    Walk {
        thread, threads, ..
    }: Walk,
) {
    // One check up front; the loop below stays within it.
    assert!(
        rect.x0 >= 1
            && rect.y0 >= 1
            && rect.x0 <= rect.x1
            && rect.y0 <= rect.y1
            && rect.x1 <= fields.width + 1
            && rect.y1 <= fields.height + 1
            && [old, new, r].iter().all(|f| f.len() >= fields.len()),
        "aliev_panfilov: a rectangle outside the fields"
    );
    let p = fields.pitch();
    let (w, n) = (rect.width(), rect.width() as u64 * rect.height() as u64);
    if n == 0 {
        return;
    }
    // The walk in 32 bits, its (row, column) cursor stepped by `threads`
    // points at a time without a division: fewer registers in the loop,
    // which a rank kernel needs to keep its invariants out of local memory.
    let stride = threads as u64;
    assert!(
        n + (BATCH as u64 + 1) * stride <= u32::MAX as u64,
        "aliev_panfilov: a rectangle of over 2^32 points"
    );
    let (n, stride) = (n as u32, stride as u32);
    let (dj, di) = (stride / w, stride % w);
    let (o, e_out, r_io) = (old.as_ptr(), new.as_mut_ptr(), r.as_mut_ptr());
    let mirror = |side: u32| fields.edges & side != 0;
    let mut k = thread as u32;
    let (mut j, mut i) = (rect.y0 + k / w, rect.x0 + k % w);
    while k < n {
        let mut points = [(0u32, 0u32, false, 0.0f64, 0.0f64); BATCH];
        for point_b in points.iter_mut() {
            if k < n {
                let c = j as usize * p + i as usize;
                let lap = *o.add(c + 1) + *o.add(c - 1) + *o.add(c + p) + *o.add(c - p);
                let (e, rr) = point(*o.add(c), lap, *r_io.add(c), s);
                *point_b = (j, i, true, e, rr);
            }
            k += stride;
            (j, i) = (j + dj, i + di);
            if i >= rect.x1 {
                (j, i) = (j + 1, i - w);
            }
        }
        for (j, i, live, e, rr) in points {
            if !live {
                continue;
            }
            let (j, i) = (j as usize, i as usize);
            let c = j * p + i;
            *e_out.add(c) = e;
            *r_io.add(c) = rr;
            if i == 2 && mirror(Fields::WEST) {
                *e_out.add(j * p) = e;
            }
            if i == fields.width as usize - 1 && mirror(Fields::EAST) {
                *e_out.add(j * p + p - 1) = e;
            }
            if j == 2 && mirror(Fields::NORTH) {
                *e_out.add(i) = e;
            }
            if j == fields.height as usize - 1 && mirror(Fields::SOUTH) {
                *e_out.add((fields.height as usize + 1) * p + i) = e;
            }
        }
    }
}

/// Copies column `col` of `field`, rows `rows`, to `column` (`pack`) or
/// back (`!pack`); this thread's elements.
///
/// # Safety
/// Nothing else touches the elements this thread copies while it runs.
#[inline(always)]
pub unsafe fn copy_column(
    fields: Fields,
    field: DeviceSlice<f64>,
    (col, rows): (u32, (u32, u32)),
    column: DeviceSlice<f64>,
    pack: bool,
    (thread, threads): (usize, usize),
) {
    let n = (rows.1 - rows.0) as usize;
    assert!(
        col <= fields.width + 1
            && rows.0 <= rows.1
            && rows.1 <= fields.height + 2
            && column.len() >= n
            && field.len() >= fields.len(),
        "aliev_panfilov: a column outside the fields"
    );
    let (f, c) = (field.as_mut_ptr(), column.as_mut_ptr());
    let mut k = thread;
    while k < n {
        let at = (rows.0 as usize + k) * fields.pitch() + col as usize;
        if pack {
            *c.add(k) = *f.add(at);
        } else {
            *f.add(at) = *c.add(k);
        }
        k += threads;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The model as written, with the division of zero.
    fn plain(e: f64, lap: f64, r: f64, s: TimeStep) -> (f64, f64) {
        use model::*;
        let e = e + s.alpha * (lap - 4.0 * e);
        let e = e - s.dt * (KK * e * (e - A) * (e - 1.0) + e * r);
        let r = r + s.dt * (EPSILON + M1 * r / (e + M2)) * (-r - KK * e * (e - B - 1.0));
        (e, r)
    }

    #[test]
    fn a_point_is_bitwise_the_model_with_zero_divided() {
        let s = TimeStep::for_grid(4096);
        let values = [0.0, -0.0, 1e-300, 5e-324, 0.02, 0.3, 0.9, 1.0, -0.05];
        for &e in &values {
            for &r in &values {
                for lap in [0.0, 0.4, 3.9] {
                    let (a, b) = (point(e, lap, r, s), plain(e, lap, r, s));
                    assert_eq!(
                        (a.0.to_bits(), a.1.to_bits()),
                        (b.0.to_bits(), b.1.to_bits())
                    );
                }
            }
        }
    }
}
