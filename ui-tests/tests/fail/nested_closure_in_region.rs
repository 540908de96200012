#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    rank.threads(|_t| {
        let f = || rank.id();
        let _ = f();
    });
}

fn main() {}
