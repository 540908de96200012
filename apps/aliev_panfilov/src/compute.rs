//! The compute that the dcuda version and the baselines share: the
//! model's step of a point, and the packing of a ghost column (how the
//! threads walk a rectangle's points is `walk.rs`'s).

use crate::layout::Fields;
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
