//! A `DeviceSlice` of an address the caller made up needs `unsafe`: the
//! caller vouches for the memory.
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args;

#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    let world = rank.world();
    let forged = DeviceSlice::from_raw_parts(0x1000 as *mut u32, 4);
    let _ = rank.win_create(world, forged);
}

fn main() {}
