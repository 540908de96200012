#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    let mut sum = 0;
    rank.threads(|t| sum += t.index());
    for _ in 0..sum {
        rank.sync_threads();
    }
}

fn main() {}
