//! Typed transfers between the ranks of one GPU (tests/tests/typed.rs):
//! a column into a row, and a sub-block into a differently shaped one.

use super::runtime_checks::fill;
use dcuda_device::{rank, Datatype, DeviceSlice, Rank, Tile, Tile3, TypeError};

/// Arguments of [`typed_exchange`](TYPED_EXCHANGE).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TypedArgs {
    /// Per-rank `n × n` matrices, row-major: rank `r`'s element `k` is
    /// `r * 100000 + k`.
    pub data: DeviceSlice<u32>,
    /// Per-rank results: `4 n²` words, zero but for what arrives.
    pub out: DeviceSlice<u32>,
    /// The matrices' side (at least 6).
    pub n: u32,
}

/// A datatype the kernel's shapes always make.
fn made(t: Result<Datatype, TypeError>) -> Datatype {
    match t {
        Ok(t) => t,
        Err(_) => panic!("a datatype of the test's own shapes"),
    }
}

// ANCHOR: typed
/// Each rank puts column `me % n` of its matrix into row `me % n` of the
/// next rank's first result matrix (and, unnotified, at the end, row
/// `me % n + 1` into the last column of its second), then gets the 2 × 3 block at (1, 2)
/// of the previous rank's matrix into the 3 × 2 block at (3, 1) of its
/// second result matrix (element `e` of one to element `e` of the other),
/// the previous rank's whole matrix, transposed, into its third, and the
/// first 8 columns of the previous rank's matrix into columns 8 to 15 of
/// its fourth (whole 16-byte units: `n` a multiple of 4).
#[rank]
pub fn typed_exchange(rank: &mut Rank, args: &TypedArgs) {
    let world = rank.world();
    let (me, size, dev) = (world.rank(), world.size(), rank.device().rank());
    let n = args.n;
    let nn = (n * n) as usize;
    let data = args.data.chunk(dev as usize, nn);
    let out = args.out.chunk(dev as usize, 4 * nn);
    fill(rank, data, |k| me * 100_000 + k as u32);
    fill(rank, out, |_| 0);
    let (matrices, results) = (rank.win_create(world, data), rank.win_create(world, out));
    rank.barrier(world);
    let (left, right) = ((me + size - 1) % size, (me + 1) % size);
    let c = me % n;
    let column = made(Datatype::vector(n, 1, n as u64).shifted(c as u64));
    let row = Datatype::contiguous(n);
    rank.put_notify_typed(results, right, ((c * n) as usize, row), (data, column), 1);
    rank.wait_notifications(1, 1);
    let wide = made(Datatype::subarray_2d([n, n], [2, 3], [1, 2]));
    let tall = made(Datatype::subarray_2d([n, n], [3, 2], [3, 1]));
    rank.get_typed(matrices, left, (0, wide), (out.slice(nn..2 * nn), tall));
    // Row i of the left matrix into column i: a vector of columns.
    let transposed = made(Datatype::vector_of(n, 1, Datatype::vector(n, 1, n as u64)));
    let all = Datatype::contiguous(n * n);
    rank.get_typed(
        matrices,
        left,
        (0, all),
        (out.slice(2 * nn..3 * nn), transposed),
    );
    let columns = Datatype::vector(n, 8, n as u64);
    let moved = made(columns.shifted(8));
    rank.get_typed(
        matrices,
        left,
        (0, columns),
        (out.slice(3 * nn..4 * nn), moved),
    );
    // Unnotified, into a column (through the hosts, a piece placed at the
    // target): the barrier after it completes it there.
    let d = ((c + 1) % n) as usize;
    let last_column = made(Datatype::vector(n, 1, n as u64).shifted((n - 1) as u64));
    let next_row = data.slice(d * n as usize..(d + 1) * n as usize);
    rank.put_typed(results, right, (nn, last_column), (next_row, row));
    rank.barrier(world);
    rank.win_free(results);
    rank.win_free(matrices);
}
// ANCHOR_END: typed

/// Arguments of [`halo_2d`](HALO_2D).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct HaloArgs {
    /// Per-rank tile arrays, `stride` words each.
    pub tiles: DeviceSlice<u32>,
    /// Words a rank's part of `tiles` takes (at least its tile's length).
    pub stride: u32,
    /// The grid's points: rows and columns.
    pub grid: [u32; 2],
    /// The ranks' grid: rows and columns of ranks (world rank `i * px + j`
    /// at row `i`, column `j`).
    pub ranks: [u32; 2],
    /// The frame's width.
    pub halo: u32,
}

/// Rows `0..n` split in `parts`: part `i`'s count (the first ones one
/// larger when it does not divide).
pub fn share(n: u32, parts: u32, i: u32) -> u32 {
    n / parts + (i < n % parts) as u32
}

