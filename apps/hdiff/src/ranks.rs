//! The dcuda version: one persistent kernel, a rank per block, each rank
//! owning a band of rows and announcing each stage's halos as soon as it
//! has computed them: a notification to a neighbour in the same process;
//! across the periodic wrap and to another process, the edge rank's row
//! stored at the neighbour's halo row as it is computed, where the rank
//! can store there, and a notification; else a notified put.

use crate::compute::{fluxes, laplacian, output, split, Mirror, Order, Shape, Walk, Work};
use dcuda_device::{rank, shared_array, DeviceSlice, Max, PutTarget, Rank};

/// Arguments of [`hdiff`](HDIFF).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct HdiffArgs {
    /// The process's fields' shape: its rows and two halo rows.
    pub shape: Shape,
    /// The state, in and out by turns: both hold the initial state; the
    /// result is in `a` after an even number of iterations, in `b` after
    /// an odd one.
    pub a: DeviceSlice<f64>,
    /// See `a`.
    pub b: DeviceSlice<f64>,
    /// The intermediate fields and the coefficient.
    pub work: Work,
    /// Rows of the whole grid (none are halos: periodic in y).
    pub ny: u32,
    /// Iterations.
    pub iters: u32,
    /// Written by world rank 0: the nanoseconds of the iterations, the
    /// longest of any rank's device clock from the barrier before them to
    /// the barrier after them.
    pub elapsed: DeviceSlice<u64>,
}

// Where the edge ranks' rows go when stored there (see `there` below).
shared_array!(static HALOS_THERE: [u64; 6]);

/// The notification tags: a stage's, told apart from the next iteration's.
fn tag(stage: u32, k: u32) -> u32 {
    2 * stage + k % 2
}
/// How many of its points ahead a thread of the rank kernel asks for the
/// lines of a point (see [`Walk`]). Fixed here, not an option: chosen at
/// run time the walk's other path cost the rank kernel 4–5%, and one
/// point ahead made it 8% faster at 512×1280×32 and 5% at 128×320×26 on
/// an H200 (`bench/results/2026-11-30-hdiff-prefetch-h200/`).
pub const AHEAD: u32 = 1;
const OUT: u32 = 0;
const LAP: u32 = 1;
const FLY: u32 = 2;

