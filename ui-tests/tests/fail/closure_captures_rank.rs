#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    let mut step = || rank.sync_threads();
    step();
}

fn main() {}
