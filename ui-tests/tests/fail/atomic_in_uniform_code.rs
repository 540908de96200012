#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

use dcuda_device::arch::{self, Ordering, Scope};

#[rank]
fn k(_rank: &mut Rank, args: &Args) {
    unsafe { arch::fetch_add(args.out.as_mut_ptr(), 1, Ordering::Relaxed, Scope::Gpu) };
}

fn main() {}
