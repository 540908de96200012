#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k<T>(rank: &mut Rank, _args: &T) {
    let _ = rank.id();
}

fn main() {}
