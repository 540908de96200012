#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

use dcuda_device::arch;

#[rank]
fn k(_rank: &mut Rank, args: &Args) {
    unsafe { args.out.write(0, arch::block_idx().x + arch::grid_dim().x) };
}

fn main() {}
