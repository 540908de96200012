#![allow(unused)]
use dcuda_device::{rank, Rank};

// Rank arguments are shared by every thread of a rank: plain data only.
#[derive(Clone, Copy)]
struct Args {
    out: *mut u32,
}

#[rank]
fn k(rank: &mut Rank, args: &Args) {}

fn main() {}
