//! The distributed sum of dCUDA's guide (digest 000 §2.9), done right: a
//! block reduction per rank, then a binomial tree over the world ranks
//! written by hand with notified puts ([`distributed_sum`](DISTRIBUTED_SUM)), or the
//! library's `reduce_to` ([`distributed_sum_reduce`](DISTRIBUTED_SUM_REDUCE)).
//! [`block_sums`](BLOCK_SUMS) is the host-driven baseline's kernel: the same block
//! reduction, with the combining left to the host and MPI.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use dcuda_device::{rank, rank_log, DeviceSlice, Rank, Sum};

/// Arguments of [`distributed_sum`](DISTRIBUTED_SUM).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct SumArgs {
    /// `threads_per_rank` values per rank of this process (device rank
    /// order); each rank sums its own block.
    pub data: DeviceSlice<f64>,
    /// One slot per world rank; every rank's window is all of it (per
    /// process: ranks of one process share it).
    pub partials: DeviceSlice<f64>,
    /// Where world rank 0 writes the total (one element).
    pub result: DeviceSlice<f64>,
}

// ANCHOR: sum
#[rank]
pub fn distributed_sum(rank: &mut Rank, args: &SumArgs) {
    let world = rank.world();
    let (me, n) = (world.rank(), world.size());
    let base = (rank.device().rank() * rank.threads_per_rank()) as usize;

    // 1. Each rank sums its block: a block-collective reduction.
    let mut partial = block_sum(rank, args.data, base);

    // 2. A binomial tree. The windows of a process's ranks cover the same
    // array, so between them a rank's slot is the same address in every
    // window: the put copies nothing and only notifies. Between processes
    // it moves one value.
    let win = rank.win_create(world, args.partials);
    let mine = args.partials.slice(me as usize..me as usize + 1);
    rank.start_timer(0);
    let (mut step, mut round) = (1, 0);
    while step < n {
        if me % (2 * step) == step {
            // SAFETY: this rank's own slot, a uniform store.
            unsafe { mine.write(0, partial) };
            rank.put_notify(win, me - step, me as usize, mine, round);
        } else if me % (2 * step) == 0 && me + step < n {
            rank.wait_notifications(round, 1);
            // SAFETY: the sender wrote it before notifying.
            partial += unsafe { args.partials.read((me + step) as usize) };
        }
        step *= 2;
        round += 1;
    }
    rank.stop_timer(0);
    if me == 0 {
        // SAFETY: a uniform store of a uniform value.
        unsafe { args.result.write(0, partial) };
        rank_log!(rank, "sum of {} ranks = {}", n, partial);
    }
    rank.win_free(win);
}
// ANCHOR_END: sum

// ANCHOR: reduce
/// The same sum with the library's collective: block reductions, then one
/// `reduce_to` over the world (on one GPU through device memory, between
/// GPUs through each GPU's leader). Writes the total like
/// [`distributed_sum`](DISTRIBUTED_SUM).
#[rank]
pub fn distributed_sum_reduce(rank: &mut Rank, args: &SumArgs) {
    let world = rank.world();
    let base = (rank.device().rank() * rank.threads_per_rank()) as usize;
    let partial = block_sum(rank, args.data, base);
    rank.start_timer(0);
    let total = rank.reduce_to(world, 0, partial, Sum);
    rank.stop_timer(0);
    if let Some(total) = total {
        // SAFETY: a uniform store of a uniform value, on world rank 0 only.
        unsafe { args.result.write(0, total) };
    }
}
// ANCHOR_END: reduce

// ANCHOR: shared
/// The sum of the rank's block of `data`, from element `base` on: the
/// compute that the dcuda version and the baseline share.
#[inline(always)]
pub fn block_sum(rank: &mut Rank, data: DeviceSlice<f64>, base: usize) -> f64 {
    // SAFETY: the input is only read.
    rank.reduce(|t| unsafe { data.read(base + t.index() as usize) }, Sum)
}

/// The baseline's kernel: each rank writes its block's sum to
/// `partials[device rank]`; the host adds them up and MPI combines the
/// processes.
#[rank]
pub fn block_sums(rank: &mut Rank, args: &SumArgs) {
    let me = rank.device().rank() as usize;
    let partial = block_sum(rank, args.data, me * rank.threads_per_rank() as usize);
    // SAFETY: a uniform store of a uniform value to this rank's slot.
    unsafe { args.partials.write(me, partial) };
}
// ANCHOR_END: shared

/// Value `i` of the world's data, computable by every process: the input
/// both programs sum.
pub fn value(i: u64) -> f64 {
    let mut x = i.wrapping_add(1).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    x ^= x >> 31;
    x = x.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x ^= x >> 29;
    (x >> 11) as f64 / (1u64 << 53) as f64
}
