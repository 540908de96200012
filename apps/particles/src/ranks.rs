//! The dcuda version: one persistent kernel, a rank per slab. A rank's
//! messages to its neighbours are notified puts of a count and records
//! into their inboxes (its window); the forces between its own particles
//! are computed while its halo is in flight.

use crate::compute::*;
use dcuda_device::{rank, DeviceSlice, Max, Rank, Sum, Window};

/// Arguments of the rank kernel `particles`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ParticleArgs {
    /// The box and what a slab holds room for.
    pub domain: Domain,
    /// The process's slabs, one per rank; `counts` holds each rank's
    /// particles at the start, and at the end (then in `parts[steps % 2]`).
    pub slabs: Slabs,
    /// Time steps.
    pub steps: u32,
    /// Steps between energy checks.
    pub every: u32,
    /// Written by world rank 0: the total energy at step 0, every `every`
    /// steps and at the last.
    pub energies: DeviceSlice<f64>,
    /// Written by world rank 0: the particles at the same steps.
    pub totals: DeviceSlice<u64>,
    /// Written by world rank 0: the nanoseconds of the steps (the longest
    /// of any rank's device clock, barrier to barrier).
    pub elapsed: DeviceSlice<u64>,
}

/// Tags: moved particles and halos (the library keeps its own apart).
const MOVED: u32 = 0;
const HALO: u32 = 1;

/// Why a rank aborts the run ([`Rank::abort`]'s code; the values follow).
pub mod abort_codes {
    /// A message outgrew its room: particles, room, region.
    pub const MESSAGE_FULL: u32 = 1;
    /// The slab outgrew its room: particles, room, slab.
    pub const SLAB_FULL: u32 = 2;
    /// Particles moved past a neighbour's slab in one step: how many, the
    /// step, the slab.
    pub const STRAY: u32 = 3;
}

/// Reads two of the slab's counters for every thread (thread 0 reads).
#[inline(always)]
fn counters(rank: &mut Rank, s: &Slab, (a, b): (usize, usize)) -> (u32, u32) {
    // Every thread's updates first: a region ends without a barrier, and
    // `single` runs at once on thread 0.
    rank.sync_threads();
    // SAFETY: the counters live for the run; the barrier above comes after
    // every thread's updates.
    let both = rank.single(|_| unsafe {
        let c = s.counters.as_ptr();
        (*c.add(a) as u64) << 32 | *c.add(b) as u64
    });
    ((both >> 32) as u32, both as u32)
}

/// Seals outbox messages `regions` (their counts in front, the counters
/// zeroed) and puts each into the inbox region `into` of rank `to`.
#[inline(always)]
fn send(
    rank: &mut Rank,
    (d, s): (&Domain, &Slab),
    win: Window<f64>,
    msgs: [(usize, u32, usize); 2],
    tag: u32,
) {
    let (first, second) = counters(rank, s, (1 + msgs[0].0, 1 + msgs[1].0));
    let counts = [first, second];
    for (k, &(r, _, _)) in msgs.iter().enumerate() {
        if counts[k] > d.cap_x {
            rank.abort(
                abort_codes::MESSAGE_FULL,
                [counts[k] as u64, d.cap_x as u64, r as u64],
            );
        }
    }
    rank.threads(|t| {
        if t.index() == 0 {
            for (k, &(r, _, _)) in msgs.iter().enumerate() {
                // SAFETY: thread 0 alone writes the counts and counters;
                // every thread read the counters before (`single`).
                unsafe {
                    *region(d, s.outbox, r).as_mut_ptr() = counts[k] as f64;
                    *s.counters.as_mut_ptr().add(1 + r) = 0;
                }
            }
        }
    });
    for (k, &(r, to, into)) in msgs.iter().enumerate() {
        let msg = region(d, s.outbox, r).slice(0..1 + counts[k] as usize * REC);
        rank.put_notify(win, to, into * d.region_len(), msg, tag);
    }
}

