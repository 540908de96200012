#![allow(unused)]
use dcuda_device::{rank, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: *mut u32,
}

#[rank]
fn k(rank: &mut Rank, args: &Args) {
    let i = dcuda_device::arch::thread_idx().x;
    unsafe { *args.out.add(i as usize) = rank.id() };
}

fn main() {}
