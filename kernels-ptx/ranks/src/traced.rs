//! A traced ring: each round a "compute" phase (with an "inner" phase in
//! it) and a "halo" phase of one notified put to the next rank and a
//! wait; a barrier outside phases at the end. The tests check the trace
//! against these calls.

use dcuda_device::{rank, DeviceSlice, Rank};

/// Arguments of [`traced_ring`](TRACED_RING).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TracedArgs {
    /// Rounds.
    pub rounds: u32,
    /// Elements per put.
    pub len: u32,
    /// 1: call `trace_end` once more than `trace_begin` (an error).
    pub unbalanced: u32,
    /// `2 * len` per rank: the window, then the source.
    pub buf: DeviceSlice<u64>,
}

// ANCHOR: traced
#[rank]
pub fn traced_ring(rank: &mut Rank, args: &TracedArgs) {
    let world = rank.world();
    let (me, n, len) = (world.rank(), world.size(), args.len as usize);
    let mine = args.buf.chunk(rank.id() as usize, 2 * len);
    let (win_mem, src) = (mine.slice(0..len), mine.slice(len..2 * len));
    let win = rank.win_create(world, win_mem);
    let threads = rank.threads_per_rank() as usize;
    for round in 0..args.rounds {
        rank.trace("compute", |rank| {
            rank.threads(|t| {
                let mut i = t.index() as usize;
                while i < len {
                    // SAFETY: each thread writes its own elements of this rank's source.
                    unsafe { src.write(i, (me as u64) << 32 | round as u64) };
                    i += threads;
                }
            });
            rank.trace("inner", |rank| rank.sync_threads());
        });
        rank.trace_begin("halo");
        rank.put_notify(win, (me + 1) % n, 0, src, 1);
        rank.wait_notifications(1, 1);
        rank.flush(win);
        rank.trace_end();
    }
    if args.unbalanced == 1 {
        rank.trace_end();
    }
    rank.barrier(world);
    rank.win_free(win);
}
// ANCHOR_END: traced
