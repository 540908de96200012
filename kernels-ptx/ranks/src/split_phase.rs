//! The split-phase allreduce: results against the blocking one, with
//! notifications between start and finish, on the world's and the
//! device's communicators and a split one; and its misuse.

use dcuda_device::{rank, DeviceSlice, Min, Rank, Sum};

/// Arguments of [`split_allreduce`](SPLIT_ALLREDUCE).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct SplitArgs {
    /// Rounds.
    pub rounds: u32,
    /// 0: correct use; 1: a barrier while one is pending; 2: a second
    /// start while one is pending; 3: the body ends with one pending.
    pub case: u32,
    /// Per rank of the device and round, [`SPLIT_RESULTS`] words.
    pub out: DeviceSlice<u64>,
}

/// Words per rank and round in [`SplitArgs::out`]: per communicator
/// (world, device, the split by parity of rank) the split-phase sum's bits
/// (`f64`), the blocking sum's bits, and the split-phase min.
pub const SPLIT_RESULTS: usize = 9;

/// What rank `rank` contributes in round `round` (not exact in binary, so
/// the order of the sum shows in its bits).
pub fn split_value(rank: u32, round: u32) -> f64 {
    ((rank * 29 + round * 11) % 101) as f64 * 0.1 + 0.01
}

#[rank]
pub fn split_allreduce(rank: &mut Rank, args: &SplitArgs) {
    let world = rank.world();
    let device = rank.device();
    let halves = rank.comm_split(world, Some(world.rank() % 2), world.rank());
    let halves = halves.expect("every rank has a color");
    let me = world.rank();
    for round in 0..args.rounds {
        let v = split_value(me, round);
        let mut got = [0u64; SPLIT_RESULTS];
        for (c, comm) in [world, device, halves].into_iter().enumerate() {
            // ANCHOR: split
            let sum = rank.allreduce_start(comm, v, Sum);
            if args.case == 1 {
                rank.barrier(comm);
            }
            if args.case == 2 {
                let _second = rank.allreduce_start(comm, v, Sum);
            }
            // Point-to-point between start and finish: a ring of notifications.
            let n = comm.size();
            rank.notify(comm, (comm.rank() + 1) % n, 3);
            rank.wait_notifications(3, 1);
            if args.case == 3 {
                let _unfinished = sum;
                return;
            }
            let sum = rank.allreduce_finish(sum);
            // ANCHOR_END: split
            let min = rank.allreduce_start(comm, me, Min);
            let min = rank.allreduce_finish(min);
            let blocking = rank.allreduce(comm, v, Sum);
            got[3 * c] = sum.to_bits();
            got[3 * c + 1] = blocking.to_bits();
            got[3 * c + 2] = min as u64;
        }
        let base = (rank.id() * args.rounds + round) as usize * SPLIT_RESULTS;
        rank.threads(|t| {
            if let Some(w) = got.get(t.index() as usize) {
                // SAFETY: each thread writes its own word of this rank's round.
                unsafe { args.out.write(base + t.index() as usize, *w) };
            }
        });
    }
    rank.comm_free(halves);
}
