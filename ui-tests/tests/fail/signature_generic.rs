#![allow(unused)]
use dcuda_device::{rank, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: *mut u32,
}

#[rank]
fn k<T>(rank: &mut Rank, _args: &T) {
    let _ = rank.id();
}

fn main() {}
