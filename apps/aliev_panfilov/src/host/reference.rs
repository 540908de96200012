//! The CPU reference: the whole grid's initial state, its steps in the
//! kernels' order of operations, and the bitwise check of a process's part.

use super::Options;
use crate::compute::point;
use crate::layout::{Fields, Layout};
use std::format;
use std::string::String;
use std::vec::Vec;

/// The whole grid with its ghost ring, `(ny + 2) × (nx + 2)`.
pub(super) struct Grid {
    pub(super) nx: usize,
    pub(super) e: Vec<f64>,
    pub(super) r: Vec<f64>,
}

impl Grid {
    /// The classic initial state: excited on the right half, refractory
    /// on the bottom half; a spiral wave forms where they meet.
    pub(super) fn initial(nx: u32, ny: u32) -> Grid {
        let (nx, ny) = (nx as usize, ny as usize);
        let p = nx + 2;
        let mut g = Grid {
            nx,
            e: std::vec![0.0; (ny + 2) * p],
            r: std::vec![0.0; (ny + 2) * p],
        };
        for j in 1..=ny {
            for i in 1..=nx {
                g.e[j * p + i] = if i > nx / 2 { 1.0 } else { 0.0 };
                g.r[j * p + i] = if j > ny / 2 { 1.0 } else { 0.0 };
            }
        }
        mirror(&mut g.e, nx, ny);
        g
    }

    /// The process `p`'s part of the state, ghost ring included.
    pub(super) fn part(&self, layout: &Layout, p: (u32, u32)) -> (Vec<f64>, Vec<f64>) {
        let ((c0, _), (r0, _)) = layout.part(p);
        let f = layout.fields(p);
        let (pg, pf) = (self.nx + 2, f.pitch());
        let cut = |v: &[f64]| {
            let mut out = Vec::with_capacity(f.len());
            for j in 0..f.height as usize + 2 {
                let from = (r0 as usize + j) * pg + c0 as usize;
                out.extend_from_slice(&v[from..from + pf]);
            }
            out
        };
        (cut(&self.e), cut(&self.r))
    }
}

/// The ghost points of `e` set to the points two in (no flux).
fn mirror(e: &mut [f64], nx: usize, ny: usize) {
    let p = nx + 2;
    for j in 1..=ny {
        e[j * p] = e[j * p + 2];
        e[j * p + nx + 1] = e[j * p + nx - 1];
    }
    for i in 1..=nx {
        e[i] = e[2 * p + i];
        e[(ny + 1) * p + i] = e[(ny - 1) * p + i];
    }
}

/// Process `p`'s initial excitation and recovery, ghost ring included.
pub fn initial(layout: &Layout, p: (u32, u32)) -> (Vec<f64>, Vec<f64>) {
    Grid::initial(layout.nx, layout.ny).part(layout, p)
}

/// The CPU reference: the whole grid's excitation and recovery (ghost
/// ring included) after `iters` steps, in the kernels' order of
/// operations.
pub(super) fn reference(o: &Options) -> Grid {
    let mut g = Grid::initial(o.nx, o.ny);
    let (nx, ny, p) = (o.nx as usize, o.ny as usize, o.nx as usize + 2);
    let s = o.time_step();
    let mut new = g.e.clone();
    for _ in 0..o.iters {
        for j in 1..=ny {
            for i in 1..=nx {
                let c = j * p + i;
                let old = &g.e;
                let lap = old[c + 1] + old[c - 1] + old[c + p] + old[c - p];
                let (e, r) = point(old[c], lap, g.r[c], s);
                new[c] = e;
                g.r[c] = r;
            }
        }
        mirror(&mut new, nx, ny);
        std::mem::swap(&mut g.e, &mut new);
    }
    g
}

/// Compares the interior points of process `p`'s `e` and `r` (each laid
/// out with its ghost ring) with the reference, bitwise (the same
/// operations in the same order).
pub fn check(
    o: &Options,
    layout: &Layout,
    p: (u32, u32),
    e: &[f64],
    r: &[f64],
) -> Result<(), String> {
    let (want_e, want_r) = reference(o).part(layout, p);
    let f: Fields = layout.fields(p);
    let ((c0, _), (r0, _)) = layout.part(p);
    for (name, got, want) in [("e", e, &want_e), ("r", r, &want_r)] {
        for j in 1..=f.height as usize {
            for i in 1..=f.width as usize {
                let c = j * f.pitch() + i;
                if got[c].to_bits() != want[c].to_bits() {
                    return Err(format!(
                        "{name} at x {}, y {}: {} but the CPU reference has {}",
                        c0 as usize + i - 1,
                        r0 as usize + j - 1,
                        got[c],
                        want[c]
                    ));
                }
            }
        }
    }
    Ok(())
}
