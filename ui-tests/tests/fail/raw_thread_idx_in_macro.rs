#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(_rank: &mut Rank, args: &Args) {
    let v = [dcuda_device::arch::thread_idx().x; 2];
    let s = format!("{}", dcuda_device::arch::thread_idx().x);
    unsafe { args.out.write(0, v[0] + s.len() as u32) };
}

fn main() {}
