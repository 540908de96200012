//! Integer collectives whose results the host can check exactly, for any
//! number of warps per rank; and a kernel that breaks the rules in a way the
//! macro cannot see (a helper function outside it), which the emulator
//! reports at run time.

use crate::runtime_checks::fill;
use dcuda_device::{arch, rank, BitAnd, BitOr, BitXor, DeviceSlice, Max, Min, Prod, Rank, Sum};

/// Arguments of [`int_collectives`](INT_COLLECTIVES).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CollectiveArgs {
    /// Per rank: sum, min, max, broadcast value, product, and, or, xor
    /// ([`RESULTS`] values).
    pub results: DeviceSlice<u32>,
    /// Per element: inclusive prefix sum within the rank.
    pub scans: DeviceSlice<u32>,
}

/// Results per rank in [`CollectiveArgs::results`].
pub const RESULTS: usize = 8;

/// The value thread `t` of rank `r` contributes.
pub const fn value(rank: u32, thread: u32) -> u32 {
    (thread * 7 + rank * 3) % 101 + 1
}

#[rank]
pub fn int_collectives(rank: &mut Rank, args: &CollectiveArgs) {
    let id = rank.id();
    let n = rank.threads_per_rank();
    let sum = rank.reduce(|t| value(id, t.index()), Sum);
    let min = rank.reduce(|t| value(id, t.index()), Min);
    let max = rank.reduce(|t| value(id, t.index()), Max);
    let scan = rank.scan(|t| value(id, t.index()), Sum);
    let broadcast = rank.single(|t| t.index() + 1000 * id);
    let prod = rank.reduce(|t| value(id, t.index()), Prod);
    let and = rank.reduce(|t| value(id, t.index()) | 0x100, BitAnd);
    let or = rank.reduce(|t| value(id, t.index()), BitOr);
    let xor = rank.reduce(|t| value(id, t.index()), BitXor);
    rank.threads(|t| unsafe { args.scans.write((id * n + t.index()) as usize, scan.get(t)) });
    let base = id as usize * RESULTS;
    let all = [sum, min, max, broadcast, prod, and, or, xor];
    rank.threads(|t| {
        if let Some(v) = all.get(t.index() as usize) {
            // SAFETY: each thread writes its own element of this rank's results.
            unsafe { args.results.write(base + t.index() as usize, *v) };
        }
    });
}

/// Reads the thread index in uniform code, hidden in a helper the macro
/// does not see. The emulator stops it with a message.
fn hidden_thread_index() -> u32 {
    arch::thread_idx().x
}

/// Arguments of [`hidden_misuse`](HIDDEN_MISUSE).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct MisuseArgs {
    /// One element per rank.
    pub out: DeviceSlice<u32>,
}

#[rank]
pub fn hidden_misuse(rank: &mut Rank, args: &MisuseArgs) {
    let i = hidden_thread_index();
    unsafe { args.out.write(rank.id() as usize, i) };
}

/// Panics in rank 2: the launch fails with a message naming the rank.
#[rank]
pub fn rank_panics(rank: &mut Rank, args: &MisuseArgs) {
    if rank.id() == 2 {
        panic!("rank 2 gives up");
    }
    rank.sync_threads();
    unsafe { args.out.write(rank.id() as usize, 1) };
}

/// Arguments of [`allreduce_bcast`](ALLREDUCE_BCAST).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct RankCollectiveArgs {
    /// Rounds of collectives.
    pub rounds: u32,
    /// 0: on the world communicator; 1: on the device communicator.
    pub device: u32,
    /// Per rank and round, [`ROUND_RESULTS`] words.
    pub out: DeviceSlice<u64>,
}

/// Words per rank and round in [`RankCollectiveArgs::out`]: sum, min, max,
/// xor, the bits of an `f64` sum, and a broadcast value.
pub const ROUND_RESULTS: usize = 6;

/// What rank `rank` contributes in round `round`.
pub const fn rank_value(rank: u32, round: u32) -> u32 {
    (rank * 13 + round * 7) % 97 + 1
}

// ANCHOR: allreduce
/// Collectives between ranks, several rounds (the slots' two parities are
/// reused): allreduce with several ops and types, and a broadcast from a
/// root that moves each round.
#[rank]
pub fn allreduce_bcast(rank: &mut Rank, args: &RankCollectiveArgs) {
    let comm = if args.device == 1 {
        rank.device()
    } else {
        rank.world()
    };
    let me = comm.rank();
    for round in 0..args.rounds {
        let v = rank_value(me, round);
        let sum = rank.allreduce(comm, v, Sum);
        let min = rank.allreduce(comm, v, Min);
        let max = rank.allreduce(comm, v, Max);
        let xor = rank.allreduce(comm, v, BitXor);
        let real = rank.allreduce(comm, v as f64 * 0.1, Sum);
        let root = round % comm.size();
        let from_root = rank.bcast(comm, root, me * 1000 + round);
        let got = [
            sum as u64,
            min as u64,
            max as u64,
            xor as u64,
            real.to_bits(),
            from_root as u64,
        ];
        let base = (rank.id() * args.rounds + round) as usize * ROUND_RESULTS;
        rank.threads(|t| {
            if let Some(w) = got.get(t.index() as usize) {
                // SAFETY: each thread writes its own word of this rank's round.
                unsafe { args.out.write(base + t.index() as usize, *w) };
            }
        });
    }
}
// ANCHOR_END: allreduce

/// Arguments of [`allreduce_slices`](ALLREDUCE_SLICES).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct SliceReduceArgs {
    /// Elements per rank.
    pub len: u32,
    /// 0: every rank passes `len`; 1: rank 1 passes one element less.
    pub case: u32,
    /// `len` per rank: each rank's input (filled by the kernel).
    pub input: DeviceSlice<u32>,
    /// `len` per rank: each rank's result of the u32 sum.
    pub sums: DeviceSlice<u32>,
    /// `len` per rank: each rank's inputs as f64, reduced in place.
    pub reals: DeviceSlice<f64>,
}

/// Element `i` of rank `r`'s input.
pub const fn slice_value(rank: u32, i: u32) -> u32 {
    (rank * 31 + i * 17) % 1009
}

/// `allreduce_into` over every rank of the device: a `u32` sum into a
/// separate destination, an `f64` sum in place, and a `Max` in place.
/// Case 1: rank 1 passes one element less; case 2: rank 1 passes `f64`s
/// where the others pass `u32`s.
#[rank]
pub fn allreduce_slices(rank: &mut Rank, args: &SliceReduceArgs) {
    let comm = rank.device();
    let (me, len) = (rank.id(), args.len as usize);
    let input = args.input.chunk(me as usize, len);
    let sums = args.sums.chunk(me as usize, len);
    let reals = args.reals.chunk(me as usize, len);
    fill(rank, input, |i| slice_value(me, i as u32));
    fill(rank, reals, |i| slice_value(me, i as u32) as f64 * 0.5);
    let short = if args.case == 1 && me == 1 {
        len - 1
    } else {
        len
    };
    if args.case == 2 && me == 1 {
        // The same length, but elements of 8 bytes where the others pass 4.
        rank.allreduce_into(comm, reals, reals, Sum);
    } else {
        rank.allreduce_into(comm, input.slice(0..short), sums.slice(0..short), Sum);
    }
    rank.allreduce_into(comm, reals, reals, Sum);
}
