#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    let _v = rank.per_thread(|t| {
        rank.sync_threads();
        t.index()
    });
}

fn main() {}
