#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    rank.threads(|t| {
        let mut i = t.index();
        while i < 4 {
            rank.sync_threads();
            i += 1;
        }
    });
}

fn main() {}
