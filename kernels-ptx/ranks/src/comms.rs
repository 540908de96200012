//! Communicators made inside the kernel: splits of the world (across
//! processes too), splits of those, splits of the device communicator with
//! a window on them, and dups; every round frees what it made, so the
//! slots are reused.

use crate::runtime_checks::fill;
use dcuda_device::{rank, DeviceSlice, Max, Rank, SplitType, Sum};

/// Arguments of [`comm_splits`](COMM_SPLITS).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct SplitArgs {
    /// Rounds (more than the 14 slots, so that freed slots are reused).
    pub rounds: u32,
    /// One element per rank: its window on the device split.
    pub win: DeviceSlice<u64>,
    /// Per rank and round, [`SPLIT_RESULTS`] words.
    pub out: DeviceSlice<u64>,
}

/// What `comm_splits` records for a `reduce_to` off its root.
pub const NONE: u64 = u64::MAX - 1;

/// Words per rank and round in [`SplitArgs::out`].
pub const SPLIT_RESULTS: usize = 12;

/// The color of world rank `w` in round `round` (`None`: no communicator).
pub const fn split_color(w: u32, round: u32) -> Option<u32> {
    if w % 5 == 4 {
        None
    } else {
        Some((w + round) % 3)
    }
}

// ANCHOR: splits
#[rank]
pub fn comm_splits(rank: &mut Rank, args: &SplitArgs) {
    let world = rank.world();
    let (w, size, id) = (world.rank(), world.size(), rank.id());
    for round in 0..args.rounds {
        let mut got = [u64::MAX; SPLIT_RESULTS];
        // Reversed order: key size - w.
        if let Some(c) = rank.comm_split(world, split_color(w, round), size - w) {
            got[0] = c.rank() as u64;
            got[1] = c.size() as u64;
            got[2] = rank.allreduce(c, w, Sum) as u64;
            got[3] = rank.bcast(c, 0, w) as u64;
            got[4] = rank.reduce_to(c, 0, w, Max).map_or(NONE, u64::from);
            rank.barrier(c);
            // A split of the split, in its order (every key the same).
            let half = rank.comm_split(c, Some(c.rank() % 2), 0);
            if let Some(d) = half {
                got[5] = d.rank() as u64;
                got[6] = d.size() as u64;
                got[7] = rank.allreduce(d, w, Sum) as u64;
                rank.comm_free(d);
            }
            rank.comm_free(c);
        }
        // Even and odd ranks of this device, each a ring with a window.
        if let Some(e) = rank.comm_split(rank.device(), Some(id % 2), id) {
            let mine = args.win.chunk(id as usize, 1);
            let win = rank.win_create(e, mine);
            let next = (e.rank() + 1) % e.size();
            let src = args.out.chunk(
                ((id * args.rounds + round) as usize) * SPLIT_RESULTS + 11,
                1,
            );
            // SAFETY: one word of this rank's own results, sent from below.
            rank.threads(|t| {
                if t.index() == 0 {
                    unsafe { src.write(0, w as u64) };
                }
            });
            rank.put_notify(win, next, 0, src, 7);
            rank.wait_notifications(7, 1);
            rank.flush(win);
            got[8] = rank.single(|_| unsafe { mine.read(0) });
            got[9] = rank.allreduce(e, id, Sum) as u64;
            rank.win_free(win);
            rank.comm_free(e);
        }
        let dup = rank.comm_dup(world);
        got[10] = rank.allreduce(dup, 1u32, Sum) as u64;
        rank.comm_free(dup);
        got[11] = w as u64;
        let base = (id * args.rounds + round) as usize * SPLIT_RESULTS;
        rank.threads(|t| {
            if let Some(v) = got.get(t.index() as usize) {
                // SAFETY: each thread writes its own word of this rank's round.
                unsafe { args.out.write(base + t.index() as usize, *v) };
            }
        });
    }
}
// ANCHOR_END: splits

