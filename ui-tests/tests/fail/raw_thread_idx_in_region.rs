#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

use dcuda_device::arch::thread_idx;

#[rank]
fn k(rank: &mut Rank, args: &Args) {
    rank.threads(|_t| unsafe { args.out.write(0, thread_idx().x) });
}

fn main() {}
