//! Typed transfers of random datatypes (tests/tests/typed.rs, with
//! proptest): the shapes come from the host, so the copy's every path
//! (elements or 16-byte units, one cursor or two) meets shapes no one
//! wrote by hand.

use dcuda_device::{rank, Datatype, DeviceSlice, Rank};

/// Arguments of [`typed_random`](TYPED_RANDOM).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct RandomTypedArgs {
    /// The read side's datatype, over a rank's `data`.
    pub from: Datatype,
    /// The written side's datatype, over a rank's results.
    pub to: Datatype,
    /// Per rank: `data_len` words, filled by the host.
    pub data: DeviceSlice<u32>,
    /// Per rank: `2 × out_len` words, zero: what the put brings, then what
    /// the get brings.
    pub out: DeviceSlice<u32>,
    /// Words of data a rank.
    pub data_len: u32,
    /// Words of each result a rank (the put's target window).
    pub out_len: u32,
    /// 0: both transfers; 1: only the put (its window may be too small).
    pub put_only: u32,
    /// Per rank: `from`'s elements of its data, packed by
    /// [`pack`] (`from.size()` words).
    pub packed: DeviceSlice<u32>,
}

// ANCHOR: cursor
/// Packs the elements `layout` names in `data` into `out`, element `e`
/// at `out[e]`: each thread walks every `threads`-th element with a
/// cursor, so no offset is divided out of `e`.
pub fn pack(rank: &mut Rank, layout: Datatype, data: DeviceSlice<u32>, out: DeviceSlice<u32>) {
    let threads = rank.threads_per_rank() as u64;
    let size = layout.size().min(out.len() as u64);
    rank.threads(|t| {
        let mut e = t.index() as u64;
        let mut at = layout.cursor(e, threads);
        while e < size {
            let from = at.offset() as usize;
            if from < data.len() {
                // SAFETY: inside the buffers; element `e` is this thread's.
                unsafe { out.write(e as usize, data.read(from)) };
            }
            at.advance();
            e += threads;
        }
    });
}
// ANCHOR_END: cursor

/// On two ranks: each packs `from` of its data ([`pack`]); rank 0 puts
/// `from` of its data into `to` of rank 1's first result (`put_typed`),
/// and rank 1 gets `from` of rank 0's data into `to` of its second
/// (`get_typed`).
#[rank]
pub fn typed_random(rank: &mut Rank, args: &RandomTypedArgs) {
    let world = rank.world();
    let me = world.rank();
    let (n, m) = (args.data_len as usize, args.out_len as usize);
    let data = args.data.chunk(me as usize, n);
    let out = args.out.chunk(me as usize, 2 * m);
    let (put_into, get_into) = (out.slice(0..m), out.slice(m..2 * m));
    let (sources, targets) = (
        rank.win_create(world, data),
        rank.win_create(world, put_into),
    );
    let packed = args.packed.chunk(me as usize, args.from.size() as usize);
    pack(rank, args.from, data, packed);
    rank.barrier(world);
    if me == 0 {
        rank.put_typed(targets, 1, (0, args.to), (data, args.from));
    } else if me == 1 && args.put_only == 0 {
        rank.get_typed(sources, 0, (0, args.from), (get_into, args.to));
    }
    rank.barrier(world);
    rank.win_free(targets);
    rank.win_free(sources);
}
