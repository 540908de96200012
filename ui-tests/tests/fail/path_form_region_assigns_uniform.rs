#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank, Thread};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

// `Rank::threads(rank, ...)` in path form is a region like the method form.
#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    let mut last = 0u32;
    Rank::threads(rank, |t| last = t.index());
    rank.notify(rank.world(), 0, last);
}

fn main() {}
