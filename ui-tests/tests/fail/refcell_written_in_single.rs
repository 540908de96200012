#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank, Thread};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

// A `RefCell` written by the one thread of `single`: on a GPU the other
// threads would keep their own, unchanged copy.
#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    let seen = core::cell::RefCell::new(0u32);
    let _ = rank.single(|t| {
        *seen.borrow_mut() = t.index() + 1;
        0u32
    });
    let tag = *seen.borrow();
    rank.notify(rank.world(), 0, tag);
}

fn main() {}