// ANCHOR: forces
/// The forces at the particles' current places: the halo out, the own
/// forces while it travels, the halo's forces once it is in, and the kick
/// by `half`; returns the slab's total energy.
#[inline(always)]
fn forces(
    rank: &mut Rank,
    (d, s): (&Domain, &Slab),
    win: Window<f64>,
    (at, n): (usize, u32),
    half: f64,
    (left, right): (u32, u32),
) -> f64 {
    let threads = rank.threads_per_rank();
    // SAFETY (each region): the slab's arrays live for the run; every
    // region touches this thread's particles or entries, or the lists'
    // links through atomic swaps, and barriers separate what one region
    // writes from what the next reads.
    rank.threads(|t| unsafe { halo_out(d, s, at, n, (t.index(), threads)) });
    let outs = [
        (HALO_LEFT, left, HALO_RIGHT),
        (HALO_RIGHT, right, HALO_LEFT),
    ];
    send(rank, (d, s), win, outs, HALO);
    rank.threads(|t| unsafe { link_own(d, s, at, n, (t.index(), threads)) });
    rank.sync_threads();
    let own = rank.trace("own forces", |rank| {
        rank.reduce(
            |t| unsafe { own_forces_apart(d, s, at, n, (t.index(), threads)) },
            Sum,
        )
    });
    rank.wait_notifications(HALO, 2);
    let halo = (
        region(d, s.inbox, HALO_LEFT),
        region(d, s.inbox, HALO_RIGHT),
    );
    rank.threads(|t| unsafe { link_halo(d, s, halo, (t.index(), threads)) });
    rank.sync_threads();
    let rest = rank.trace("halo forces", |rank| {
        rank.reduce(
            |t| unsafe { halo_forces_apart(d, s, (at, n), halo, half, (t.index(), threads)) },
            Sum,
        )
    });
    own + rest
}
// ANCHOR_END: forces

// ANCHOR: particles
#[rank]
pub fn particles(rank: &mut Rank, args: &ParticleArgs) {
    let world = rank.world();
    let (me, size, local) = (world.rank(), world.size(), rank.device().rank());
    let (left, right) = ((me + size - 1) % size, (me + 1) % size);
    let d = &args.domain;
    let s = &args.slabs.slab(d, local, me);
    let win = rank.win_create(world, s.inbox);
    let threads = rank.threads_per_rank();
    // SAFETY: the host wrote the slab's count before the run.
    let mut n = unsafe { args.slabs.counts.read(local as usize) };
    let (mut at, mut checks) = (0usize, 0usize);
    rank.barrier(world);
    let started = rank.timestamp();
    let mut energy = forces(rank, (d, s), win, (at, n), 0.0, (left, right));
    for step in 0..=args.steps {
        if step > 0 {
            rank.flush(win); // the outbox is rewritten below
            let half = (0.5 * d.dt, true);
            rank.trace("move", |rank| {
                // SAFETY: as in `forces`.
                rank.threads(|t| unsafe { kick(d, s, at, n, half, (t.index(), threads)) });
                rank.threads(|t| unsafe { sort_out(d, s, at, n, (t.index(), threads)) });
            });
            // ANCHOR: abort
            let (kept, stray) = counters(rank, s, (KEPT, STRAY));
            if stray > 0 {
                rank.abort(abort_codes::STRAY, [stray as u64, step as u64, me as u64]);
            }
            // ANCHOR_END: abort
            let outs = [
                (MOVED_LEFT, left, MOVED_RIGHT),
                (MOVED_RIGHT, right, MOVED_LEFT),
            ];
            send(rank, (d, s), win, outs, MOVED);
            rank.wait_notifications(MOVED, 2);
            let ins = (
                region(d, s.inbox, MOVED_LEFT),
                region(d, s.inbox, MOVED_RIGHT),
            );
            // SAFETY: the messages are complete (notified) and the counters
            // read; thread 0 alone zeroes `KEPT` after the barrier of `single`.
            let arrived = rank.single(|_| unsafe {
                *s.counters.as_mut_ptr().add(KEPT) = 0;
                count_of(ins.0) + count_of(ins.1)
            });
            if kept + arrived > d.cap {
                rank.abort(
                    abort_codes::SLAB_FULL,
                    [(kept + arrived) as u64, d.cap as u64, me as u64],
                );
            }
            at = 1 - at;
            rank.threads(|t| unsafe { take_in(s, at, kept, ins, (t.index(), threads)) });
            rank.sync_threads();
            n = kept + arrived;
            energy = forces(rank, (d, s), win, (at, n), 0.5 * d.dt, (left, right));
        }
        if step % args.every == 0 || step == args.steps {
            let total = rank.allreduce(world, energy, Sum);
            let count = rank.allreduce(world, n as u64, Sum);
            if me == 0 {
                // SAFETY: world rank 0 alone writes the results, uniformly;
                // the host sized them for every check.
                unsafe {
                    args.energies.write(checks, total);
                    args.totals.write(checks, count);
                }
            }
            checks += 1;
        }
    }
    rank.barrier(world);
    let elapsed = rank.timestamp() - started;
    let longest = rank.allreduce(world, elapsed, Max);
    if me == 0 {
        // SAFETY: as above.
        unsafe { args.elapsed.write(0, longest) };
    }
    rank.threads(|t| {
        if t.index() == 0 {
            // SAFETY: thread 0 alone writes the rank's count.
            unsafe { args.slabs.counts.write(local as usize, n) };
        }
    });
    rank.win_free(win);
}
// ANCHOR_END: particles
