//! Benchmark kernels: dcuda's notified access, host round trip and put
//! bandwidth, and the raw baselines they are compared with (no library:
//! flags in global or mapped memory).
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

mod chunks;
mod messages;
pub use chunks::*;
pub use messages::*;

use dcuda_device::arch::{self, block_idx, global_timer, thread_idx, Scope};
use dcuda_device::{kernel, rank, DeviceSlice, Rank, Sum};

/// Iterations before timing starts.
pub const WARMUP: u32 = 200;

/// Arguments of [`pingpong`].
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PingArgs {
    /// 16 u32 per rank: the window (8) and the payload (8).
    pub buf: DeviceSlice<u32>,
    /// Rank 0 writes the timed nanoseconds here.
    pub out: DeviceSlice<u64>,
    /// Timed round trips.
    pub iters: u32,
    /// 0: 4-byte `put_notify`; 1: `notify`.
    pub mode: u32,
}

/// Ranks 0 and 1 ping-pong with notified puts (or notifications); every
/// other rank waits in the final barrier, as a loaded device would.
#[rank]
pub fn pingpong(rank: &mut Rank, args: &PingArgs) {
    let world = rank.world();
    let me = world.rank();
    let mine = args.buf.chunk(me as usize, 16);
    let win = rank.win_create(world, mine.slice(0..8));
    if me < 2 {
        let peer = 1 - me;
        let src = mine.slice(8..9);
        let mut t0 = 0;
        for i in 0..WARMUP + args.iters {
            if i == WARMUP {
                t0 = rank.timestamp();
            }
            if me == 1 {
                rank.wait_notifications(0, 1);
            }
            if args.mode == 0 {
                rank.put_notify(win, peer, 0, src, 0);
            } else {
                rank.notify(world, peer, 0);
            }
            if me == 0 {
                rank.wait_notifications(0, 1);
            }
        }
        let t1 = rank.timestamp();
        if me == 0 {
            unsafe { args.out.write(0, t1 - t0) };
        }
    }
    rank.barrier(world);
    rank.win_free(win);
}

/// Arguments of [`host_roundtrip`].
#[repr(C)]
#[derive(Clone, Copy)]
pub struct HostArgs {
    /// Rank 0 writes the timed nanoseconds here.
    pub out: DeviceSlice<u64>,
    /// Timed round trips.
    pub iters: u32,
}

/// Rank 0 asks the host for `iters` replies; the others wait.
#[rank]
pub fn host_roundtrip(rank: &mut Rank, args: &HostArgs) {
    let world = rank.world();
    if world.rank() == 0 {
        let mut t0 = 0;
        for i in 0..WARMUP + args.iters {
            if i == WARMUP {
                t0 = rank.timestamp();
            }
            rank.host_ping();
        }
        let t1 = rank.timestamp();
        unsafe { args.out.write(0, t1 - t0) };
    }
    rank.barrier(world);
}

/// Arguments of [`put_bandwidth`].
#[repr(C)]
#[derive(Clone, Copy)]
pub struct BandwidthArgs {
    /// Source: `senders * bytes`.
    pub src: DeviceSlice<u8>,
    /// Destination: `senders * bytes`.
    pub dst: DeviceSlice<u8>,
    /// Bytes each sender puts per repetition.
    pub bytes: u64,
    /// Sender/receiver pairs.
    pub senders: u32,
    /// Repetitions.
    pub reps: u32,
    /// Rank 0 writes the timed nanoseconds here.
    pub out: DeviceSlice<u64>,
    /// How ranks pair up: [`NEIGHBOURS`] or [`HALVES`].
    pub pairing: u32,
}

/// Pairs `(2i, 2i + 1)`: neighbouring ranks, on one device.
pub const NEIGHBOURS: u32 = 0;
/// Pairs `(i, i + size/2)`: across the two halves of the world (two
/// processes with as many ranks each).
pub const HALVES: u32 = 1;

