#![allow(unused)]
use dcuda_device::{rank, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: *mut u32,
}

#[rank]
fn k(_rank: &mut Rank, _args: &Args) {
    dcuda_device::arch::sync_threads();
}

fn main() {}