/// Rank `(i, j)`'s tile.
pub fn tile_of(args: &HaloArgs, (i, j): (u32, u32)) -> Tile {
    Tile {
        rows: share(args.grid[0], args.ranks[0], i),
        cols: share(args.grid[1], args.ranks[1], j),
        halo: args.halo,
    }
}

// ANCHOR: halo
/// Every rank fills its tile's interior with `rank · 10000 + row · 100 +
/// column` (interior coordinates) and its frame with zeros, then exchanges
/// halos with the ranks beside it (not periodic).
#[rank]
pub fn halo_2d(rank: &mut Rank, args: &HaloArgs) {
    let world = rank.world();
    let me = world.rank();
    let [py, px] = args.ranks;
    let (i, j) = (me / px, me % px);
    let tile = tile_of(args, (i, j));
    let dev = rank.device().rank() as usize;
    let local = args
        .tiles
        .chunk(dev, args.stride as usize)
        .slice(0..tile.len());
    let (pitch, h) = (tile.pitch(), tile.halo);
    fill(rank, local, |k| {
        let (r, c) = (k as u32 / pitch, k as u32 % pitch);
        let inside = (h..h + tile.rows).contains(&r) && (h..h + tile.cols).contains(&c);
        if inside {
            me * 10_000 + (r - h) * 100 + (c - h)
        } else {
            0
        }
    });
    let win = rank.win_create(world, local);
    rank.barrier(world);
    let at = |i: u32, j: u32| Some((i * px + j, tile_of(args, (i, j))));
    let neighbours = [
        if i > 0 { at(i - 1, j) } else { None },
        if i + 1 < py { at(i + 1, j) } else { None },
        if j > 0 { at(i, j - 1) } else { None },
        if j + 1 < px { at(i, j + 1) } else { None },
    ];
    rank.halo_exchange_2d(win, (local, tile), neighbours, 2);
    rank.barrier(world);
    rank.win_free(win);
}
// ANCHOR_END: halo

/// Arguments of [`halo_3d`](HALO_3D).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Halo3Args {
    /// Per-rank block arrays, `stride` words each.
    pub blocks: DeviceSlice<u32>,
    /// Words a rank's part of `blocks` takes.
    pub stride: u32,
    /// The grid's points along z, y, x.
    pub grid: [u32; 3],
    /// The ranks along z, y, x (world rank `(a · py + b) · px + c`).
    pub ranks: [u32; 3],
    /// The frame's width.
    pub halo: u32,
}

/// Rank `at`'s block.
pub fn block_of(args: &Halo3Args, at: [u32; 3]) -> Tile3 {
    let d = |k: usize| share(args.grid[k], args.ranks[k], at[k]);
    Tile3 {
        dims: [d(0), d(1), d(2)],
        halo: args.halo,
    }
}

/// Every rank fills its block's interior with `rank · 10⁶ + z · 10⁴ + y ·
/// 100 + x` (interior coordinates) and its frame with zeros, then
/// exchanges faces with the ranks beside it (not periodic).
#[rank]
pub fn halo_3d(rank: &mut Rank, args: &Halo3Args) {
    let world = rank.world();
    let me = world.rank();
    let [pz, py, px] = args.ranks;
    let at = [me / (py * px), me / px % py, me % px];
    let tile = block_of(args, at);
    let dev = rank.device().rank() as usize;
    let local = args
        .blocks
        .chunk(dev, args.stride as usize)
        .slice(0..tile.len());
    let [sz, sy, sx] = tile.sizes();
    let h = tile.halo;
    fill(rank, local, |k| {
        let k = k as u32;
        let (z, y, x) = (k / (sy * sx), k / sx % sy, k % sx);
        let inside = |v: u32, n: u32| v >= h && v < n - h;
        if inside(z, sz) && inside(y, sy) && inside(x, sx) {
            me * 1_000_000 + (z - h) * 10_000 + (y - h) * 100 + (x - h)
        } else {
            0
        }
    });
    let win = rank.win_create(world, local);
    rank.barrier(world);
    let counts = [pz, py, px];
    let beside = |axis: usize, up: bool| {
        let mut to = at;
        if up && to[axis] + 1 < counts[axis] {
            to[axis] += 1;
        } else if !up && to[axis] > 0 {
            to[axis] -= 1;
        } else {
            return None;
        }
        Some(((to[0] * py + to[1]) * px + to[2], block_of(args, to)))
    };
    let neighbours = [
        beside(0, false),
        beside(0, true),
        beside(1, false),
        beside(1, true),
        beside(2, false),
        beside(2, true),
    ];
    rank.halo_exchange_3d(win, (local, tile), neighbours, 3);
    rank.barrier(world);
    rank.win_free(win);
}
