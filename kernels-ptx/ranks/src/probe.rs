//! A rank kernel with uniform code and one per-thread region. Its PTX is
//! checked (examples/tests/ptx_instructions.rs): the region costs no barrier
//! and no shared-memory traffic.

use dcuda_device::{rank, DeviceSlice, Rank};

/// Arguments of [`uniform_region`](UNIFORM_REGION).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ProbeArgs {
    /// `ranks * threads_per_rank` elements.
    pub out: DeviceSlice<u32>,
}

// ANCHOR: probe
#[rank]
pub fn uniform_region(rank: &mut Rank, args: &ProbeArgs) {
    let base = rank.id() * rank.threads_per_rank();
    rank.threads(|t| unsafe {
        args.out
            .write((base + t.index()) as usize, base + 2 * t.index())
    });
}
// ANCHOR_END: probe
