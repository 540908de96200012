#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank, Thread};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

// A raw pointer to a uniform variable, written per thread in a region:
// raw pointers are not `Sync`, so a region cannot capture one.
#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    let mut tag = 0u32;
    let p = &mut tag as *mut u32;
    rank.threads(|t| unsafe { *p = t.index() });
    rank.notify(rank.world(), 0, tag);
}

fn main() {}
