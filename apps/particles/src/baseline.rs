//! The host-driven baseline's kernels: the same phases, a block per slab,
//! four launches a step. Within a process a slab reads its neighbours'
//! outboxes in place (the launch boundary orders them); the messages of
//! the process's edge slabs to and from other processes arrive through
//! the host, in `ghosts`.

use crate::compute::*;
use dcuda_device::arch::{block_dim, block_idx, global_timer, sync_threads, thread_idx};
use dcuda_device::kernel::KernelParam;
use dcuda_device::{kernel, shared_array, DeviceSlice};

/// One launch of a baseline phase.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Phase {
    /// The box and what a slab holds room for.
    pub domain: Domain,
    /// The process's slabs, a block each.
    pub slabs: Slabs,
    /// Global index of the process's first slab.
    pub first: u32,
    /// 1: the job is this process alone (the edge slabs are neighbours).
    pub alone: u32,
    /// Which of `slabs.parts` holds the particles when the phase starts.
    pub at: u32,
    /// The kick: half a step, or 0 for the forces before the first step.
    pub half: f64,
    /// The step (for errors).
    pub step: u32,
    /// What the neighbouring processes sent the edge slabs, laid out as an
    /// inbox ([`REGIONS`] regions: from the left, from the right).
    pub ghosts: DeviceSlice<f64>,
    /// Block `b`'s energy parts: `partials[2b]` (own forces) and
    /// `partials[2b + 1]` (halo forces and kinetic energy).
    pub partials: DeviceSlice<f64>,
    /// Block `b`'s first error at `status[4b..4b + 4]`: the code of
    /// [`abort_codes`](crate::abort_codes) and its three values.
    pub status: DeviceSlice<u32>,
}

// SAFETY: `#[repr(C)]` plain data, the same layout on both sides.
unsafe impl KernelParam for Phase {}

shared_array!(static ENERGY: [f64; 1024]);

impl Phase {
    fn slab(&self, b: u32) -> Slab {
        self.slabs.slab(&self.domain, b, self.first + b)
    }

    /// The messages slab `b` reads, from its left and right neighbour:
    /// their outboxes' `towards.1` and `towards.0` regions on this
    /// process, or the ghosts from the processes beside it.
    fn sources(&self, b: u32, towards: (usize, usize)) -> (DeviceSlice<f64>, DeviceSlice<f64>) {
        let d = &self.domain;
        let last = block_dim_blocks() - 1;
        let left = if b > 0 || self.alone != 0 {
            region(
                d,
                self.slab(if b > 0 { b - 1 } else { last }).outbox,
                towards.1,
            )
        } else {
            region(d, self.ghosts, towards.0)
        };
        let right = if b < last || self.alone != 0 {
            region(
                d,
                self.slab(if b < last { b + 1 } else { 0 }).outbox,
                towards.0,
            )
        } else {
            region(d, self.ghosts, towards.1)
        };
        (left, right)
    }

    /// Records error `code` of block `b` unless one is there; thread 0.
    unsafe fn fail(&self, b: u32, code: u32, values: [u32; 3]) {
        let at = self.status.as_mut_ptr().add(4 * b as usize);
        if *at == 0 {
            *at = code;
            for (k, v) in values.iter().enumerate() {
                *at.add(1 + k) = *v;
            }
        }
    }

    /// Seals outbox messages `regions` of slab `s`: thread 0 writes their
    /// counts and zeroes their counters, or records a full one.
    unsafe fn seal(&self, b: u32, s: &Slab, regions: [usize; 2]) {
        let d = &self.domain;
        for r in regions {
            let c = s.counters.as_mut_ptr().add(1 + r);
            if *c > d.cap_x {
                self.fail(b, crate::abort_codes::MESSAGE_FULL, [*c, d.cap_x, r as u32]);
            }
            *region(d, s.outbox, r).as_mut_ptr() = (*c).min(d.cap_x) as f64;
            *c = 0;
        }
    }

    /// The block's sum of `v` (a tree in shared memory) into
    /// `partials[slot]`.
    unsafe fn sum_into(&self, v: f64, slot: usize) {
        let (t, threads) = (thread_idx().x, block_dim().x);
        ENERGY.set(t as usize, v);
        let mut half = threads / 2;
        while half > 0 {
            sync_threads();
            if t < half {
                let s = ENERGY.get(t as usize) + ENERGY.get((t + half) as usize);
                ENERGY.set(t as usize, s);
            }
            half /= 2;
        }
        if t == 0 {
            self.partials.write(slot, ENERGY.get(0));
        }
    }
}

