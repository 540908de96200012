#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    rank.threads(|t| {
        if let Some(_) = t.index().checked_sub(1) {
            let _ = rank.single(|_| 1u32);
        }
    });
}

fn main() {}
