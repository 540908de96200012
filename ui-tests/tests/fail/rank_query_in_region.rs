#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

#[rank]
fn k(rank: &mut Rank, args: &Args) {
    rank.threads(|t| unsafe { args.out.write(t.index() as usize, rank.id()) });
}

fn main() {}
