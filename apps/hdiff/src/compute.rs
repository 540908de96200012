//! The compute that the dcuda version and the baselines share: the row
//! split and one thread's part of each of the three stencils.
//!
//! A process's fields are rows of `nz` levels of `nx` points (`[y][z][x]`,
//! x fastest): row `j` of a field starts at `j·W`, `W = nz·nx`. Rows 1 to
//! `rows` are the process's, rows 0 and `rows + 1` halos. In x the two
//! outermost columns on each side are a fixed frame.

use dcuda_device::DeviceSlice;

mod mirror;
mod walk;
pub use mirror::Mirror;
use walk::each_point;
pub use walk::{Order, Walk};

/// Rows `start..end` of `n` rows that part `i` of `parts` owns: an even
/// split, sizes differing by at most one.
#[inline(always)]
pub fn split(n: u32, parts: u32, i: u32) -> (u32, u32) {
    let at = |i: u32| (i as u64 * n as u64 / parts as u64) as u32;
    (at(i), at(i + 1))
}

/// The shape of a process's fields.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Shape {
    /// Points in x.
    pub nx: u32,
    /// Levels.
    pub nz: u32,
    /// Rows of each field, halos included.
    pub rows: u32,
}

impl Shape {
    /// Elements of a row.
    #[inline(always)]
    pub fn width(&self) -> usize {
        self.nx as usize * self.nz as usize
    }

    /// Elements of a field.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.rows as usize * self.width()
    }

    /// Whether a field holds nothing.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// The intermediate fields of one process.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Work {
    /// The Laplacian.
    pub lap: DeviceSlice<f64>,
    /// The limited flux in x.
    pub flx: DeviceSlice<f64>,
    /// The limited flux in y.
    pub fly: DeviceSlice<f64>,
    /// The diffusion coefficient of every point (read only).
    pub coeff: DeviceSlice<f64>,
}

/// Checks once that rows `rows` and their neighbours lie within every
/// field: the stencils below index within that.
#[inline(always)]
fn check(shape: Shape, rows: (usize, usize), fields: &[DeviceSlice<f64>]) {
    assert!(
        shape.nx >= 5
            && rows.0 >= 1
            && rows.0 <= rows.1
            && rows.1 < shape.rows as usize
            && fields.iter().all(|f| f.len() >= shape.len()),
        "hdiff: rows outside the fields"
    );
    // The walk across the rows counts a row's points in 32 bits.
    assert!(
        shape.width() <= (u32::MAX / 2) as usize,
        "hdiff: a row of more than 2^31 points"
    );
}

// ANCHOR: stencils
/// Stage 1, the Laplacian of `inp` in rows `rows`, columns 1 to `nx − 2`.
///
/// # Safety
/// While it runs, nothing writes rows `rows.0 − 1 ..= rows.1` of `inp` or
/// touches this thread's points of `lap`; a row `walk.mirror` names has a
/// row's elements at its `to`, whose points nothing else touches.
#[inline(always)]
pub unsafe fn laplacian(
    shape: Shape,
    inp: DeviceSlice<f64>,
    lap: DeviceSlice<f64>,
    rows: (usize, usize),
    walk: Walk,
) {
    check(shape, rows, &[inp, lap]);
    let (w, i, l) = (shape.width(), inp.as_ptr(), lap.as_mut_ptr());
    let stencil = |c: usize, _| {
        let around = *i.add(c + 1) + *i.add(c - 1) + *i.add(c + w) + *i.add(c - w);
        4.0 * *i.add(c) - around
    };
    let ahead = |c: usize| [i.add(c - w), i.add(c), i.add(c + w)];
    each_point(
        shape,
        rows,
        (1, shape.nx - 1),
        walk,
        (stencil, ahead),
        (|c, _, v| *l.add(c) = v, |to: *mut f64, _, v| *to = v),
    );
}

