//! The problem on the host: the box and its slabs from the options, the
//! particles at the start (from a fixed seed), and the device arrays of a
//! process's slabs.

use super::Options;
use crate::compute::{Domain, Slabs, COUNTERS, REC, REGIONS};
use app_support::Res;
use dcuda::{DeviceBuffer, Runtime};
use std::string::String;
use std::vec::Vec;
use std::{format, vec};

/// One particle: id, x, y, vx, vy.
pub type Particle = [f64; REC];

/// Cell lists' cells are this much wider than the cutoff, so that rounding
/// never makes one narrower.
const CELL_MARGIN: f64 = 1.0 + 1e-9;

/// The box and slabs for `slabs` slabs, or an error naming what to change.
pub fn domain(o: &Options, slabs: u32) -> Result<Domain, String> {
    let n = o.size as f64;
    let (width, height) = box_of(o);
    let cutoff = 1.0;
    let slab = width / slabs as f64;
    if width.min(height) < 3.0 * cutoff * CELL_MARGIN {
        return Err(format!(
            "{} particles at density {} and aspect {} make a box of {width:.3} x {height:.3}, a side under three cutoffs (3): pass more --size",
            o.size, o.density, o.aspect
        ));
    }
    if slab < cutoff {
        return Err(format!(
            "{slabs} slabs of a box {width:.3} wide are {slab:.3} wide, narrower than the cutoff (1): pass fewer --ranks or more --size"
        ));
    }
    let room = |v: f64| (o.slack * v).ceil() as u32 + 32;
    Ok(Domain {
        width,
        height,
        cutoff,
        dt: o.dt,
        slabs,
        cap: room(n / slabs as f64),
        // A halo is about density × cutoff × height particles.
        cap_x: room(o.density * cutoff * height),
        cols: ((slab + 2.0 * cutoff) / (cutoff * CELL_MARGIN)) as u32,
        rows: (height / (cutoff * CELL_MARGIN)) as u32,
    })
}

/// The most slabs the box has room for: each at least a cutoff (1) wide.
/// The programs run at most this many ranks or blocks unless `--ranks`
/// says otherwise.
pub fn max_slabs(o: &Options) -> u32 {
    (box_of(o).0 as u32).max(1)
}

/// The box's width and height: `--size` particles at `--density`, the
/// width `--aspect` times the height.
fn box_of(o: &Options) -> (f64, f64) {
    let area = o.size as f64 / o.density;
    let height = (area / o.aspect).sqrt();
    (height * o.aspect, height)
}

