//! The phases that move particles: the kick and drift, the moved ones
//! sorted out and taken in, the halo sent out.

use super::*;
use dcuda_device::arch::{self, Ordering, Scope};

/// Adds one to counter `c` of a slab and returns its old value.
#[inline(always)]
unsafe fn take_slot(counters: DeviceSlice<u32>, c: usize) -> u32 {
    arch::fetch_add(
        counters.as_mut_ptr().add(c),
        1,
        Ordering::Relaxed,
        Scope::Block,
    )
}

/// Copies record `from` of `src` to record `to` of `dst`, x replaced.
#[inline(always)]
unsafe fn copy_record(src: *const f64, dst: *mut f64, x: f64) {
    *dst = *src;
    *dst.add(1) = x;
    for k in 2..REC {
        *dst.add(k) = *src.add(k);
    }
}

/// A record into message region `r` of the outbox, unless it is full.
#[inline(always)]
unsafe fn send(d: &Domain, s: &Slab, r: usize, rec: *const f64, x: f64) {
    let slot = take_slot(s.counters, 1 + r);
    if slot < d.cap_x {
        let msg = region(d, s.outbox, r).as_mut_ptr();
        copy_record(rec, msg.add(1 + slot as usize * REC), x);
    }
}

/// Velocity Verlet's kick by `half` of the force and, with `drift`, the
/// drift by a step: own particles `0..n` of `parts`. y wraps around; x is
/// left as it is for [`sort_out`].
///
/// # Safety
/// The slab's arrays are live, `n <= cap`, and no other thread touches
/// this thread's particles.
#[inline(always)]
pub unsafe fn kick(
    d: &Domain,
    s: &Slab,
    parts: usize,
    n: u32,
    (half, drift): (f64, bool),
    (t, threads): (u32, u32),
) {
    let (p, f) = (s.parts[parts].as_mut_ptr(), s.force.as_ptr());
    let mut i = t;
    while i < n {
        let (r, fi) = (p.add(i as usize * REC), f.add(2 * i as usize));
        let (vx, vy) = (*r.add(3) + half * *fi, *r.add(4) + half * *fi.add(1));
        *r.add(3) = vx;
        *r.add(4) = vy;
        if drift {
            *r.add(1) += d.dt * vx;
            *r.add(2) = d.wrap_y(*r.add(2) + d.dt * vy);
        }
        i += threads;
    }
}

/// Sorts the drifted own particles `0..n` of `parts[from]`: those still in
/// the slab to `parts[1 - from]` (counted by [`KEPT`]), those that left it
/// to the outbox's [`MOVED_LEFT`] or [`MOVED_RIGHT`] message with x
/// wrapped into the box; one that moved past a neighbour's slab counts as
/// [`STRAY`].
///
/// # Safety
/// As [`kick`], the counters zero, and the slab's particles `0..n` are
/// written by no one now.
#[inline(always)]
pub unsafe fn sort_out(d: &Domain, s: &Slab, from: usize, n: u32, (t, threads): (u32, u32)) {
    let (src, dst) = (s.parts[from].as_ptr(), s.parts[1 - from].as_mut_ptr());
    let (x0, x1) = s.x;
    let width = x1 - x0;
    let mut i = t;
    while i < n {
        let r = src.add(i as usize * REC);
        let x = *r.add(1);
        if x < x0 - width || x >= x1 + width {
            take_slot(s.counters, STRAY);
        } else if x < x0 {
            send(d, s, MOVED_LEFT, r, d.wrap_x(x));
        } else if x >= x1 {
            send(d, s, MOVED_RIGHT, r, d.wrap_x(x));
        } else {
            let slot = take_slot(s.counters, KEPT);
            copy_record(r, dst.add(slot as usize * REC), x);
        }
        i += threads;
    }
}

/// Appends the particles of messages `from_left` and `from_right` to
/// `parts[to]` after its `kept` ones.
///
/// # Safety
/// Live arrays, `kept` plus both counts at most `cap`, the messages
/// complete and written by no one now.
#[inline(always)]
pub unsafe fn take_in(
    s: &Slab,
    to: usize,
    kept: u32,
    (from_left, from_right): (DeviceSlice<f64>, DeviceSlice<f64>),
    (t, threads): (u32, u32),
) {
    let dst = s.parts[to].as_mut_ptr().add(kept as usize * REC);
    let left = count_of(from_left);
    let total = left + count_of(from_right);
    let mut i = t;
    while i < total {
        let src = if i < left {
            from_left.as_ptr().add(1 + i as usize * REC)
        } else {
            from_right.as_ptr().add(1 + (i - left) as usize * REC)
        };
        copy_record(src, dst.add(i as usize * REC), *src.add(1));
        i += threads;
    }
}

/// The halo: own particles `0..n` of `parts[at]` within `rc` of the
/// slab's left or right border into the outbox's [`HALO_LEFT`] or
/// [`HALO_RIGHT`] message, x shifted by the width where the neighbour lies
/// across the box's edge. Also empties both cell lists.
///
/// # Safety
/// As [`kick`], the halo counters zero.
#[inline(always)]
pub unsafe fn halo_out(d: &Domain, s: &Slab, at: usize, n: u32, (t, threads): (u32, u32)) {
    let src = s.parts[at].as_ptr();
    let (x0, x1) = s.x;
    let last = s.index + 1 == d.slabs;
    let mut i = t;
    while i < n {
        let r = src.add(i as usize * REC);
        let x = *r.add(1);
        if x < x0 + d.cutoff {
            let shift = if s.index == 0 { d.width } else { 0.0 };
            send(d, s, HALO_LEFT, r, x + shift);
        }
        if x >= x1 - d.cutoff {
            let shift = if last { d.width } else { 0.0 };
            send(d, s, HALO_RIGHT, r, x - shift);
        }
        i += threads;
    }
    let (own, halo) = (s.own_heads.as_mut_ptr(), s.halo_heads.as_mut_ptr());
    let mut c = t as usize;
    while c < d.cells() {
        *own.add(c) = NONE;
        *halo.add(c) = NONE;
        c += threads as usize;
    }
}
