#![allow(unused)]
use dcuda_device::{rank, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: *mut u32,
}

#[rank]
fn k(rank: &mut Rank, args: &Args) {
    rank.threads(|t| unsafe { *args.out.add(t.index() as usize) = rank.id() });
}

fn main() {}
