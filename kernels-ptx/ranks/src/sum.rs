//! The distributed sum of dCUDA's guide (digest 000 §2.9), done right: a
//! block reduction per rank, then a binomial tree over the world ranks.

use dcuda_device::{rank, rank_log, Rank, Sum};

/// Arguments of [`distributed_sum`].
#[repr(C)]
#[derive(Clone, Copy)]
pub struct SumArgs {
    /// `threads_per_rank` values per rank of this process (device rank
    /// order); each rank sums its own block.
    pub data: *const f64,
    /// One slot per world rank; every rank's window is all of it (per
    /// process: ranks of one process share it).
    pub partials: *mut f64,
    /// Where world rank 0 writes the total.
    pub result: *mut f64,
}

// ANCHOR: sum
#[rank]
pub fn distributed_sum(rank: &mut Rank, args: &SumArgs) {
    let world = rank.world();
    let (me, n) = (world.rank(), world.size());
    let base = (rank.device().rank() * rank.threads_per_rank()) as usize;

    // 1. Each rank sums its block: a block-collective reduction.
    let mut partial = rank.reduce(
        |t| unsafe { *args.data.add(base + t.index() as usize) },
        Sum,
    );

    // 2. A binomial tree. The windows of a process's ranks cover the same
    // array, so between them a rank's slot is the same address in every
    // window: the put copies nothing and only notifies. Between processes
    // it moves one value.
    let win = rank.win_create(world, args.partials, n as usize);
    rank.start_timer(0);
    let (mut step, mut round) = (1, 0);
    while step < n {
        if me % (2 * step) == step {
            unsafe { *args.partials.add(me as usize) = partial };
            rank.put_notify(
                win,
                me - step,
                me as usize,
                args.partials.wrapping_add(me as usize) as *const f64,
                1,
                round,
            );
        } else if me % (2 * step) == 0 && me + step < n {
            rank.wait_notifications(round, 1);
            partial += unsafe { *args.partials.add((me + step) as usize) };
        }
        step *= 2;
        round += 1;
    }
    rank.stop_timer(0);
    if me == 0 {
        unsafe { *args.result = partial };
        rank_log!(rank, "sum of {} ranks = {}", n, partial);
    }
    rank.win_free(win);
}
// ANCHOR_END: sum
