//! The compute both versions share: the box and its slabs, the message
//! layout, and one thread's part of each phase of a step. Every function
//! strides over its items by `(thread, threads)`; the caller separates the
//! phases with barriers.
//!
//! A particle is a record of [`REC`] `f64`s: id, x, y, vx, vy. A message
//! (a region of an inbox or outbox) is a count followed by up to `cap_x`
//! records.

use dcuda_device::arch::{self, Ordering, Scope};
use dcuda_device::DeviceSlice;

/// `f64`s a particle record takes: id, x, y, vx, vy.
pub const REC: usize = 5;
/// A slab's message regions, in its inbox (what arrived) and outbox (what
/// it sends): the halo and the moved particles, to or from either side.
pub const HALO_LEFT: usize = 0;
/// See [`HALO_LEFT`].
pub const HALO_RIGHT: usize = 1;
/// See [`HALO_LEFT`].
pub const MOVED_LEFT: usize = 2;
/// See [`HALO_LEFT`].
pub const MOVED_RIGHT: usize = 3;
/// Regions of an inbox or outbox.
pub const REGIONS: usize = 4;
/// A slab's counters: particles kept, one per outbox region (counted at
/// `1 + region`), and particles that moved farther than a neighbour.
pub const KEPT: usize = 0;
/// See [`KEPT`].
pub const STRAY: usize = 1 + REGIONS;
/// Counters a slab has.
pub const COUNTERS: usize = STRAY + 1;
/// An empty cell list entry.
const NONE: u32 = u32::MAX;

/// The periodic box, its slabs and what each slab holds room for.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Domain {
    /// The box's side.
    pub side: f64,
    /// The interaction's cutoff `rc` (also the halo's width).
    pub cutoff: f64,
    /// The time step.
    pub dt: f64,
    /// Slabs of the whole job (ranks or blocks).
    pub slabs: u32,
    /// Particles a slab holds room for.
    pub cap: u32,
    /// Particles a message holds room for.
    pub cap_x: u32,
    /// A slab's cell grid: columns over the slab and its halos (each at
    /// least `rc` wide) and rows over the side.
    pub cols: u32,
    /// See `cols`.
    pub rows: u32,
}

impl Domain {
    /// Slab `s`'s range of x: `[x0, x1)`.
    #[inline(always)]
    pub fn slab(&self, s: u32) -> (f64, f64) {
        let at = |s: u32| {
            if s >= self.slabs {
                self.side
            } else {
                self.side * s as f64 / self.slabs as f64
            }
        };
        (at(s), at(s + 1))
    }

    /// Elements of one message region: the count and `cap_x` records.
    #[inline(always)]
    pub fn region_len(&self) -> usize {
        1 + self.cap_x as usize * REC
    }

    /// Cells of one cell list.
    #[inline(always)]
    pub fn cells(&self) -> usize {
        self.cols as usize * self.rows as usize
    }

    /// The cell of a point in the grid of the slab `[x0, x1)`.
    #[inline(always)]
    fn cell(&self, (x0, x1): (f64, f64), x: f64, y: f64) -> (i32, i32) {
        let width = (x1 - x0 + 2.0 * self.cutoff) / self.cols as f64;
        let cx = ((x - (x0 - self.cutoff)) / width) as i32;
        let cy = (y * self.rows as f64 / self.side) as i32;
        (
            cx.clamp(0, self.cols as i32 - 1),
            cy.clamp(0, self.rows as i32 - 1),
        )
    }

    /// `v` wrapped into `[0, side)`.
    #[inline(always)]
    pub fn wrap(&self, v: f64) -> f64 {
        let mut v = v;
        if v < 0.0 {
            v += self.side;
        }
        if v >= self.side {
            v -= self.side;
        }
        v
    }
}

