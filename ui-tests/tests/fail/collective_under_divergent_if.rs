#![allow(unused)]
use dcuda_device::{rank, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: *mut u32,
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    rank.threads(|t| {
        if t.index() == 0 {
            rank.sync_threads();
        }
    });
}

fn main() {}
