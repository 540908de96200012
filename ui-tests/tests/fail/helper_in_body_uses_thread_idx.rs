#![allow(unused)]
use dcuda_device::{rank, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: *mut u32,
}

#[rank]
fn k(_rank: &mut Rank, args: &Args) {
    fn lane() -> u32 {
        dcuda_device::arch::thread_idx().x % 32
    }
    unsafe { *args.out = lane() };
}

fn main() {}