/// The slabs of one process: every array holds a part per slab, in the
/// order of the process's ranks or blocks.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Slabs {
    /// Own particles, `cap` records a slab, in two arrays: step `k` moves
    /// the kept and arriving particles from `parts[k % 2]` to the other.
    pub parts: [DeviceSlice<f64>; 2],
    /// Force on each own particle, two `f64`s, `cap` a slab.
    pub force: DeviceSlice<f64>,
    /// What arrived from the neighbours: [`REGIONS`] regions a slab. The
    /// dcuda version's window.
    pub inbox: DeviceSlice<f64>,
    /// What the slab sends: [`REGIONS`] regions a slab.
    pub outbox: DeviceSlice<f64>,
    /// Cell list heads: the own particles' and the halo's, `cells()` each.
    pub heads: DeviceSlice<u32>,
    /// Cell list links: `cap` own particles, then `cap_x` of each halo.
    pub next: DeviceSlice<u32>,
    /// [`COUNTERS`] a slab.
    pub counters: DeviceSlice<u32>,
    /// Own particles of each slab, at the start and end of a run.
    pub counts: DeviceSlice<u32>,
}

/// One slab's parts of [`Slabs`].
#[derive(Clone, Copy)]
pub struct Slab {
    /// Global index.
    pub index: u32,
    /// Its range of x.
    pub x: (f64, f64),
    /// See [`Slabs::parts`].
    pub parts: [DeviceSlice<f64>; 2],
    /// See [`Slabs::force`].
    pub force: DeviceSlice<f64>,
    /// See [`Slabs::inbox`].
    pub inbox: DeviceSlice<f64>,
    /// See [`Slabs::outbox`].
    pub outbox: DeviceSlice<f64>,
    /// The own particles' cell list heads.
    pub own_heads: DeviceSlice<u32>,
    /// The halo's cell list heads.
    pub halo_heads: DeviceSlice<u32>,
    /// See [`Slabs::next`].
    pub next: DeviceSlice<u32>,
    /// See [`Slabs::counters`].
    pub counters: DeviceSlice<u32>,
}

impl Slabs {
    /// Slab `local` of the process, global slab `index`.
    #[inline(always)]
    pub fn slab(&self, d: &Domain, local: u32, index: u32) -> Slab {
        let (l, cap, cells) = (local as usize, d.cap as usize, d.cells());
        let heads = self.heads.chunk(l, 2 * cells);
        Slab {
            index,
            x: d.slab(index),
            parts: [
                self.parts[0].chunk(l, cap * REC),
                self.parts[1].chunk(l, cap * REC),
            ],
            force: self.force.chunk(l, 2 * cap),
            inbox: self.inbox.chunk(l, REGIONS * d.region_len()),
            outbox: self.outbox.chunk(l, REGIONS * d.region_len()),
            own_heads: heads.slice(0..cells),
            halo_heads: heads.slice(cells..2 * cells),
            next: self.next.chunk(l, cap + 2 * d.cap_x as usize),
            counters: self.counters.chunk(l, COUNTERS),
        }
    }
}

/// Region `r` of a slab's inbox or outbox.
#[inline(always)]
pub fn region(d: &Domain, boxed: DeviceSlice<f64>, r: usize) -> DeviceSlice<f64> {
    boxed.chunk(r, d.region_len())
}

/// The count of a message: its first element.
///
/// # Safety
/// `msg` is live and nobody writes its count now.
#[inline(always)]
pub unsafe fn count_of(msg: DeviceSlice<f64>) -> u32 {
    *msg.as_ptr() as u32
}

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
            *r.add(2) = d.wrap(*r.add(2) + d.dt * vy);
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
            send(d, s, MOVED_LEFT, r, d.wrap(x));
        } else if x >= x1 {
            send(d, s, MOVED_RIGHT, r, d.wrap(x));
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
/// [`HALO_RIGHT`] message, x shifted by the side where the neighbour lies
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
            let shift = if s.index == 0 { d.side } else { 0.0 };
            send(d, s, HALO_LEFT, r, x + shift);
        }
        if x >= x1 - d.cutoff {
            let shift = if last { d.side } else { 0.0 };
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
    let (rows, half_side) = (d.rows as i32, 0.5 * d.side);
    let (mut fx, mut fy, mut e) = (0.0, 0.0, 0.0);
    for ix in (cx - 1).max(0)..(cx + 2).min(d.cols as i32) {
        for dy in -1..2 {
            let iy = (cy + dy + rows) % rows;
            let mut j = *heads.add((ix * rows + iy) as usize);
            while j != NONE {
                if j != me {
                    let r = entry(d, own, halo, j);
                    let mut oy = y - *r.add(2);
                    if oy > half_side {
                        oy -= d.side;
                    } else if oy < -half_side {
                        oy += d.side;
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
