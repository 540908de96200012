#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

fn helper(r: &mut Rank) {
    r.sync_threads();
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    rank.threads(|_t| helper(rank));
}

fn main() {}