/// A number in [0, 1) from `seed` (splitmix64).
fn uniform(seed: u64) -> f64 {
    let mut z = seed.wrapping_add(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^= z >> 31;
    (z >> 11) as f64 / (1u64 << 53) as f64
}

/// Every particle at the start: a jittered lattice filling the box, random
/// velocities of zero mean; the same on every process.
pub fn start(o: &Options, d: &Domain) -> Vec<Particle> {
    let n = o.size as u64;
    // A lattice of about the box's shape.
    let gx = ((n as f64 * o.aspect).sqrt().ceil() as u64).clamp(1, n.max(1));
    let gy = n.div_ceil(gx);
    let r = |id: u64, k: u64| uniform(id * 8 + k);
    let mut all: Vec<Particle> = (0..n)
        .map(|id| {
            let x = ((id % gx) as f64 + 0.5 + 0.4 * (r(id, 0) - 0.5)) * d.width / gx as f64;
            let y = ((id / gx) as f64 + 0.5 + 0.4 * (r(id, 1) - 0.5)) * d.height / gy as f64;
            let v = |k| o.speed * (2.0 * r(id, k) - 1.0);
            [id as f64, x, y, v(2), v(3)]
        })
        .collect();
    let mean = |k: usize| all.iter().map(|p| p[k]).sum::<f64>() / n as f64;
    let (mx, my) = (mean(3), mean(4));
    for p in &mut all {
        p[3] -= mx;
        p[4] -= my;
    }
    all
}

/// The slab whose range holds `x` (in `[0, width)`).
pub fn slab_of(d: &Domain, x: f64) -> u32 {
    let mut s = ((x * d.slabs as f64 / d.width) as u32).min(d.slabs - 1);
    while s > 0 && x < d.slab(s).0 {
        s -= 1;
    }
    while s + 1 < d.slabs && x >= d.slab(s).1 {
        s += 1;
    }
    s
}

/// The device arrays of slabs `first..first + count`, holding their
/// particles of `all`.
pub struct Arrays {
    /// Own particles, two arrays (see [`Slabs::parts`]).
    pub parts: [DeviceBuffer<f64>; 2],
    /// The rest, as [`Slabs`] names them.
    pub force: DeviceBuffer<f64>,
    /// See [`Slabs::inbox`].
    pub inbox: DeviceBuffer<f64>,
    /// See [`Slabs::outbox`].
    pub outbox: DeviceBuffer<f64>,
    /// See [`Slabs::heads`].
    pub heads: DeviceBuffer<u32>,
    /// See [`Slabs::next`].
    pub next: DeviceBuffer<u32>,
    /// See [`Slabs::counters`].
    pub counters: DeviceBuffer<u32>,
    /// See [`Slabs::counts`].
    pub counts: DeviceBuffer<u32>,
}

impl Arrays {
    /// Allocates the arrays and loads the slabs' particles.
    pub fn new(
        rt: &Runtime,
        d: &Domain,
        (first, count): (u32, u32),
        all: &[Particle],
    ) -> Res<Arrays> {
        let (b, cap) = (count as usize, d.cap as usize);
        let mut parts = vec![0.0f64; b * cap * REC];
        let mut counts = vec![0u32; b];
        for p in all {
            let s = slab_of(d, p[1]);
            if (first..first + count).contains(&s) {
                let l = (s - first) as usize;
                if counts[l] >= d.cap {
                    return Err(format!("slab {s} holds more than its room of {} particles at the start: pass a larger --slack", d.cap).into());
                }
                let at = (l * cap + counts[l] as usize) * REC;
                parts[at..at + REC].copy_from_slice(p);
                counts[l] += 1;
            }
        }
        let regions = b * REGIONS * d.region_len();
        Ok(Arrays {
            parts: [rt.upload(&parts)?, rt.alloc(b * cap * REC)?],
            force: rt.alloc(b * 2 * cap)?,
            inbox: rt.alloc(regions)?,
            outbox: rt.alloc(regions)?,
            heads: rt.alloc(b * 2 * d.cells())?,
            next: rt.alloc(b * (cap + 2 * d.cap_x as usize))?,
            counters: rt.alloc(b * COUNTERS)?,
            counts: rt.upload(&counts)?,
        })
    }

    /// The arrays as the kernels take them.
    pub fn slabs(&self) -> Slabs {
        Slabs {
            parts: [self.parts[0].slice(), self.parts[1].slice()],
            force: self.force.slice(),
            inbox: self.inbox.slice(),
            outbox: self.outbox.slice(),
            heads: self.heads.slice(),
            next: self.next.slice(),
            counters: self.counters.slice(),
            counts: self.counts.slice(),
        }
    }

    /// The slabs' particles in `parts[at]` and their counts.
    pub fn particles(&self, d: &Domain, at: usize) -> Res<Vec<Particle>> {
        let (counts, parts) = (self.counts.download()?, self.parts[at].download()?);
        let mut out = Vec::new();
        for (l, &c) in counts.iter().enumerate() {
            let base = l * d.cap as usize * REC;
            for i in 0..c as usize {
                let at = base + i * REC;
                let mut p = [0.0; REC];
                p.copy_from_slice(&parts[at..at + REC]);
                out.push(p);
            }
        }
        Ok(out)
    }
}
