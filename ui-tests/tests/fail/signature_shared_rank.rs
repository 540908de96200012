#![allow(unused)]
use dcuda_device::{rank, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: *mut u32,
}

#[rank]
fn k(rank: &Rank, _args: &Args) {
    let _ = rank.id();
}

fn main() {}
