//! The cell lists and the forces: own particles against own, then
//! against the halo.

use super::*;
use dcuda_device::arch::{self, Ordering, Scope};

/// Links each of `count` particles (records at `recs`, every `REC`) into
/// the cell list `heads`, as entries `first..first + count`.
#[inline(always)]
unsafe fn link(
    d: &Domain,
    s: &Slab,
    heads: DeviceSlice<u32>,
    (recs, count, first): (*const f64, u32, u32),
    (t, threads): (u32, u32),
) {
    let (heads, next) = (heads.as_mut_ptr(), s.next.as_mut_ptr());
    let mut i = t;
    while i < count {
        let r = recs.add(i as usize * REC);
        let (cx, cy) = d.cell(s.x, *r.add(1), *r.add(2));
        let c = cx as usize * d.rows as usize + cy as usize;
        let e = first + i;
        let old = arch::swap(heads.add(c), e, Ordering::Relaxed, Scope::Block);
        *next.add(e as usize) = old;
        i += threads;
    }
}

/// Links own particles `0..n` of `parts[at]` into the own cell list.
///
/// # Safety
/// The own list is empty and the particles are written by no one now.
#[inline(always)]
pub unsafe fn link_own(d: &Domain, s: &Slab, at: usize, n: u32, thread: (u32, u32)) {
    link(d, s, s.own_heads, (s.parts[at].as_ptr(), n, 0), thread);
}

/// Links the halo messages into the halo's cell list.
///
/// # Safety
/// The halo list is empty; the messages complete, written by no one now.
#[inline(always)]
pub unsafe fn link_halo(
    d: &Domain,
    s: &Slab,
    (from_left, from_right): (DeviceSlice<f64>, DeviceSlice<f64>),
    thread: (u32, u32),
) {
    let (cap, cap_x) = (d.cap, d.cap_x);
    let left = (from_left.as_ptr().add(1), count_of(from_left), cap);
    link(d, s, s.halo_heads, left, thread);
    let right = (
        from_right.as_ptr().add(1),
        count_of(from_right),
        cap + cap_x,
    );
    link(d, s, s.halo_heads, right, thread);
}

// ANCHOR: pair
/// The soft repulsion `U(r) = (1 − r/rc)²` for `r < rc`: the force on a
/// particle at offset `(dx, dy)` from another, and half the pair's energy.
#[inline(always)]
pub fn pair(rc: f64, dx: f64, dy: f64) -> (f64, f64, f64) {
    let r2 = dx * dx + dy * dy;
    if r2 >= rc * rc || r2 == 0.0 {
        return (0.0, 0.0, 0.0);
    }
    let r = arch::sqrt(r2);
    let q = 1.0 - r / rc;
    let f = 2.0 * q / (rc * r);
    (f * dx, f * dy, 0.5 * q * q)
}
// ANCHOR_END: pair

/// Where entry `e` of a cell list lies: an own particle below `cap`, then
/// the halo from the left and from the right.
#[inline(always)]
unsafe fn entry(
    d: &Domain,
    own: *const f64,
    halo: (DeviceSlice<f64>, DeviceSlice<f64>),
    e: u32,
) -> *const f64 {
    if e < d.cap {
        own.add(e as usize * REC)
    } else if e < d.cap + d.cap_x {
        halo.0.as_ptr().add(1 + (e - d.cap) as usize * REC)
    } else {
        halo.1
            .as_ptr()
            .add(1 + (e - d.cap - d.cap_x) as usize * REC)
    }
}

/// The force on the particle at `(x, y)`, entry `me` of the lists, from
/// the entries of the cells around it in `heads`, and half its energy.
#[inline(always)]
unsafe fn gather(
    d: &Domain,
    s: &Slab,
    heads: DeviceSlice<u32>,
    own: *const f64,
    halo: (DeviceSlice<f64>, DeviceSlice<f64>),
    (x, y, me): (f64, f64, u32),
) -> (f64, f64, f64) {
    let (heads, next) = (heads.as_ptr(), s.next.as_ptr());
    let (cx, cy) = d.cell(s.x, x, y);
    let (rows, half_height) = (d.rows as i32, 0.5 * d.height);
    let (mut fx, mut fy, mut e) = (0.0, 0.0, 0.0);
    for ix in (cx - 1).max(0)..(cx + 2).min(d.cols as i32) {
        for dy in -1..2 {
            let iy = (cy + dy + rows) % rows;
            let mut j = *heads.add((ix * rows + iy) as usize);
            while j != NONE {
                if j != me {
                    let r = entry(d, own, halo, j);
                    let mut oy = y - *r.add(2);
                    if oy > half_height {
                        oy -= d.height;
                    } else if oy < -half_height {
                        oy += d.height;
                    }
                    let (px, py, pe) = pair(d.cutoff, x - *r.add(1), oy);
                    fx += px;
                    fy += py;
                    e += pe;
                }
                j = *next.add(j as usize);
            }
        }
    }
    (fx, fy, e)
}

