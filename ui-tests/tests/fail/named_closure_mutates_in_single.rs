#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank, Thread};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

// A named closure that writes captured state, given to `single` in path
// form: the macro sees no region here, but `single` takes an `Fn`.
#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    let mut calls = 0u32;
    let count = |_t: &Thread| {
        calls += 1;
        calls
    };
    let _ = Rank::single(rank, count);
}

fn main() {}
