//! Bandwidth kernels: dcuda's puts from one or many ranks, and the raw
//! copy kernel they are compared with. Both time each trial on the device
//! clock per sender (start, end), so the host computes the same span
//! (last end - first start) for both.

use dcuda_device::arch::{self, block_idx, global_timer, thread_idx};
use dcuda_device::{kernel, rank, DeviceSlice, Rank};

/// Arguments of [`put_bandwidth`](PUT_BANDWIDTH).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct BandwidthArgs {
    /// Source: `senders * stride` bytes.
    pub src: DeviceSlice<u8>,
    /// Destination: `senders * stride` bytes.
    pub dst: DeviceSlice<u8>,
    /// Bytes each sender puts per repetition.
    pub bytes: u64,
    /// Bytes between two senders' slices (a multiple of the alignment).
    pub stride: u64,
    /// Sender/receiver pairs.
    pub senders: u32,
    /// Puts per trial.
    pub reps: u32,
    /// Timed trials.
    pub trials: u32,
    /// Each sender writes `[start, end]` of each trial here:
    /// `out[2 * (trial * senders + slot) ..]`.
    pub out: DeviceSlice<u64>,
    /// How ranks pair up: [`NEIGHBOURS`] or [`HALVES`].
    pub pairing: u32,
}

/// Pairs `(2i, 2i + 1)`: neighbouring ranks, on one device.
pub const NEIGHBOURS: u32 = 0;
/// Pairs `(i, i + size/2)`: across the two halves of the world (two
/// processes with as many ranks each).
pub const HALVES: u32 = 1;

/// The first `senders` pairs: each trial, the sender puts `reps` times
/// `bytes` into the window of its partner and flushes, timing that on the
/// device clock; then it notifies and the partner waits. One untimed put
/// comes first (the first touch of freshly mapped peer memory is slow).
/// Neighbour pairs spread senders over all multiprocessors, whatever the
/// block placement.
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
    let (bytes, stride) = (args.bytes as usize, args.stride as usize);
    let mem = if receiver {
        args.dst
            .slice(slot as usize * stride..slot as usize * stride + bytes)
    } else {
        DeviceSlice::empty()
    };
    let win = rank.win_create(world, mem);
    let sender = active && !receiver;
    let src = if sender {
        args.src
            .slice(slot as usize * stride..slot as usize * stride + bytes)
    } else {
        DeviceSlice::empty()
    };
    if sender {
        rank.put(win, partner, 0, src);
        rank.flush(win);
    }
    for trial in 0..args.trials {
        rank.barrier(world);
        if sender {
            let t0 = rank.timestamp();
            for _ in 0..args.reps {
                rank.put(win, partner, 0, src);
            }
            rank.flush(win);
            let t1 = rank.timestamp();
            let at = 2 * (trial * args.senders + slot) as usize;
            rank.single(|_| {
                // SAFETY: this sender's two elements of this trial, by thread 0.
                unsafe {
                    args.out.write(at, t0);
                    args.out.write(at + 1, t1);
                }
                0u32
            });
            rank.notify(world, partner, 1);
        } else if receiver {
            rank.wait_notifications(1, 1);
        }
    }
    rank.barrier(world);
    rank.win_free(win);
}

/// Arguments of [`raw_copy`](RAW_COPY).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CopyArgs {
    /// `blocks * stride` bytes.
    pub src: *const u8,
    /// `blocks * stride` bytes.
    pub dst: *mut u8,
    /// Bytes each block copies per repetition.
    pub bytes: u64,
    /// Bytes between two blocks' slices (a multiple of 8).
    pub stride: u64,
    /// Copies per trial.
    pub reps: u32,
    /// Timed trials.
    pub trials: u32,
    /// One zeroed word: the grid barrier's count.
    pub sync: *mut u32,
    /// `2 * trials * blocks` elements.
    pub out: *mut u64,
}

// SAFETY: `#[repr(C)]` plain data, the same layout on both sides.
unsafe impl dcuda_device::kernel::KernelParam for CopyArgs {}

/// Raw baseline: block `b` copies `bytes` from `src + b * stride` to
/// `dst + b * stride`, `reps` times a trial, with [`raw_block_copy`].
/// Thread 0 writes `[start, end]` of each trial to `out[2 * (trial *
/// blocks + b) ..]`. A grid barrier on `sync` starts every trial, as the
/// put's world barrier does. Launch cooperatively.
///
/// # Safety
/// The pointers in `a` hold what [`CopyArgs`] says.
#[kernel]
pub unsafe fn raw_copy(a: CopyArgs) {
    let (b, blocks) = (block_idx().x as usize, arch::grid_dim().x);
    let (stride, bytes, out) = (a.stride as usize, a.bytes, a.out);
    let (src, dst) = (a.src.add(b * stride), a.dst.add(b * stride));
    let (reps, trials, sync) = (a.reps, a.trials, a.sync);
    for trial in 0..trials {
        grid_barrier(sync, blocks * (trial + 1));
        let t0 = global_timer();
        for _ in 0..reps {
            raw_block_copy(dst, src, bytes as usize);
        }
        arch::sync_threads();
        if thread_idx().x == 0 {
            let at = 2 * (trial as usize * blocks as usize + b);
            *out.add(at) = t0;
            *out.add(at + 1) = global_timer();
        }
    }
}

/// Every block of a co-resident grid arrives at `sync` and waits until
/// `arrivals` blocks have, counting from the launch.
unsafe fn grid_barrier(sync: *mut u32, arrivals: u32) {
    arch::sync_threads();
    if thread_idx().x == 0 {
        arch::add(sync, 1, arch::Ordering::Release, arch::Scope::Gpu);
        while arch::load_acquire(sync, arch::Scope::Gpu) < arrivals {}
    }
    arch::sync_threads();
}

/// The copy loop a CUDA programmer writes: every thread of the block moves
/// 8-byte words, four in flight, then the tail bytes (`dst` and `src`
/// 8-byte aligned). The raw baselines' copy, for bandwidth and for the
/// ping-pong with data.
///
/// # Safety
/// Both ranges hold `bytes` bytes.
#[inline(always)]
pub unsafe fn raw_block_copy(dst: *mut u8, src: *const u8, bytes: usize) {
    let (t, n) = (thread_idx().x as usize, arch::block_dim().x as usize);
    let words = bytes / 8;
    let (s, d) = (src as *const u64, dst as *mut u64);
    let mut i = t;
    while i + 3 * n < words {
        let (w0, w1) = (s.add(i).read(), s.add(i + n).read());
        let (w2, w3) = (s.add(i + 2 * n).read(), s.add(i + 3 * n).read());
        d.add(i).write(w0);
        d.add(i + n).write(w1);
        d.add(i + 2 * n).write(w2);
        d.add(i + 3 * n).write(w3);
        i += 4 * n;
    }
    while i < words {
        d.add(i).write(s.add(i).read());
        i += n;
    }
    let mut i = words * 8 + t;
    while i < bytes {
        dst.add(i).write(src.add(i).read());
        i += n;
    }
}
