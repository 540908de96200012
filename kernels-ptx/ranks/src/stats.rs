//! Per-rank statistics of a chunk of an array: the tour of the rank DSL.

use dcuda_device::arch::{self, Ordering, Scope};
use dcuda_device::{rank, shared_array, DeviceSlice, Max, Rank, Sum};

// ANCHOR: args
/// Arguments of [`block_stats`](BLOCK_STATS). Every rank handles `threads_per_rank`
/// consecutive elements of `input`.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct StatsArgs {
    /// The input, `ranks * threads_per_rank` elements.
    pub input: DeviceSlice<f32>,
    /// Per element: the average of it and its neighbours within the rank.
    pub smoothed: DeviceSlice<f32>,
    /// Per element: inclusive prefix sum of `smoothed` within the rank.
    pub prefix: DeviceSlice<f32>,
    /// Per rank: sum of `smoothed`.
    pub sums: DeviceSlice<f32>,
    /// Per rank: maximum of `smoothed`.
    pub maxes: DeviceSlice<f32>,
    /// Per rank: its ticket from one atomic counter.
    pub tickets: DeviceSlice<u32>,
    /// The counter.
    pub counter: DeviceSlice<u32>,
}
// ANCHOR_END: args

shared_array!(static STATS_TILE: [f32; 1024]);

// ANCHOR: kernel
#[rank]
pub fn block_stats(rank: &mut Rank, args: &StatsArgs) {
    // Uniform code: the same on every thread of the rank.
    let base = (rank.id() * rank.threads_per_rank()) as usize;
    let last = rank.threads_per_rank() - 1;

    // Per-thread region: each thread stages its element in shared memory.
    rank.threads(|t| {
        let x = unsafe { args.input.read(base + t.index() as usize) };
        STATS_TILE.set(t.index() as usize, x);
    });
    rank.sync_threads(); // the neighbours' writes are visible after this

    // Per-thread state that lives across the collectives below.
    let smooth = rank.per_thread(|t| {
        let i = t.index();
        let left = STATS_TILE.get(i.saturating_sub(1) as usize);
        let right = STATS_TILE.get((i + 1).min(last) as usize);
        (left + STATS_TILE.get(i as usize) + right) / 3.0
    });

    // Block-collective reductions and a scan: uniform results.
    let sum = rank.reduce(|t| smooth.get(t), Sum);
    let max = rank.reduce(|t| smooth.get(t), Max);
    let prefix = rank.scan(|t| smooth.get(t), Sum);

    rank.threads(|t| unsafe {
        let i = base + t.index() as usize;
        args.smoothed.write(i, smooth.get(t));
        args.prefix.write(i, prefix.get(t));
    });

    // A non-idempotent operation runs on one thread; all get its result.
    let ticket = rank.single(|_| unsafe {
        arch::fetch_add(args.counter.as_mut_ptr(), 1, Ordering::Relaxed, Scope::Gpu)
    });

    // Uniform stores of uniform values: every thread writes the same value.
    let id = rank.id() as usize;
    unsafe {
        args.sums.write(id, sum);
        args.maxes.write(id, max);
        args.tickets.write(id, ticket);
    }
}
// ANCHOR_END: kernel
