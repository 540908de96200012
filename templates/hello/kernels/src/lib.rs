//! The rank kernels, compiled to PTX (by the host crate's build.rs) and
//! for the host (the CPU emulator runs them from there).
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

use dcuda_device::{rank, DeviceSlice, Rank, Sum};

/// Arguments of [`ring`]: plain data, built by the host.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct RingArgs {
    /// One slot per rank of this GPU: the window.
    pub inbox: DeviceSlice<u32>,
    /// One slot per rank of this GPU: what each rank sends.
    pub outbox: DeviceSlice<u32>,
}

/// Every rank sends the sum of its threads' indices, plus its id, to the
/// next rank with a notified put, and waits for its own. `#[rank]` also
/// makes `RING`, the handle the host runs the kernel with.
#[rank]
pub fn ring(rank: &mut Rank, args: &RingArgs) {
    let world = rank.world();
    let (me, n) = (world.rank(), world.size());
    let id = rank.device().rank() as usize;
    let inbox = args.inbox.slice(id..id + 1);
    let outbox = args.outbox.slice(id..id + 1);
    // A block-collective reduction: every thread gets the same total.
    let total = rank.reduce(|t| t.index(), Sum);
    // SAFETY: one uniform value into this rank's own slot.
    unsafe { outbox.write(0, total + me) };
    let win = rank.win_create(world, inbox);
    rank.put_notify(win, (me + 1) % n, 0, outbox, 0);
    rank.wait_notifications(0, 1);
    rank.win_free(win);
}
