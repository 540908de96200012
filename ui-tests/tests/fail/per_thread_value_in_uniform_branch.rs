#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    let index = rank.per_thread(|t| t.index());
    if index > 0 {
        rank.sync_threads();
    }
}

fn main() {}