/// The first `senders` pairs: the sender puts `reps` times `bytes` into
/// the window of its partner, flushes and notifies. The time runs from a
/// barrier to a barrier, after one untimed put (the first touch of freshly
/// mapped peer memory is slow). Neighbour pairs spread senders over all
/// multiprocessors, whatever the block placement.
#[rank]
pub fn put_bandwidth(rank: &mut Rank, args: &BandwidthArgs) {
    let world = rank.world();
    let (me, n) = (world.rank(), world.size());
    let (slot, receiver, partner) = if args.pairing == HALVES {
        (me % (n / 2), me >= n / 2, me + n / 2)
    } else {
        (me / 2, me % 2 == 1, me + 1)
    };
    let active = slot < args.senders;
    let receiver = active && receiver;
    let bytes = args.bytes as usize;
    let mem = if receiver {
        args.dst.chunk(slot as usize, bytes)
    } else {
        DeviceSlice::empty()
    };
    let win = rank.win_create(world, mem);
    let sender = active && !receiver;
    let src = if sender {
        args.src.chunk(slot as usize, bytes)
    } else {
        DeviceSlice::empty()
    };
    if sender {
        rank.put(win, partner, 0, src);
        rank.flush(win);
    }
    rank.barrier(world);
    let t0 = rank.timestamp();
    if sender {
        for _ in 0..args.reps {
            rank.put(win, partner, 0, src);
        }
        rank.flush(win);
        rank.notify(world, partner, 1);
    } else if receiver {
        rank.wait_notifications(1, 1);
    }
    rank.barrier(world);
    let t1 = rank.timestamp();
    if me == 0 {
        unsafe { args.out.write(0, t1 - t0) };
    }
    rank.win_free(win);
}

/// Raw baseline: thread 0 of blocks 0 and 1 ping-pong on two flags in
/// global memory with gpu-scoped release stores and acquire loads; no
/// library. `out[0]`: timed nanoseconds. Launch cooperatively, 2 blocks.
#[kernel]
pub unsafe fn raw_flag_pingpong(flags: *mut u32, iters: u32, out: *mut u64) {
    if thread_idx().x != 0 {
        return;
    }
    let me = block_idx().x;
    let (mine, theirs) = (flags.add(me as usize), flags.add(1 - me as usize));
    let mut t0 = 0;
    for i in 1..=WARMUP + iters {
        if i == WARMUP + 1 {
            t0 = global_timer();
        }
        if me == 0 {
            arch::store_release(mine, i, Scope::Gpu);
            while arch::load_acquire(theirs, Scope::Gpu) != i {}
        } else {
            while arch::load_acquire(theirs, Scope::Gpu) != i {}
            arch::store_release(mine, i, Scope::Gpu);
        }
    }
    if me == 0 {
        *out = global_timer() - t0;
    }
}

/// Raw baseline for host round trips: the device raises `to_host` to `i`
/// and waits for the host to raise `to_device` to `i`. Either flag may be in
/// mapped host memory or device memory (digest 000, Table 5.2).
#[kernel]
pub unsafe fn raw_roundtrip(to_host: *mut u32, to_device: *const u32, iters: u32) {
    if thread_idx().x != 0 || block_idx().x != 0 {
        return;
    }
    for i in 1..=iters {
        arch::store_release(to_host, i, Scope::System);
        let start = global_timer();
        while arch::load_acquire(to_device, Scope::System) != i {
            if global_timer() - start > 10_000_000_000 {
                return; // The host stopped answering: end instead of hanging.
            }
        }
    }
}

/// Latency breakdown: thread 0 of blocks 0 and 1 ping-pong as in
/// [`raw_flag_pingpong`], adding the runtime's pieces one at a time:
/// `steps >= 1`: a counter bumped with `red.release.gpu` instead of a flag
/// store; `>= 2`: a block barrier after each successful poll (the leader's
/// broadcast); `>= 3`: a block barrier before each signal (ordering the
/// block's writes). Launch cooperatively with 2 blocks of any size.
#[kernel]
pub unsafe fn pingpong_breakdown(counters: *mut u32, iters: u32, steps: u32, out: *mut u64) {
    let me = block_idx().x;
    let leader = thread_idx().x == 0;
    let (mine, theirs) = (counters.add(me as usize), counters.add(1 - me as usize));
    let signal = |i: u32| {
        if steps >= 3 {
            arch::sync_threads();
        }
        if leader {
            if steps >= 1 {
                arch::add(theirs, 1, arch::Ordering::Release, Scope::Gpu);
            } else {
                arch::store_release(theirs, i, Scope::Gpu);
            }
        }
    };
    let wait = |i: u32| {
        if leader {
            while arch::load_acquire(mine, Scope::Gpu) != i {}
        }
        if steps >= 2 {
            arch::sync_threads();
        }
    };
    let mut t0 = 0;
    for i in 1..=WARMUP + iters {
        if i == WARMUP + 1 {
            t0 = global_timer();
        }
        if me == 0 {
            signal(i);
            wait(i);
        } else {
            wait(i);
            signal(i);
        }
    }
    if me == 0 && leader {
        *out = global_timer() - t0;
    }
}

/// Arguments of [`collective_latency`].
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

/// Arguments of [`rail_allreduce`].
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
