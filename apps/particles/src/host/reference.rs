//! The CPU reference (the same physics over the whole box, one cell list)
//! and the checks of a run's result.

use super::setup::{slab_of, Particle};
use crate::compute::{pair, Domain};
use app_support::{Job, Res};
use std::vec::Vec;
use std::{format, vec};

/// Energy may drift by this much of the starting energy at any check:
/// velocity Verlet's error at the default step is under 1e-5; a halo
/// missing on one side of each slab made 9e-4 in 20 steps.
pub const DRIFT: f64 = 1e-4;
/// A final coordinate or velocity may differ from the reference's by this
/// much (the sums of forces run in another order).
pub const STATE_TOLERANCE: f64 = 1e-6;
/// Each checked energy may differ from the reference's by this much of
/// the starting energy.
pub const ENERGY_TOLERANCE: f64 = 1e-9;

/// Whether `|v| <= tolerance`; false for NaN.
fn within(v: f64, tolerance: f64) -> bool {
    v.abs() <= tolerance
}

/// The forces on every particle and the total potential energy.
fn forces(d: &Domain, ps: &[Particle], f: &mut [[f64; 2]]) -> f64 {
    let count = |side: f64| (side / (d.cutoff * (1.0 + 1e-9))) as usize;
    let (cells_x, cells_y) = (count(d.width), count(d.height));
    let at = |v: f64, side: f64, cells: usize| ((v * cells as f64 / side) as usize).min(cells - 1);
    let cell = |p: &Particle| (at(p[1], d.width, cells_x), at(p[2], d.height, cells_y));
    let mut list = vec![Vec::new(); cells_x * cells_y];
    for (i, p) in ps.iter().enumerate() {
        let (cx, cy) = cell(p);
        list[cx * cells_y + cy].push(i);
    }
    let image = |v: f64, side: f64| {
        if v > 0.5 * side {
            v - side
        } else if v < -0.5 * side {
            v + side
        } else {
            v
        }
    };
    let mut energy = 0.0;
    for (i, p) in ps.iter().enumerate() {
        let (cx, cy) = cell(p);
        let (mut fx, mut fy) = (0.0, 0.0);
        for ix in [cells_x - 1, 0, 1] {
            for iy in [cells_y - 1, 0, 1] {
                for &j in &list[(cx + ix) % cells_x * cells_y + (cy + iy) % cells_y] {
                    if j != i {
                        let q = &ps[j];
                        let (ox, oy) = (image(p[1] - q[1], d.width), image(p[2] - q[2], d.height));
                        let (px, py, e) = pair(d.cutoff, ox, oy);
                        fx += px;
                        fy += py;
                        energy += e;
                    }
                }
            }
        }
        f[i] = [fx, fy];
    }
    energy
}

/// Runs the reference from `start` for `steps` steps, checking energy at
/// step 0, every `every` and the last; returns the energies and the
/// particles at the end.
pub fn reference(
    d: &Domain,
    start: &[Particle],
    steps: u32,
    every: u32,
) -> (Vec<f64>, Vec<Particle>) {
    let mut ps = start.to_vec();
    let mut f = vec![[0.0; 2]; ps.len()];
    let kinetic = |ps: &[Particle]| {
        ps.iter()
            .map(|p| 0.5 * (p[3] * p[3] + p[4] * p[4]))
            .sum::<f64>()
    };
    let mut energies = vec![forces(d, &ps, &mut f) + kinetic(&ps)];
    let half = 0.5 * d.dt;
    for step in 1..=steps {
        for (p, f) in ps.iter_mut().zip(&f) {
            p[3] += half * f[0];
            p[4] += half * f[1];
            p[1] = d.wrap_x(p[1] + d.dt * p[3]);
            p[2] = d.wrap_y(p[2] + d.dt * p[4]);
        }
        let potential = forces(d, &ps, &mut f);
        for (p, f) in ps.iter_mut().zip(&f) {
            p[3] += half * f[0];
            p[4] += half * f[1];
        }
        if step % every == 0 || step == steps {
            energies.push(potential + kinetic(&ps));
        }
    }
    (energies, ps)
}