/// Arguments of [`allreduce_across`](ALLREDUCE_ACROSS).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct AcrossArgs {
    /// Elements per rank.
    pub len: u32,
    /// 0: over a dup of the world; 1: over the rank's rail (the ranks of
    /// its device rank on every process, made by a split); 2: over the
    /// world itself.
    pub rails: u32,
    /// `len` per rank: the `u64` sum.
    pub sums: DeviceSlice<u64>,
    /// `len` per rank: each rank's values as `f64`, summed in place.
    pub reals: DeviceSlice<f64>,
}

/// Element `i` of world rank `w`'s input.
pub const fn across_value(w: u32, i: u32) -> u64 {
    ((w as u64 * 7919 + i as u64 * 104_729) % 100_003) + 1
}

// ANCHOR: rails
/// `allreduce_into` of slices across processes: over the world, or over
/// one communicator per device rank (a "rail"), where every rank is its
/// GPU's representative and all rails move their data at once.
#[rank]
pub fn allreduce_across(rank: &mut Rank, args: &AcrossArgs) {
    let world = rank.world();
    let (w, id, len) = (world.rank(), rank.id(), args.len as usize);
    let comm = match args.rails {
        0 => Some(rank.comm_dup(world)),
        1 => rank.comm_split(world, Some(id), w),
        _ => Some(world),
    };
    let Some(comm) = comm else { return };
    let sums = args.sums.chunk(id as usize, len);
    let reals = args.reals.chunk(id as usize, len);
    fill(rank, sums, |i| across_value(w, i as u32));
    fill(rank, reals, |i| across_value(w, i as u32) as f64 * 0.5);
    rank.allreduce_into(comm, sums, sums, Sum);
    rank.allreduce_into(comm, reals, reals, Sum);
    if comm != world {
        rank.comm_free(comm);
    }
}
// ANCHOR_END: rails

/// Words per rank in the output of [`split_types`](SPLIT_TYPES).
pub const TYPE_RESULTS: usize = 7;

// ANCHOR: split_type
/// `comm_split_type` of the world by GPU and by node, each in reversed
/// world order (key `size - w`): every rank records its rank, size and the
/// sum of world ranks in both, and what came round a ring of notified
/// puts over a window on its GPU's communicator.
#[rank]
pub fn split_types(rank: &mut Rank, out: &DeviceSlice<u64>) {
    let world = rank.world();
    let (w, size, id) = (world.rank(), world.size(), rank.id());
    let gpu = rank.comm_split_type(world, SplitType::Gpu, size - w);
    let node = rank.comm_split_type(world, SplitType::Node, size - w);
    let mut got = [
        gpu.rank() as u64,
        gpu.size() as u64,
        rank.allreduce(gpu, w, Sum) as u64,
        node.rank() as u64,
        node.size() as u64,
        rank.allreduce(node, w, Sum) as u64,
        u64::MAX,
    ];
    let base = id as usize * TYPE_RESULTS;
    let mine = out.chunk(base + TYPE_RESULTS - 1, 1);
    let win = rank.win_create(gpu, mine);
    let src = out.chunk(base, 1);
    // SAFETY: one word of this rank's own results, overwritten below.
    rank.threads(|t| {
        if t.index() == 0 {
            unsafe { src.write(0, w as u64) };
        }
    });
    rank.put_notify(win, (gpu.rank() + 1) % gpu.size(), 0, src, 3);
    rank.wait_notifications(3, 1);
    rank.flush(win);
    rank.win_free(win);
    got[TYPE_RESULTS - 1] = rank.single(|_| unsafe { mine.read(0) });
    rank.comm_free(node);
    rank.comm_free(gpu);
    rank.threads(|t| {
        if let Some(v) = got.get(t.index() as usize) {
            // SAFETY: each thread writes its own word of this rank's results.
            unsafe { out.write(base + t.index() as usize, *v) };
        }
    });
}
// ANCHOR_END: split_type
