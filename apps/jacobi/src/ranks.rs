//! The dcuda version: one persistent kernel, a rank per block, each rank
//! owning a band of rows.

use crate::compute::{split, sweep};
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
    // The process's rows start at its first rank's; the world's ranks of
    // one process are consecutive.
    let first = me - rank.device().rank();
    let base = split(args.rows, n, first).0;
    let (start, end) = split(args.rows, n, me);
    let (above, below) = ((me + n - 1) % n, (me + 1) % n);
    let rows_above = split(args.rows, n, above);
    let rows_above = (rows_above.1 - rows_above.0) as usize;

    // Each rank's window is its rows and its two halo rows, the target of
    // the puts to other processes and across the wrap. Neighbours of one
    // process overlap: there a halo is the neighbour's row.
    let (lo, hi) = ((start - base) as usize, (end - base) as usize);
    let window = |array: DeviceSlice<f32>| array.slice(lo * nx..(hi + 2) * nx);
    let wins = [
        rank.win_create(world, window(args.a)),
        rank.win_create(world, window(args.b)),
    ];
    // The rank's first and last row.
    let (top, bottom) = (lo + 1, hi);
    // A neighbour in this process reads the halo where it is: a
    // notification says it is ready, both in one `notify_each` (one
    // barrier). The first and the last rank of a process put theirs: to
    // another process, or across the periodic wrap, where it is a copy.
    let (local, here) = (rank.device().rank(), rank.device().size());
    let (up_here, down_here) = (local > 0, local + 1 < here);

    rank.barrier(world);
    let started = rank.timestamp();
    for k in 0..args.iters {
        let (old, new) = if k % 2 == 0 {
            (args.a, args.b)
        } else {
            (args.b, args.a)
        };
        let threads = rank.threads_per_rank() as usize;
        let local = rank.trace("compute", |rank| {
            // SAFETY: the rank writes only its rows of `new` and reads only
            // its rows and halos of `old`, which no one writes during the
            // sweep: the neighbours' puts into them came before the wait.
            rank.reduce(
                |t| unsafe {
                    sweep(
                        old,
                        new,
                        nx,
                        (top, bottom + 1),
                        (t.index() as usize, threads),
                    )
                },
                Sum,
            )
        });
        // The first row goes to the bottom halo of the rank above, the last
        // to the top halo of the rank below; the tag tells iterations apart.
        let (win, tag) = (wins[(k as usize + 1) % 2], k % 2);
        if up_here && down_here {
            rank.notify_each(world, &[above, below], tag);
        } else {
            if up_here {
                rank.notify(world, above, tag);
            } else {
                let row = new.slice(top * nx..(top + 1) * nx);
                rank.put_notify(win, above, (rows_above + 1) * nx, row, tag);
            }
            if down_here {
                rank.notify(world, below, tag);
            } else {
                let row = new.slice(bottom * nx..(bottom + 1) * nx);
                rank.put_notify(win, below, 0, row, tag);
            }
        }
        let norm = rank.allreduce(world, local, Sum);
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
    rank.win_free(wins[0]);
    rank.win_free(wins[1]);
}
// ANCHOR_END: jacobi
