#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    let r = &mut *rank;
    r.threads(|_t| {});
    let alias = &*rank;
    rank.threads(|_t| {
        let _ = alias.id();
    });
}

fn main() {}
