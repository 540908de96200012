//! The compute both versions share: the box and its slabs, the message
//! layout, and one thread's part of each phase of a step. Every function
//! strides over its items by `(thread, threads)`; the caller separates the
//! phases with barriers.
//!
//! A particle is a record of [`REC`] `f64`s: id, x, y, vx, vy. A message
//! (a region of an inbox or outbox) is a count followed by up to `cap_x`
//! records.

mod forces;
mod moves;

pub use forces::*;
pub use moves::*;

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
pub(crate) const NONE: u32 = u32::MAX;

/// The periodic box, its slabs and what each slab holds room for.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct Domain {
    /// The box's width: x, split in slabs (periodic).
    pub width: f64,
    /// The box's height: y (periodic).
    pub height: f64,
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
    /// least `rc` wide) and rows over the height.
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
                self.width
            } else {
                self.width * s as f64 / self.slabs as f64
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
        let cy = (y * self.rows as f64 / self.height) as i32;
        (
            cx.clamp(0, self.cols as i32 - 1),
            cy.clamp(0, self.rows as i32 - 1),
        )
    }

    /// `x` wrapped into `[0, width)`.
    #[inline(always)]
    pub fn wrap_x(&self, x: f64) -> f64 {
        wrap(x, self.width)
    }

    /// `y` wrapped into `[0, height)`.
    #[inline(always)]
    pub fn wrap_y(&self, y: f64) -> f64 {
        wrap(y, self.height)
    }
}

/// `v` wrapped into `[0, side)`.
#[inline(always)]
fn wrap(v: f64, side: f64) -> f64 {
    let mut v = v;
    if v < 0.0 {
        v += side;
    }
    if v >= side {
        v -= side;
    }
    v
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
