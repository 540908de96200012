//! The old misuse: a safe put from a pointer the caller made up. Puts take
//! a `DeviceSlice`, which safe code cannot make up.
use dcuda_device::{rank, DeviceSlice, Rank};

#[derive(Clone, Copy)]
struct Args {
    window: DeviceSlice<u32>,
}

#[rank]
fn k(rank: &mut Rank, args: &Args) {
    let world = rank.world();
    let win = rank.win_create(world, args.window);
    rank.put(win, 1, 0, 0x1000 as *const u32, 4);
}

fn main() {}
