#![allow(unused)]
use dcuda_device::{rank, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: *mut u32,
}

use dcuda_device::arch;

#[rank]
fn k(_rank: &mut Rank, args: &Args) {
    unsafe { *args.out = arch::block_idx().x + arch::grid_dim().x };
}

fn main() {}
