//! Per-thread regions with per-thread state, shared memory, pointers,
//! atomics on one thread, and locals that shadow the handle's name.
use dcuda_device::arch::{self, Ordering, Scope};
use dcuda_device::{rank, shared_array, DeviceSlice, Rank, Sum};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
    counter: DeviceSlice<u32>,
}

shared_array!(static TILE: [u32; 128]);

#[rank]
fn k(rank: &mut Rank, args: &Args) {
    let base = rank.id() * rank.threads_per_rank();
    let acc = rank.per_thread(|t| t.index());
    for round in 0..3u32 {
        rank.threads(|t| acc.update(t, |v| v + round));
    }
    rank.threads(|t| TILE.set(t.index() as usize, acc.get(t)));
    rank.sync_threads();
    let total = rank.reduce(|t| TILE.get(t.index() as usize), Sum);
    let prefix = rank.scan(|t| acc.get(t), Sum);
    let ticket = rank.single(|_| unsafe { arch::fetch_add(args.counter.as_mut_ptr(), 1, Ordering::Relaxed, Scope::Gpu) });
    rank.threads(|t| {
        let rank = t.index();
        let mut local = 0;
        local += rank;
        unsafe { args.out.write((base + t.index()) as usize, prefix.get(t) + local + total + ticket) };
    });
}

fn main() {}
