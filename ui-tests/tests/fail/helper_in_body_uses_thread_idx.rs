#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(_rank: &mut Rank, args: &Args) {
    fn lane() -> u32 {
        dcuda_device::arch::thread_idx().x % 32
    }
    unsafe { args.out.write(0, lane()) };
}

fn main() {}
