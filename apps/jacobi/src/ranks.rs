//! The dcuda version: one persistent kernel, a rank per block, each rank
//! owning a band of rows.

use crate::compute::{split, sweep_points};
use dcuda_device::{rank, DeviceSlice, Max, Rank, Sum};

/// Arguments of [`jacobi`](JACOBI).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct JacobiArgs {
    /// This process's rows, halos included: `(rows + 2) × nx`, where the
    /// process owns the rows of its ranks. Both arrays hold the initial
    /// state; the result is in `a` after an even number of iterations and
    /// in `b` after an odd one.
    pub a: DeviceSlice<f32>,
    /// The second array, of the same shape.
    pub b: DeviceSlice<f32>,
    /// Columns.
    pub nx: u32,
    /// Interior rows of the whole grid (`ny - 2`).
    pub rows: u32,
    /// Iterations.
    pub iters: u32,
    /// Written by world rank 0: the squared L2 norm of each iteration's
    /// update (`iters` values).
    pub norms: DeviceSlice<f32>,
    /// Written by world rank 0: the nanoseconds of the iterations, the
    /// longest of any rank's device clock from the barrier before them to
    /// the barrier after them.
    pub elapsed: DeviceSlice<u64>,
}

// ANCHOR: jacobi
#[rank]
pub fn jacobi(rank: &mut Rank, args: &JacobiArgs) {
    let world = rank.world();
    let (me, n) = (world.rank(), world.size());
    let nx = args.nx as usize;
    let (local, count) = (rank.device().rank(), rank.device().size());
    // The process's rows are its ranks' rows of the world's even split by
    // rows (as the host lays the band out); the world's ranks of one
    // process are consecutive.
    let first = me - local;
    let band = (
        split(args.rows, n, first).0,
        split(args.rows, n, first + count - 1).1,
    );
    let (above, below) = ((me + n - 1) % n, (me + 1) % n);
    // Within the process the ranks split its points, not its rows: rows
    // cannot split evenly (8191 rows of 132 ranks left seven with 63 rows
    // against 62, and every iteration waited for them). The band's row 0
    // is the halo row above it.
    let (start, end) = band_points(band, nx, (local, count));

    // Each rank's two halos are windows of a row each: the row before its
    // first point and the row after its last. Neighbours of one process
    // overlap: a halo is the neighbour's points, and a put there copies
    // nothing; it only notifies.
    let halos =
        |array: DeviceSlice<f32>| (array.slice(start - nx..start), array.slice(end..end + nx));
    let (ha, hb) = (halos(args.a), halos(args.b));
    let wins = [
        (rank.win_create(world, ha.0), rank.win_create(world, ha.1)),
        (rank.win_create(world, hb.0), rank.win_create(world, hb.1)),
    ];

    rank.barrier(world);
    let started = rank.timestamp();
    for k in 0..args.iters {
        let (old, new) = if k % 2 == 0 {
            (args.a, args.b)
        } else {
            (args.b, args.a)
        };
        let threads = rank.threads_per_rank() as usize;
        let mine = rank.trace("compute", |rank| {
            // SAFETY: the rank writes only its points of `new` and reads
            // only its points and a row either side of them in `old`, which
            // no one writes during the sweep: the neighbours' puts into
            // them came before the wait.
            rank.reduce(
                |t| unsafe {
                    sweep_points(old, new, nx, (start, end), (t.index() as usize, threads))
                },
                Sum,
            )
        });
        // The first row's worth of points goes to the bottom halo of the
        // rank above, the last to the top halo of the rank below; the tag
        // tells iterations apart.
        let ((top, bottom), tag) = (wins[(k as usize + 1) % 2], k % 2);
        rank.put_notify(bottom, above, 0, new.slice(start..start + nx), tag);
        rank.put_notify(top, below, 0, new.slice(end - nx..end), tag);
        let norm = rank.allreduce(world, mine, Sum);
        rank.wait_notifications(tag, 2);
        if me == 0 {
            // SAFETY: world rank 0 alone writes the norms, uniformly.
            unsafe { args.norms.write(k as usize, norm) };
        }
    }
    rank.barrier(world);
    let elapsed = rank.timestamp() - started;
    let longest = rank.allreduce(world, elapsed, Max);
    if me == 0 {
        // SAFETY: as above.
        unsafe { args.elapsed.write(0, longest) };
    }
    for (top, bottom) in wins {
        rank.win_free(top);
        rank.win_free(bottom);
    }
}

/// The points `start..end` (indices into the band's array, whose row 0 is
/// the halo above the band's rows `band.0..band.1`) that rank `local` of
/// `count` sweeps: an even split of the band's points, in whole groups of
/// four where rows are (so that every rank's sweep takes 16-byte units),
/// each share at least a row long.
#[inline(always)]
pub fn band_points(band: (u32, u32), nx: usize, (local, count): (u32, u32)) -> (usize, usize) {
    let unit = if nx.is_multiple_of(4) { 4 } else { 1 };
    let units = (band.1 - band.0) as u64 * (nx / unit) as u64;
    let at = |i: u32| (i as u64 * units / count as u64) as usize * unit + nx;
    (at(local), at(local + 1))
}
// ANCHOR_END: jacobi
