#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(rank: &mut Rank, args: &Args) {
    let i = dcuda_device::arch::thread_idx().x;
    unsafe { args.out.write(i as usize, rank.id()) };
}

fn main() {}
