#![allow(unused)]
use dcuda_device::{rank, DeviceSlice, Rank, Thread};

#[derive(Clone, Copy)]
struct Args {
    out: DeviceSlice<u32>,
}

// An intrinsic that only the GPU build sees: the emulator could check nothing.
#[rank]
fn k(rank: &mut Rank, _args: &Args) {
    #[cfg(target_arch = "nvptx64")]
    let tid = unsafe { core::arch::nvptx::_thread_idx_x() };
    #[cfg(not(target_arch = "nvptx64"))]
    let tid = 0;
    rank.notify(rank.world(), 0, tid as u32);
}

fn main() {}
