#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    let mut first = 0;
    rank.threads(|t| first = t.index());
    if first == 0 {
        rank.sync_threads();
    }
}

fn main() {}
