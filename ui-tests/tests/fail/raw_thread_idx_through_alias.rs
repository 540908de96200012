#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(_rank: &mut Rank, args: &Args) {
    use dcuda_device::arch::thread_idx as tid;
    unsafe { args.out.write(0, tid().x) };
}

fn main() {}