/// What a run left: this process's particles (of slabs `slabs`), and, on
/// process 0, the energies and particle counts at every check.
pub struct Result<'a> {
    /// This process's particles at the end.
    pub mine: &'a [Particle],
    /// Its slabs.
    pub slabs: (u32, u32),
    /// Process 0: the energy at every check (empty elsewhere).
    pub energies: &'a [f64],
    /// Process 0: the particles at every check (empty elsewhere).
    pub totals: &'a [u64],
}

/// Checks a run: the particle count at every check and at the end, every
/// id exactly once, each particle inside its slab, energy within
/// [`DRIFT`] of the start; and with `reference` (the CPU's energies and
/// particles) every energy and every particle's final state against it.
/// Returns the largest energy drift seen (process 0; 0 elsewhere).
pub fn check(
    d: &Domain,
    n: u32,
    job: Job,
    r: &Result,
    reference: Option<&(Vec<f64>, Vec<Particle>)>,
) -> Res<f64> {
    let mut ids: Vec<u64> = r.mine.iter().map(|p| p[0] as u64).collect();
    ids.sort_unstable();
    if let Some(w) = ids.windows(2).find(|w| w[0] == w[1]) {
        return Err(format!("process {}: particle {} is there twice", job.me, w[0]).into());
    }
    if let Some(&id) = ids.iter().find(|&&id| id >= n as u64) {
        return Err(format!("process {}: particle id {id} is not one of the {n}", job.me).into());
    }
    for p in r.mine {
        let s = slab_of(d, p[1]);
        if !(r.slabs.0..r.slabs.1).contains(&s) || !(0.0..d.height).contains(&p[2]) {
            return Err(format!(
                "process {}: particle {} at ({}, {}) lies outside its slabs {:?}",
                job.me, p[0], p[1], p[2], r.slabs
            )
            .into());
        }
    }
    let total = job.allreduce(ids.len() as f64, false)?;
    let id_sum = job.allreduce(ids.iter().sum::<u64>() as f64, false)?;
    let want = n as f64 * (n as f64 - 1.0) / 2.0;
    if total != n as f64 || id_sum != want {
        return Err(format!("the run ended with {total} particles (ids summing to {id_sum}), not {n} (summing to {want})").into());
    }
    if let Some(k) = r.totals.iter().position(|&t| t != n as u64) {
        return Err(format!(
            "energy check {k} counted {} particles, not {n}",
            r.totals[k]
        )
        .into());
    }
    let e0 = r.energies.first().copied().unwrap_or(0.0);
    let mut drift: f64 = 0.0;
    for (k, e) in r.energies.iter().enumerate() {
        let rel = ((e - e0) / e0).abs();
        if !within(rel, DRIFT) {
            return Err(format!("energy check {k}: {e} drifted {rel:.3e} of the start's {e0}, over {DRIFT:e}: pass a smaller --dt").into());
        }
        drift = drift.max(rel);
    }
    if let Some((energies, end)) = reference {
        if job.me == 0 {
            if energies.len() != r.energies.len() {
                return Err(format!(
                    "{} energy checks, the reference made {}",
                    r.energies.len(),
                    energies.len()
                )
                .into());
            }
            for (k, (e, want)) in r.energies.iter().zip(energies).enumerate() {
                if !within(e - want, ENERGY_TOLERANCE * want.abs()) {
                    return Err(format!("energy check {k}: {e}, the reference {want}").into());
                }
            }
        }
        let image = |v: f64, side: f64| v - side * (v / side).round();
        for p in r.mine {
            let q = &end[p[0] as usize];
            let off = [
                image(p[1] - q[1], d.width),
                image(p[2] - q[2], d.height),
                p[3] - q[3],
                p[4] - q[4],
            ];
            if off.iter().any(|&v| !within(v, STATE_TOLERANCE)) {
                return Err(format!(
                    "particle {} ends at {:?}, the reference at {:?}",
                    p[0],
                    &p[1..],
                    &q[1..]
                )
                .into());
            }
        }
    }
    Ok(drift)
}