/// Blocks in the launch.
fn block_dim_blocks() -> u32 {
    dcuda_device::arch::grid_dim().x
}

fn thread() -> (u32, u32) {
    (thread_idx().x, block_dim().x)
}

/// The step's first phase: the kick by half a step, the drift, and the
/// particles that left each slab sorted into its outbox (their counts
/// sealed by thread 0, a stray particle recorded in `status`).
///
/// # Safety
/// The launch contract of every phase: `p`'s arrays are live and laid out
/// for the launch's blocks, one per slab of the process, at most 1024
/// threads a block, a power of two; the phases run in order, one at a
/// time, except [`own_forces_blocks`](OWN_FORCES_BLOCKS) beside the host's exchange of the
/// halo.
#[kernel]
pub unsafe fn move_out(p: Phase) {
    let (b, t) = (block_idx().x, thread());
    let (d, s) = (&p.domain, &p.slab(b));
    let at = p.at as usize;
    let n = p.slabs.counts.read(b as usize);
    kick(d, s, at, n, (p.half, true), t);
    sort_out(d, s, at, n, t);
    sync_threads();
    if t.0 == 0 {
        let stray = *s.counters.as_ptr().add(STRAY);
        if stray > 0 {
            p.fail(b, crate::abort_codes::STRAY, [stray, p.step, s.index]);
        }
        p.seal(b, s, [MOVED_LEFT, MOVED_RIGHT]);
    }
}

/// See [`move_out`](MOVE_OUT): the moved particles in, then the halo out.
///
/// # Safety
/// As [`move_out`](MOVE_OUT).
#[kernel]
pub unsafe fn move_in(p: Phase) {
    let (b, t) = (block_idx().x, thread());
    let (d, s) = (&p.domain, &p.slab(b));
    let to = 1 - p.at as usize;
    let kept = *s.counters.as_ptr().add(KEPT);
    let ins = p.sources(b, (MOVED_LEFT, MOVED_RIGHT));
    let mut n = kept + count_of(ins.0) + count_of(ins.1);
    if n > d.cap {
        if t.0 == 0 {
            p.fail(b, crate::abort_codes::SLAB_FULL, [n, d.cap, s.index]);
        }
        n = kept; // reported, and nothing written past the room
    } else {
        take_in(s, to, kept, ins, t);
    }
    sync_threads();
    halo_out(d, s, to, n, t);
    sync_threads();
    if t.0 == 0 {
        p.slabs.counts.write(b as usize, n);
        *s.counters.as_mut_ptr().add(KEPT) = 0;
        p.seal(b, s, [HALO_LEFT, HALO_RIGHT]);
    }
}

/// See [`move_out`](MOVE_OUT): the forces between the slab's own particles.
///
/// # Safety
/// As [`move_out`](MOVE_OUT).
#[kernel]
pub unsafe fn own_forces_blocks(p: Phase) {
    let (b, t) = (block_idx().x, thread());
    let (d, s) = (&p.domain, &p.slab(b));
    let (at, n) = (p.at as usize, p.slabs.counts.read(b as usize));
    link_own(d, s, at, n, t);
    sync_threads();
    let e = own_forces(d, s, at, n, t);
    p.sum_into(e, 2 * b as usize);
}

/// See [`move_out`](MOVE_OUT): the halo's forces and the kick.
///
/// # Safety
/// As [`move_out`](MOVE_OUT).
#[kernel]
pub unsafe fn halo_forces_blocks(p: Phase) {
    let (b, t) = (block_idx().x, thread());
    let (d, s) = (&p.domain, &p.slab(b));
    let (at, n) = (p.at as usize, p.slabs.counts.read(b as usize));
    let halo = p.sources(b, (HALO_LEFT, HALO_RIGHT));
    link_halo(d, s, halo, t);
    sync_threads();
    let e = halo_forces(d, s, at, n, halo, p.half, t);
    p.sum_into(e, 2 * b as usize + 1);
}

/// Writes the device clock (`%globaltimer`, ns) to `out[at]`: queued on a
/// stream before and after the steps, it times them with the clock the
/// rank kernel uses.
///
/// # Safety
/// `out` is live device memory; launch one thread.
#[kernel]
pub unsafe fn clock_stamp(out: DeviceSlice<u64>, at: u32) {
    out.write(at as usize, global_timer());
}
