//! The collectives that move chunks (`allgather_into`, `alltoall_into`)
//! over every rank of one GPU, timed with the device clock.

use dcuda_device::{rank, DeviceSlice, Rank};

/// Arguments of [`chunk_latency`](CHUNK_LATENCY).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct ChunkLatencyArgs {
    /// 0: `allgather_into`; 1: `alltoall_into`.
    pub mode: u32,
    /// Words per chunk.
    pub len: u32,
    /// Timed batches.
    pub batches: u32,
    /// Collectives per batch.
    pub iters: u32,
    /// `ranks * len` words per rank: the sources (an allgather sends the
    /// first chunk).
    pub src: DeviceSlice<u64>,
    /// `ranks * len` words per rank: the destinations.
    pub dst: DeviceSlice<u64>,
    /// Rank 0 writes each batch's nanoseconds here.
    pub out: DeviceSlice<u64>,
}

/// Every rank of the device runs `batches` batches of `iters` collectives;
/// rank 0 times each batch with the device clock.
#[rank]
pub fn chunk_latency(rank: &mut Rank, args: &ChunkLatencyArgs) {
    let comm = rank.device();
    let (id, per) = (rank.id() as usize, (comm.size() * args.len) as usize);
    let (src, dst) = (args.src.chunk(id, per), args.dst.chunk(id, per));
    let mine = src.slice(0..args.len as usize);
    for b in 0..args.batches {
        rank.barrier(comm);
        let t0 = rank.timestamp();
        for _ in 0..args.iters {
            if args.mode == 0 {
                rank.allgather_into(comm, mine, dst);
            } else {
                rank.alltoall_into(comm, src, dst);
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
}
