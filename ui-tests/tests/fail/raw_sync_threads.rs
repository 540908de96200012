#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(_rank: &mut Rank, _args: &Args) {
    dcuda_device::arch::sync_threads();
}

fn main() {}
