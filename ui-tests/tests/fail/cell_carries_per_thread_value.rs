#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank, Thread};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

// A per-thread value carried out of a region in a `Cell` and steering a
// collective: a region must be `Sync`, and a `Cell` is not.
#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    let first = core::cell::Cell::new(0u32);
    rank.threads(|t| first.set(t.index()));
    if first.get() == 0 {
        rank.sync_threads();
    }
}

fn main() {}
