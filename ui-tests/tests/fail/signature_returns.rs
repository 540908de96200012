#![allow(unused)]
use dcuda_device::{rank, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: *mut u32,
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) -> u32 {
    rank.id()
}

fn main() {}
