//! Latency kernels: dcuda's notified-put and notify ping-pong, its host
//! round trip, and the raw baselines (no library: flags in global or
//! mapped memory). Every kernel times `batches` batches of `iters` round
//! trips with the device clock (`%globaltimer`) after `WARMUP_BATCHES`
//! untimed ones, and writes one duration per batch: the host reports the
//! median and p99 over batches, the same way for dcuda and its baselines.

use dcuda_device::arch::{self, block_idx, global_timer, thread_idx, Scope};
use dcuda_device::{kernel, rank, DeviceSlice, Rank};

/// Untimed batches before the timed ones.
pub const WARMUP_BATCHES: u32 = 2;

/// Arguments of [`pingpong`](PINGPONG).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct PingArgs {
    /// `2 * words` u32 per rank of this device: its window part, then its
    /// payload.
    pub buf: DeviceSlice<u32>,
    /// Rank 0 writes each timed batch's nanoseconds here.
    pub out: DeviceSlice<u64>,
    /// Timed batches.
    pub batches: u32,
    /// Round trips per batch.
    pub iters: u32,
    /// 0: `put_notify` of `words` words; 1: `notify`.
    pub mode: u32,
    /// Payload words (at least 1).
    pub words: u32,
}

// ANCHOR: pingpong
/// Ranks 0 and 1 ping-pong with notified puts (or notifications); every
/// other rank waits in the final barrier, as a loaded device would.
#[rank]
pub fn pingpong(rank: &mut Rank, args: &PingArgs) {
    let world = rank.world();
    let me = world.rank();
    let words = args.words as usize;
    // Each process holds the buffers of its own ranks.
    let mine = args.buf.chunk(rank.id() as usize, 2 * words);
    let win = rank.win_create(world, mine.slice(0..words));
    if me < 2 {
        let peer = 1 - me;
        let src = mine.slice(words..2 * words);
        for b in 0..WARMUP_BATCHES + args.batches {
            let t0 = rank.timestamp();
            for _ in 0..args.iters {
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
            if me == 0 && b >= WARMUP_BATCHES {
                let at = (b - WARMUP_BATCHES) as usize;
                // SAFETY: one element per timed batch, by thread 0 only.
                rank.single(|_| {
                    unsafe { args.out.write(at, t1 - t0) };
                    0u32
                });
            }
        }
    }
    rank.barrier(world);
    rank.win_free(win);
}
// ANCHOR_END: pingpong

/// Raw baseline: thread 0 of blocks 0 and 1 ping-pong on two flags in
/// global memory with gpu-scoped release stores and acquire loads; no
/// library. Launch cooperatively, 2 blocks.
///
/// # Safety
/// `flags` holds 2 words and `out` `batches` elements.
#[kernel]
pub unsafe fn raw_flag_pingpong(flags: *mut u32, batches: u32, iters: u32, out: *mut u64) {
    if thread_idx().x != 0 {
        return;
    }
    let me = block_idx().x;
    let (mine, theirs) = (flags.add(me as usize), flags.add(1 - me as usize));
    time_batches((batches, iters), out, me == 0, |i| {
        if me == 0 {
            arch::store_release(mine, i, Scope::Gpu);
            while arch::load_acquire(theirs, Scope::Gpu) != i {}
        } else {
            while arch::load_acquire(theirs, Scope::Gpu) != i {}
            arch::store_release(mine, i, Scope::Gpu);
        }
        true
    });
}

/// Runs round trip `step(i)` for `i` = 1, 2, ... in `WARMUP_BATCHES +
/// batches` batches of `iters` and, where `record`, writes each timed
/// batch's nanoseconds to `out`: the raw kernels' timing, the same as the
/// rank kernels'. Stops early when `step` returns false.
///
/// # Safety
/// Where `record`, `out` holds `batches` elements.
#[inline(always)]
pub(crate) unsafe fn time_batches(
    (batches, iters): (u32, u32),
    out: *mut u64,
    record: bool,
    mut step: impl FnMut(u32) -> bool,
) {
    let mut i = 0u32;
    for b in 0..WARMUP_BATCHES + batches {
        let t0 = global_timer();
        for _ in 0..iters {
            i += 1;
            if !step(i) {
                return;
            }
        }
        if record && b >= WARMUP_BATCHES {
            *out.add((b - WARMUP_BATCHES) as usize) = global_timer() - t0;
        }
    }
}

/// Arguments of [`pingpong_breakdown`](PINGPONG_BREAKDOWN) besides the timing.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct BreakdownArgs {
    /// Two counters, one per block.
    pub counters: *mut u32,
    /// `2 * stride` bytes per block: where the partner copies to, then
    /// what this block copies from.
    pub data: *mut u8,
    /// Bytes each step copies (0: none).
    pub bytes: u32,
    /// Bytes between two buffers of `data` (a multiple of 8).
    pub stride: u32,
    /// How many of the runtime's pieces to add (see the kernel).
    pub steps: u32,
}

