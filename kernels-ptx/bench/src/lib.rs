//! Benchmark kernels: dcuda's notified access, host round trip and put
//! bandwidth, and the raw baselines they are compared with (no library:
//! flags in global or mapped memory).
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

mod bandwidth;
mod chunks;
mod host_parts;
mod latency;
mod messages;
mod probes;
mod typed;
pub use bandwidth::*;
pub use chunks::*;
pub use host_parts::*;
pub use latency::*;
pub use messages::*;
pub use probes::*;
pub use typed::*;

use dcuda_device::{rank, DeviceSlice, Rank, Sum};

/// Arguments of [`collective_latency`](COLLECTIVE_LATENCY).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CollectiveLatencyArgs {
    /// 0: `barrier`; 1: `allreduce` of an `f64`.
    pub mode: u32,
    /// 0: on the device communicator; 1: on the world (across processes).
    pub world: u32,
    /// Timed batches.
    pub batches: u32,
    /// Collectives per batch.
    pub iters: u32,
    /// Rank 0 writes each batch's nanoseconds here.
    pub out: DeviceSlice<u64>,
    /// Rank 0 writes the last allreduce's result here.
    pub result: DeviceSlice<f64>,
}

/// Every rank of the communicator runs `batches` batches of `iters`
/// collectives, each contributing its rank + 1; rank 0 of each device
/// times each batch with the device clock.
#[rank]
pub fn collective_latency(rank: &mut Rank, args: &CollectiveLatencyArgs) {
    let comm = if args.world == 1 {
        rank.world()
    } else {
        rank.device()
    };
    let value = comm.rank() as f64 + 1.0;
    let mut total = 0.0;
    for b in 0..args.batches {
        rank.barrier(comm);
        let t0 = rank.timestamp();
        for _ in 0..args.iters {
            if args.mode == 0 {
                rank.barrier(comm);
            } else {
                total = rank.allreduce(comm, value, Sum);
            }
        }
        let t1 = rank.timestamp();
        if rank.id() == 0 {
            rank.single(|_| {
                // SAFETY: one element per batch, written by rank 0's thread 0.
                unsafe { args.out.write(b as usize, t1 - t0) };
                0u32
            });
        }
    }
    if rank.id() == 0 {
        rank.single(|_| {
            // SAFETY: one element, written by rank 0's thread 0.
            unsafe { args.result.write(0, total) };
            0u32
        });
    }
}

/// `Rank::barrier` on the device communicator, alone in its kernel (the
/// arguments of [`collective_latency`](COLLECTIVE_LATENCY); `mode` and `world` unused): the
/// one-GPU barrier benchmark. In a kernel that also holds other
/// collectives the same barrier measured slower (a large kernel's hot
/// paths miss the instruction cache: `bench/experiments/far_jumps.cu`).
#[rank]
pub fn barrier_latency(rank: &mut Rank, args: &CollectiveLatencyArgs) {
    let comm = rank.device();
    barrier_batches(rank, args, |r| r.barrier(comm));
}

/// `batches` batches of `iters` steps over the device's ranks, rank 0
/// timing each batch with the device clock (as `collective_latency`).
#[inline(always)]
pub(crate) fn barrier_batches(
    rank: &mut Rank,
    args: &CollectiveLatencyArgs,
    mut step: impl FnMut(&mut Rank),
) {
    let comm = rank.device();
    for b in 0..args.batches {
        rank.barrier(comm);
        let t0 = rank.timestamp();
        for _ in 0..args.iters {
            step(rank);
        }
        let t1 = rank.timestamp();
        if rank.id() == 0 {
            rank.single(|_| {
                // SAFETY: one element per batch, written by rank 0's thread 0.
                unsafe { args.out.write(b as usize, t1 - t0) };
                0u32
            });
        }
    }
}

/// Arguments of [`rail_allreduce`](RAIL_ALLREDUCE).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct RailArgs {
    /// Elements per rank: each rank holds its part of its GPU's buffer.
    pub len: u32,
    /// Timed batches.
    pub batches: u32,
    /// Allreduces per batch.
    pub iters: u32,
    /// `len` per rank, all 1.0 at the start, doubled by every allreduce.
    pub buf: DeviceSlice<f32>,
    /// Rank 0 writes each batch's nanoseconds here.
    pub out: DeviceSlice<u64>,
}

/// A large allreduce of each GPU's buffer, as NCCL does it, in dCUDA's way:
/// each rank holds a part of its GPU's buffer and reduces it over its rail
/// (the ranks of its device rank on every GPU, one communicator each), so
/// every rank moves its own part between the GPUs at once. A batch is
/// `iters` allreduces, then a world barrier (every rail done); rank 0
/// times it with the device clock.
#[rank]
pub fn rail_allreduce(rank: &mut Rank, args: &RailArgs) {
    let world = rank.world();
    let Some(rail) = rank.comm_split(world, Some(rank.id()), world.rank()) else {
        return;
    };
    let part = args.buf.chunk(rank.id() as usize, args.len as usize);
    rank.allreduce_into(rail, part, part, Sum); // warm-up
    for b in 0..args.batches {
        rank.barrier(world);
        let t0 = rank.timestamp();
        for _ in 0..args.iters {
            rank.allreduce_into(rail, part, part, Sum);
        }
        rank.barrier(world);
        let t1 = rank.timestamp();
        if rank.id() == 0 {
            rank.single(|_| {
                // SAFETY: one element per batch, written by rank 0's thread 0.
                unsafe { args.out.write(b as usize, t1 - t0) };
                0u32
            });
        }
    }
    rank.comm_free(rail);
}
