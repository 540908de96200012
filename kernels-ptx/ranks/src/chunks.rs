//! The collectives over chunks (`allgather_into`, `gather_into`,
//! `scatter_from`, `alltoall_into`, `reduce_scatter_into`) over the world
//! and a dup of it, over rails (one rank per GPU) and over an interleaved
//! split of the world in reversed order; and `scan_over`/`exscan_over` inside a GPU and
//! across processes.

use crate::runtime_checks::fill;
use dcuda_device::{rank, DeviceSlice, Rank, Sum};

/// Arguments of [`chunk_collectives`](CHUNK_COLLECTIVES).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ChunkArgs {
    /// Elements per chunk.
    pub len: u32,
    /// 0: a dup of the world; 1: rails (one communicator per device rank);
    /// 2: the world split by parity of world rank, in reversed order; 3:
    /// the world itself.
    pub mode: u32,
    /// World size times `len` per rank: the sources.
    pub src: DeviceSlice<u64>,
    /// [`chunk_results`] per rank.
    pub out: DeviceSlice<u64>,
}

/// Words per rank of [`ChunkArgs::out`] in a world of `world` ranks:
/// allgather, gather and alltoall results (`world * len` each), scatter and
/// reduce-scatter results (`len` each), then [`SCANS`] words.
pub const fn chunk_results(world: u32, len: u32) -> usize {
    (3 * world as usize + 2) * len as usize + SCANS
}

/// Words of scan results per rank: `scan_over` and `exscan_over` (`NONE`
/// on rank 0) of the world rank over the device, `scan_over` of the
/// device rank over the device's even or odd ranks in reversed order,
/// `scan_over` of the world rank over the world, and `exscan_over` of the
/// world rank over the mode's communicator.
pub const SCANS: usize = 5;

/// What an `exscan_over` records on rank 0.
pub const NONE: u64 = u64::MAX - 1;

/// Element `e` of chunk `j` of world rank `w`'s source.
pub const fn chunk_value(w: u32, j: u32, e: u32) -> u64 {
    ((w as u64 * 7919 + j as u64 * 65_537 + e as u64 * 104_729) % 1_000_003) + 1
}

/// The color and key of world rank `w` in `mode`, for a world of `size`.
pub const fn chunk_split(mode: u32, w: u32, dev: u32, size: u32) -> (u32, u32) {
    match mode {
        0 | 3 => (0, w),
        1 => (dev, w),
        _ => (w % 2, size - w),
    }
}

// ANCHOR: chunks
#[rank]
pub fn chunk_collectives(rank: &mut Rank, args: &ChunkArgs) {
    let world = rank.world();
    let (w, id, len) = (world.rank(), rank.id(), args.len as usize);
    let (color, key) = chunk_split(args.mode, w, id, world.size());
    let made = match args.mode {
        3 => Some(world),
        _ => rank.comm_split(world, Some(color), key),
    };
    let Some(comm) = made else {
        return;
    };
    let (size, me) = (comm.size() as usize, comm.rank());
    let cap = world.size() as usize * len;
    let src = args.src.chunk(id as usize, cap);
    let out = args
        .out
        .chunk(id as usize, chunk_results(world.size(), args.len));
    let region = |k: usize, n: usize| out.slice(k * cap..k * cap + n);
    let (last, middle) = (size as u32 - 1, size as u32 / 2);

    fill(rank, src, |i| {
        chunk_value(w, (i / len) as u32, (i % len) as u32)
    });
    let mine = src.slice(0..len);
    rank.allgather_into(comm, mine, region(0, size * len));
    let to = if me == last {
        region(1, size * len)
    } else {
        DeviceSlice::empty()
    };
    rank.gather_into(comm, last, mine, to);
    let all = src.slice(0..size * len);
    let from = if me == middle {
        all
    } else {
        DeviceSlice::empty()
    };
    let scattered = out.slice(3 * cap..3 * cap + len);
    rank.scatter_from(comm, middle, from, scattered);
    rank.alltoall_into(comm, all, region(2, size * len));
    let reduced = out.slice(3 * cap + len..3 * cap + 2 * len);
    rank.reduce_scatter_into(comm, all, reduced, Sum);
    let mut got = [0u64; SCANS];
    got[4] = rank.exscan_over(comm, w as u64, Sum).unwrap_or(NONE);
    if comm != world {
        rank.comm_free(comm);
    }
    got[3] = rank.scan_over(world, w as u64, Sum);

    // Scans inside the GPU: over the device, and over half of it.
    let device = rank.device();
    got[0] = rank.scan_over(device, w as u64, Sum);
    got[1] = rank.exscan_over(device, w as u64, Sum).unwrap_or(NONE);
    if let Some(half) = rank.comm_split(device, Some(id % 2), u32::MAX - id) {
        got[2] = rank.scan_over(half, id as u64, Sum);
        rank.comm_free(half);
    }
    let scans = out.slice(3 * cap + 2 * len..3 * cap + 2 * len + SCANS);
    rank.threads(|t| {
        if let Some(v) = got.get(t.index() as usize) {
            // SAFETY: each thread writes its own word of this rank's results.
            unsafe { scans.write(t.index() as usize, *v) };
        }
    });
}
// ANCHOR_END: chunks