// SAFETY: `#[repr(C)]` plain data, the same layout on both sides.
unsafe impl dcuda_device::kernel::KernelParam for BreakdownArgs {}

/// Latency breakdown: two blocks ping-pong as in [`raw_flag_pingpong`](RAW_FLAG_PINGPONG),
/// adding the runtime's pieces one at a time. `steps >= 1`: a counter
/// bumped with `red.release.gpu` instead of a flag store; `>= 2`: a block
/// barrier after each successful poll (the leader's broadcast); `>= 3`: a
/// block barrier before each signal (ordering the block's writes). With
/// `bytes > 0` the block copies the payload into the partner's buffer
/// before the signal ([`raw_block_copy`](crate::raw_block_copy)): the raw
/// ping-pong with data that a notified put of that size is compared with. Launch cooperatively with 2
/// blocks of any size.
///
/// # Safety
/// The pointers in `a` hold what [`BreakdownArgs`] says, `out` `batches`
/// elements.
#[kernel]
pub unsafe fn pingpong_breakdown(a: BreakdownArgs, batches: u32, iters: u32, out: *mut u64) {
    let me = block_idx().x;
    let leader = thread_idx().x == 0;
    let stride = a.stride as usize;
    let (mine, theirs) = (a.counters.add(me as usize), a.counters.add(1 - me as usize));
    let src = a.data.add((2 * me as usize + 1) * stride);
    let dst = a.data.add(2 * (1 - me as usize) * stride);
    let signal = |i: u32| {
        crate::raw_block_copy(dst, src, a.bytes as usize);
        if a.steps >= 3 {
            arch::sync_threads();
        }
        if leader {
            if a.steps >= 1 {
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
        if a.steps >= 2 {
            arch::sync_threads();
        }
    };
    time_batches((batches, iters), out, me == 0 && leader, |i| {
        if me == 0 {
            signal(i);
            wait(i);
        } else {
            wait(i);
            signal(i);
        }
        true
    });
}

/// Arguments of [`host_roundtrip`](HOST_ROUNDTRIP).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct HostArgs {
    /// Rank 0 writes each timed batch's nanoseconds here.
    pub out: DeviceSlice<u64>,
    /// Timed batches.
    pub batches: u32,
    /// Round trips per batch.
    pub iters: u32,
}

/// Rank 0 asks the host for replies; the others wait.
#[rank]
pub fn host_roundtrip(rank: &mut Rank, args: &HostArgs) {
    let world = rank.world();
    if world.rank() == 0 {
        for b in 0..WARMUP_BATCHES + args.batches {
            let t0 = rank.timestamp();
            for _ in 0..args.iters {
                rank.host_ping();
            }
            let t1 = rank.timestamp();
            if b >= WARMUP_BATCHES {
                let at = (b - WARMUP_BATCHES) as usize;
                // SAFETY: one element per timed batch, by thread 0 only.
                rank.single(|_| {
                    unsafe { args.out.write(at, t1 - t0) };
                    0u32
                });
            }
        }
    }
    rank.barrier(world);
}

/// Raw baseline for host round trips: the device raises `to_host` to `i`
/// and waits for the host to raise `to_device` to `i`, for
/// `(WARMUP_BATCHES + batches) * iters` round trips. Either flag may be in
/// mapped host memory or device memory (digest 000, Table 5.2).
///
/// # Safety
/// One word at each flag, `batches` elements at `out`.
#[kernel]
pub unsafe fn raw_roundtrip(
    to_host: *mut u32,
    to_device: *const u32,
    batches: u32,
    iters: u32,
    out: *mut u64,
) {
    if thread_idx().x != 0 || block_idx().x != 0 {
        return;
    }
    time_batches((batches, iters), out, true, |i| {
        arch::store_release(to_host, i, Scope::System);
        let start = global_timer();
        while arch::load_acquire(to_device, Scope::System) != i {
            if global_timer() - start > 10_000_000_000 {
                return false; // The host stopped answering: end instead of hanging.
            }
        }
        true
    });
}