/// A flux set to zero where it would run up the gradient of `inp` (the
/// flux limiter).
#[inline(always)]
fn limit(flux: f64, gradient: f64) -> f64 {
    if flux * gradient > 0.0 {
        0.0
    } else {
        flux
    }
}

/// Stage 2, the limited fluxes in x (columns 1 to `nx − 3`) and y
/// (columns 2 to `nx − 3`) in rows `rows`; reads `lap` of rows `rows` and
/// the row after.
///
/// # Safety
/// While it runs, nothing writes rows `rows.0 ..= rows.1` of `inp` and
/// `lap` or touches this thread's points of `flx` and `fly`; a row
/// `walk.mirror` names (its y fluxes) has a row's elements at its `to`,
/// whose points nothing else touches.
#[inline(always)]
pub unsafe fn fluxes(
    shape: Shape,
    inp: DeviceSlice<f64>,
    work: Work,
    rows: (usize, usize),
    walk: Walk,
) {
    check(shape, rows, &[inp, work.lap, work.flx, work.fly]);
    let w = shape.width();
    let (i, l) = (inp.as_ptr(), work.lap.as_ptr());
    let (fx, fy) = (work.flx.as_mut_ptr(), work.fly.as_mut_ptr());
    let stencil = |c: usize, x: u32| {
        let x_flux = limit(*l.add(c + 1) - *l.add(c), *i.add(c + 1) - *i.add(c));
        let y_flux = if x >= 2 {
            limit(*l.add(c + w) - *l.add(c), *i.add(c + w) - *i.add(c))
        } else {
            0.0
        };
        (x_flux, y_flux)
    };
    let ahead = |c: usize| [l.add(c), l.add(c + w), i.add(c), i.add(c + w)];
    each_point(
        shape,
        rows,
        (1, shape.nx - 2),
        walk,
        (stencil, ahead),
        (
            |c, x, (x_flux, y_flux)| {
                *fx.add(c) = x_flux;
                if x >= 2 {
                    *fy.add(c) = y_flux;
                }
            },
            // Only the y flux crosses to a neighbour.
            |to: *mut f64, x, (_, y_flux)| {
                if x >= 2 {
                    *to = y_flux
                }
            },
        ),
    );
}

/// Stage 3, the output in rows `rows`: `inp` minus the coefficient times
/// the divergence of the fluxes inside the frame, `inp` on it. Reads
/// `fly` of rows `rows` and the row before.
///
/// # Safety
/// While it runs, nothing writes rows `rows.0 − 1 .. rows.1` of `fly`,
/// rows `rows` of `inp` and `flx`, or touches this thread's points of
/// `out`; a row `walk.mirror` names has a row's elements at its `to`,
/// whose points nothing else touches.
#[inline(always)]
pub unsafe fn output(
    shape: Shape,
    inp: DeviceSlice<f64>,
    work: Work,
    out: DeviceSlice<f64>,
    rows: (usize, usize),
    walk: Walk,
) {
    check(shape, rows, &[inp, work.flx, work.fly, work.coeff, out]);
    let w = shape.width();
    let (i, k, o) = (inp.as_ptr(), work.coeff.as_ptr(), out.as_mut_ptr());
    let (fx, fy) = (work.flx.as_ptr(), work.fly.as_ptr());
    let stencil = |c: usize, x: u32| {
        if x >= 2 && x < shape.nx - 2 {
            let divergence = (*fx.add(c) - *fx.add(c - 1)) + (*fy.add(c) - *fy.add(c - w));
            *i.add(c) - *k.add(c) * divergence
        } else {
            *i.add(c)
        }
    };
    let ahead = |c: usize| [fx.add(c), fy.add(c), fy.add(c - w), i.add(c), k.add(c)];
    each_point(
        shape,
        rows,
        (0, shape.nx),
        walk,
        (stencil, ahead),
        (|c, _, v| *o.add(c) = v, |to: *mut f64, _, v| *to = v),
    );
}
// ANCHOR_END: stencils
