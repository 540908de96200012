#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

macro_rules! barrier {
    ($r:ident) => {
        $r.sync_threads()
    };
}

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    rank.threads(|_t| barrier!(rank));
}

fn main() {}
