#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    rank.threads(|t| {
        if t.index() == 0 {
            rank.sync_threads();
        }
    });
}

fn main() {}
