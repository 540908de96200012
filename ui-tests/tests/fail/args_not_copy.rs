#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

struct Owned {
    data: Vec<u32>,
}

#[rank]
fn k(rank: &mut Rank, args: &Owned) {
    let _ = (rank.id(), args.data.len());
}

fn main() {}
