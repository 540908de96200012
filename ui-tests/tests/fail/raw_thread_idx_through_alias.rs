#![allow(unused)]
use dcuda_device::{rank, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: *mut u32,
}

#[rank]
fn k(_rank: &mut Rank, args: &Args) {
    use dcuda_device::arch::thread_idx as tid;
    unsafe { *args.out = tid().x };
}

fn main() {}