/// The forces between own particles `0..n` of `parts[at]` (the own cell
/// list), stored as each particle's force; returns this thread's part of
/// their energy.
///
/// # Safety
/// The own list is complete; nothing writes the particles or the list.
#[inline(always)]
pub unsafe fn own_forces(d: &Domain, s: &Slab, at: usize, n: u32, (t, threads): (u32, u32)) -> f64 {
    let (own, f) = (s.parts[at].as_ptr(), s.force.as_mut_ptr());
    let halo = (s.inbox, s.inbox); // not reached: the own list holds own entries only
    let mut energy = 0.0;
    let mut i = t;
    while i < n {
        let r = own.add(i as usize * REC);
        let (fx, fy, e) = gather(d, s, s.own_heads, own, halo, (*r.add(1), *r.add(2), i));
        *f.add(2 * i as usize) = fx;
        *f.add(2 * i as usize + 1) = fy;
        energy += e;
        i += threads;
    }
    energy
}

/// Adds the halo's forces to those of [`own_forces`] for the particles
/// within `rc` of a border, then kicks every particle by `half` of its
/// force; returns this thread's part of the halo energy and the kinetic
/// energy after the kick.
///
/// # Safety
/// As [`own_forces`], for the halo list and messages too.
#[inline(always)]
pub unsafe fn halo_forces(
    d: &Domain,
    s: &Slab,
    at: usize,
    n: u32,
    halo: (DeviceSlice<f64>, DeviceSlice<f64>),
    half: f64,
    (t, threads): (u32, u32),
) -> f64 {
    let (own, f) = (s.parts[at].as_mut_ptr(), s.force.as_mut_ptr());
    let (x0, x1) = s.x;
    let mut energy = 0.0;
    let mut i = t;
    while i < n {
        let (r, fi) = (own.add(i as usize * REC), f.add(2 * i as usize));
        let (x, y) = (*r.add(1), *r.add(2));
        if x < x0 + d.cutoff || x >= x1 - d.cutoff {
            let (fx, fy, e) = gather(d, s, s.halo_heads, own, halo, (x, y, NONE));
            *fi += fx;
            *fi.add(1) += fy;
            energy += e;
        }
        let (vx, vy) = (*r.add(3) + half * *fi, *r.add(4) + half * *fi.add(1));
        *r.add(3) = vx;
        *r.add(4) = vy;
        energy += 0.5 * (vx * vx + vy * vy);
        i += threads;
    }
    energy
}

/// [`own_forces`] out of line, on its own copies of the domain and slab:
/// what the rank kernel calls, so that the force loop's registers are its
/// own and not shared with the runtime state the rank keeps live around
/// it. Inlined into the rank kernel, the forces took 16–25% longer on an
/// H200 once the runtime's code grew (2²⁰ particles, 64 registers); the
/// baseline's kernels, which hold no runtime, inline it.
///
/// # Safety
/// As [`own_forces`].
#[inline(never)]
pub unsafe fn own_forces_apart(d: &Domain, s: &Slab, at: usize, n: u32, t: (u32, u32)) -> f64 {
    let (d, s) = (*d, *s);
    own_forces(&d, &s, at, n, t)
}

/// [`halo_forces`] out of line, as [`own_forces_apart`].
///
/// # Safety
/// As [`halo_forces`].
#[inline(never)]
pub unsafe fn halo_forces_apart(
    d: &Domain,
    s: &Slab,
    (at, n): (usize, u32),
    halo: (DeviceSlice<f64>, DeviceSlice<f64>),
    half: f64,
    t: (u32, u32),
) -> f64 {
    let (d, s) = (*d, *s);
    halo_forces(&d, &s, at, n, halo, half, t)
}
