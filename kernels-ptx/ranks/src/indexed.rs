//! Indexed layouts between the ranks of one GPU (tests/tests/typed.rs): a
//! gather of scattered elements, a scatter into blocks of different
//! lengths, and blocks of different lengths into single elements.

use super::runtime_checks::fill;
use dcuda_device::{rank, Datatype, DeviceSlice, Indexed, Rank};

/// Arguments of [`indexed_exchange`](INDEXED_EXCHANGE).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct IndexedArgs {
    /// Per-rank data, `n` words: rank `r`'s word `k` is `r * 100000 + k`.
    pub data: DeviceSlice<u32>,
    /// Per-rank results, three parts of `n` words, zero but for what
    /// arrives.
    pub out: DeviceSlice<u32>,
    /// Words of a rank's data and of each part of its results.
    pub n: u32,
    /// Single elements to gather, in any order, repeats allowed.
    pub picks: DeviceSlice<u32>,
    /// Blocks of different lengths, in increasing order without overlap:
    /// where each starts among the elements moved, then the total.
    pub firsts: DeviceSlice<u32>,
    /// Where each of those blocks lies.
    pub displacements: DeviceSlice<u32>,
    /// As many single elements as those blocks hold, increasing.
    pub spots: DeviceSlice<u32>,
}

// ANCHOR: indexed
/// Each rank gathers the elements `picks` names from its data into the
/// first part of the next rank's results (contiguous), scatters the first
/// elements of the previous rank's data into the blocks of its second
/// part, and puts those blocks of its data into the single elements
/// `spots` names in the third part of the next rank's results.
#[rank]
pub fn indexed_exchange(rank: &mut Rank, args: &IndexedArgs) {
    let world = rank.world();
    let (me, size, dev) = (world.rank(), world.size(), rank.device().rank());
    let n = args.n as usize;
    let data = args.data.chunk(dev as usize, n);
    let out = args.out.chunk(dev as usize, 3 * n);
    fill(rank, data, |k| me * 100_000 + k as u32);
    fill(rank, out, |_| 0);
    let (values, results) = (rank.win_create(world, data), rank.win_create(world, out));
    rank.barrier(world);
    let (left, right) = ((me + size - 1) % size, (me + 1) % size);
    let picked = Datatype::contiguous(args.picks.len() as u32);
    let gather = Indexed::blocks(1, args.picks);
    rank.put_notify_typed(results, right, (0, picked), (data, gather), 1);
    let Ok(blocks) = Indexed::new(args.firsts, args.displacements) else {
        rank.abort(1, [0; 3]) // The test passes matching lengths.
    };
    let moved = Datatype::contiguous(args.spots.len() as u32);
    rank.get_typed(values, left, (0, moved), (out.slice(n..2 * n), blocks));
    let spots = Indexed::blocks(1, args.spots);
    rank.put_notify_typed(results, right, (2 * n, spots), (data, blocks), 1);
    rank.wait_notifications(1, 2);
    rank.barrier(world);
    rank.win_free(results);
    rank.win_free(values);
}
// ANCHOR_END: indexed
