#![allow(unused)]
use dcuda_device::{rank, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: *mut u32,
}

use dcuda_device::arch::thread_idx;

#[rank]
fn k(rank: &mut Rank, args: &Args) {
    rank.threads(|_t| unsafe { *args.out = thread_idx().x });
}

fn main() {}