// ANCHOR: hdiff
#[rank]
pub fn hdiff(rank: &mut Rank, args: &HdiffArgs) {
    let world = rank.world();
    let (me, n) = (world.rank(), world.size());
    let shape = args.shape;
    let w = shape.width();
    // The process's rows start at its first rank's; the world's ranks of
    // one process are consecutive.
    let base = split(args.ny, n, me - rank.device().rank()).0;
    let (start, end) = split(args.ny, n, me);
    let (above, below) = ((me + n - 1) % n, (me + 1) % n);
    let rows_above = split(args.ny, n, above);
    let bottom_halo_above = (rows_above.1 - rows_above.0 + 1) as usize * w;

    // Each rank's windows are its rows and two halo rows, the targets of
    // the puts to other processes and across the wrap.
    let (lo, hi) = ((start - base) as usize, (end - base) as usize);
    let window = |field: DeviceSlice<f64>| field.slice(lo * w..(hi + 2) * w);
    let states = [
        rank.win_create(world, window(args.a)),
        rank.win_create(world, window(args.b)),
    ];
    let lap_win = rank.win_create(world, window(args.work.lap));
    let fly_win = rank.win_create(world, window(args.work.fly));
    // The rank's rows in the process's fields.
    let rows = (lo + 1, hi + 1);
    // Within the process the fields are shared, so a halo for a neighbour
    // there needs only its notification. The first and the last rank of
    // the process store their edge row a second time, at the neighbour's
    // halo row, as they compute it, where they can store there themselves
    // (across the periodic wrap within the process, or on a mapped GPU:
    // `Mirror`, `Rank::put_target_slice`), and then notify too; else they
    // put the row after the stage. A stage stores one row twice at most:
    // where a rank has all of its process's rows, the output's last row
    // is put.
    let (local, here) = (rank.device().rank(), rank.device().size());
    let (first, last) = (local == 0, local + 1 == here);
    let row = |field: DeviceSlice<f64>, j: usize| field.slice(j * w..(j + 1) * w);
    let threads = rank.threads_per_rank() as usize;
    let walk = |t: &dcuda_device::Thread, mirror| Walk {
        thread: t.index() as usize,
        threads,
        // Across the band's rows, one point at a time, fixed in the code:
        // see `Order::Across` and `fresh` below.
        order: Order::Across,
        prefetch: AHEAD,
        mirror,
    };

    // The halo puts' destinations, checked and looked up once: a halo
    // row of the rank above (the bottom one) or below (the top one).
    let up = |rank: &mut Rank, win| rank.put_target(win, above, bottom_halo_above, w);
    let down = |rank: &mut Rank, win| rank.put_target(win, below, 0, w);
    let lap_up = up(rank, lap_win);
    let fly_down = down(rank, fly_win);
    let out_up = [up(rank, states[0]), up(rank, states[1])];
    let out_down = [down(rank, states[0]), down(rank, states[1])];
    // Where the edge rows go when stored there, looked up once and kept in
    // shared memory (0 where the row is put): the Laplacian's up, the y
    // flux's down, the output's up and down for each state. Looked up at
    // each stage, or kept across the loop in registers, they cost the
    // rank body spills on the ring's path.
    let there = |rank: &mut Rank, on: bool, to: PutTarget<f64>| {
        // SAFETY: used in the loop, while the targets' windows live; the
        // stores are the put's (see the stages').
        let halo = if on {
            unsafe { rank.put_target_slice(to) }
        } else {
            None
        };
        halo.map_or(0, |h| h.as_mut_ptr() as u64)
    };
    let found = [
        there(rank, first, lap_up),
        there(rank, last, fly_down),
        there(rank, first, out_up[0]),
        there(rank, first, out_up[1]),
        there(rank, last, out_down[0]),
        there(rank, last, out_down[1]),
    ];
    rank.threads(|t| {
        if let Some(&at) = found.get(t.index() as usize) {
            HALOS_THERE.set(t.index() as usize, at);
        }
    });
    let mirror = |i: usize, j: usize| match HALOS_THERE.get(i) {
        0 => Mirror::NONE,
        // SAFETY: a row of the target's window (its count), which lives
        // through the loop.
        at => Mirror {
            row: j,
            to: unsafe { DeviceSlice::from_raw_parts(at as *mut f64, w) },
        },
    };
    rank.barrier(world);
    let started = rank.timestamp();
    // The fields and the shape, read from the rank's staged arguments
    // (shared memory) where each stage uses them, and a walk of one point
    // at a time compiled in: loaded once and kept across the iterations,
    // they and the other batches' code left ptxas spilling the loop's
    // values to every thread's stack, and the reloads after each wait
    // missed L1. Both together made 128×320×26 8% faster on an H200, at
    // +0.9% for 512×1280×32; either alone was slower
    // (`bench/results/2026-11-30-hdiff-spills-h200/`).
    let fresh = |k: u32| {
        // SAFETY: the rank's copy of its arguments, never written.
        let (a, b, work, shape) = unsafe {
            (
                core::ptr::read_volatile(&args.a),
                core::ptr::read_volatile(&args.b),
                core::ptr::read_volatile(&args.work),
                core::ptr::read_volatile(&args.shape),
            )
        };
        if k.is_multiple_of(2) {
            (a, b, work, shape)
        } else {
            (b, a, work, shape)
        }
    };
    for k in 0..args.iters {
        // SAFETY (the three stages): a rank writes only its rows of a field
        // (and an edge rank a neighbour's halo row, as its put would)
        // and reads its rows and the halos that the waits before made
        // current; a neighbour writes them again only after notifications
        // that this rank sends after reading them.
        let up = mirror(0, rows.0);
        rank.trace("laplacian", |rank| {
            rank.threads(|t| {
                let (inp, _, work, shape) = fresh(k);
                unsafe { laplacian(shape, inp, work.lap, rows, walk(t, up)) }
            })
        });
        // Fluxes in y need the Laplacian of the row below the band.
        if !first || up.is_some() {
            rank.notify(world, above, tag(LAP, k));
        } else {
            rank.put_notify_to(lap_up, row(fresh(k).2.lap, rows.0), tag(LAP, k));
        }
        rank.wait_notifications(tag(LAP, k), 1);
        let down = mirror(1, rows.1 - 1);
        rank.trace("fluxes", |rank| {
            rank.threads(|t| {
                let (inp, _, work, shape) = fresh(k);
                unsafe { fluxes(shape, inp, work, rows, walk(t, down)) }
            })
        });
        // The output needs the y flux of the row above the band.
        if !last || down.is_some() {
            rank.notify(world, below, tag(FLY, k));
        } else {
            rank.put_notify_to(fly_down, row(fresh(k).2.fly, rows.1 - 1), tag(FLY, k));
        }
        rank.wait_notifications(tag(FLY, k), 1);
        let next = (k as usize + 1) % 2;
        let up = mirror(2 + next, rows.0);
        let down = if up.is_some() {
            Mirror::NONE
        } else {
            mirror(4 + next, rows.1 - 1)
        };
        let stored = if up.is_some() { up } else { down };
        rank.trace("output", |rank| {
            rank.threads(|t| {
                let (inp, out, work, shape) = fresh(k);
                unsafe { output(shape, inp, work, out, rows, walk(t, stored)) }
            })
        });
        // The next Laplacian needs the new state of the rows on both sides.
        let (up_told, down_told) = (!first || up.is_some(), !last || down.is_some());
        if up_told && down_told {
            rank.notify_each(world, &[above, below], tag(OUT, k));
        } else {
            if up_told {
                rank.notify(world, above, tag(OUT, k));
            } else {
                rank.put_notify_to(out_up[next], row(fresh(k).1, rows.0), tag(OUT, k));
            }
            if down_told {
                rank.notify(world, below, tag(OUT, k));
            } else {
                rank.put_notify_to(out_down[next], row(fresh(k).1, rows.1 - 1), tag(OUT, k));
            }
        }
        rank.wait_notifications(tag(OUT, k), 2);
    }
    rank.barrier(world);
    let elapsed = rank.timestamp() - started;
    let longest = rank.allreduce(world, elapsed, Max);
    if me == 0 {
        // SAFETY: world rank 0 alone writes it, uniformly.
        unsafe { args.elapsed.write(0, longest) };
    }
    for win in [states[0], states[1], lap_win, fly_win] {
        rank.win_free(win);
    }
}
// ANCHOR_END: hdiff
