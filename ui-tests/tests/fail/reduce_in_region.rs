#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

use dcuda_device::Sum;

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    rank.threads(|_t| {
        let _s = rank.reduce(|_u| 1u32, Sum);
    });
}

fn main() {}
