//! The dcuda version: one persistent kernel, a rank per block, each rank
//! owning a band of rows and the same entries of the vector.

use crate::compute::{overlap, product_rows_apart, reach, split, Csr};
use dcuda_device::{arch, rank, DeviceSlice, Max, Rank, Sum};

/// Arguments of [`spmv`](SPMV).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct SpmvArgs {
    /// The process's rows.
    pub matrix: Csr,
    /// The vector, all `n` entries on every process: the start in `xa`;
    /// iteration `k` reads one array and writes the other (`xa` when `k`
    /// is odd). A process's ranks read each other's entries in place.
    pub xa: DeviceSlice<f64>,
    /// See `xa`.
    pub xb: DeviceSlice<f64>,
    /// Rows (and columns) of the matrix.
    pub n: u32,
    /// Its bandwidth: no entry lies further than this from the diagonal.
    pub band: u32,
    /// Products at most.
    pub iters: u32,
    /// 1: power iteration (each product scaled by the inverse of the last
    /// one's norm, an `allreduce`; ends once the norm settles); 0: plain
    /// products, each scaled by `scale`.
    pub power: u32,
    /// Power iteration ends when the norm changes by at most `tol` of it.
    pub tol: f64,
    /// The scale of every plain product, or of a power iteration's first
    /// (the inverse of the start's norm).
    pub scale: f64,
    /// Written by world rank 0: each product's norm (power iteration:
    /// the estimate of the dominant eigenvalue).
    pub norms: DeviceSlice<f64>,
    /// Written by world rank 0: products run, and the nanoseconds they
    /// took (the longest of any rank's device clock, barrier to barrier).
    pub done: DeviceSlice<u64>,
}

/// The ranks whose entries rank `me` of `size` reads, which are also those
/// that read its entries (a band is symmetric): `me`'s neighbours, as the
/// range `lo..hi` of ranks around it.
#[inline(always)]
fn neighbours(n: u32, size: u32, band: u32, me: u32) -> (u32, u32) {
    let want = reach(split(n, size, me), band, n);
    let mut lo = me;
    while lo > 0 && split(n, size, lo - 1).1 > want.0 {
        lo -= 1;
    }
    let mut hi = me + 1;
    while hi < size && split(n, size, hi).0 < want.1 {
        hi += 1;
    }
    (lo, hi)
}

// ANCHOR: spmv
#[rank]
pub fn spmv(rank: &mut Rank, args: &SpmvArgs) {
    let world = rank.world();
    let (me, size, n) = (world.rank(), world.size(), args.n);
    let first = me - rank.device().rank(); // the process's first rank
    let (on_device, base) = (rank.device().size(), split(n, size, first).0);
    let mine = split(n, size, me);
    let (lo, hi) = neighbours(n, size, args.band, me);
    let wins = [
        rank.win_create(world, args.xa),
        rank.win_create(world, args.xb),
    ];
    let threads = rank.threads_per_rank();
    let rows = (mine.0 - base, mine.1 - base);
    let mut scale = args.scale;
    let mut last = 0.0f64;
    let mut done = 0;
    rank.barrier(world);
    let started = rank.timestamp();
    while done < args.iters {
        let k = done;
        let (old, new) = if k % 2 == 0 {
            (args.xa, args.xb)
        } else {
            (args.xb, args.xa)
        };
        let squares = rank.trace("compute", |rank| {
            // SAFETY: the host built `matrix` well formed; the rank writes
            // only its entries of `new` and reads `old`, which no one
            // writes now: the neighbours' puts into it came before the
            // last wait, and they write `new` only after this rank's
            // notification of this product.
            rank.reduce(
                |t| unsafe {
                    let (matrix, xy) = (&args.matrix, &(old, new));
                    product_rows_apart(matrix, xy, base, rows, scale, t.index(), threads)
                },
                Sum,
            )
        });
        // The entries each neighbour reads go to it; on this process they
        // are in place, and a notification says they are ready.
        let (win, tag) = (wins[(k as usize + 1) % 2], k % 2);
        for t in (lo..hi).filter(|&t| t != me) {
            if (first..first + on_device).contains(&t) {
                rank.notify(world, t, tag);
            } else {
                let (a, b) = overlap(mine, reach(split(n, size, t), args.band, n));
                let part = new.slice(a as usize..b as usize);
                rank.put_notify(win, t, a as usize, part, tag);
            }
        }
        let total = if args.power != 0 {
            rank.allreduce(world, squares, Sum)
        } else {
            0.0
        };
        rank.wait_notifications(tag, hi - lo - 1);
        done += 1;
        if args.power != 0 {
            let norm = arch::sqrt(total);
            if me == 0 {
                // SAFETY: world rank 0 alone writes the norms, uniformly.
                unsafe { args.norms.write(k as usize, norm) };
            }
            scale = 1.0 / norm;
            // Every rank has the same norm, so all stop together.
            if k > 0 && (norm - last).abs() <= args.tol * norm {
                break;
            }
            last = norm;
        }
    }
    rank.barrier(world);
    let elapsed = rank.timestamp() - started;
    let longest = rank.allreduce(world, elapsed, Max);
    if me == 0 {
        // SAFETY: as above.
        unsafe {
            args.done.write(0, done as u64);
            args.done.write(1, longest);
        }
    }
    rank.win_free(wins[0]);
    rank.win_free(wins[1]);
}
// ANCHOR_END: spmv
