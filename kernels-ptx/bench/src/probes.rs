//! Diagnostic kernels (`bench_probes`): where the time of a device barrier
//! and of an 8-byte message goes. Each variant is a kernel of its own, so
//! that one variant's code does not move another's code generation (a
//! mode branch inside one kernel did: `bench/results/2026-11-27-messages-barrier`);
//! [`barrier_latency`](crate::barrier_latency) is the runtime's barrier
//! alone in its kernel.

use crate::{barrier_batches, CollectiveLatencyArgs};
use dcuda_device::arch::{self, Ordering, Scope};
use dcuda_device::{rank, DeviceSlice, Rank, Source};

/// The device barrier's protocol with raw atomics on `args.result`'s
/// word (zeroed by the host): the block's barrier, then the leader's
/// arrival and polls, its result broadcast by `Rank::single` (one block
/// barrier), as the runtime's waits do.
#[rank]
pub fn barrier_raw(rank: &mut Rank, args: &CollectiveLatencyArgs) {
    // An address, so that the leader's closure is `Sync`.
    let (word, ranks, id) = (args.result.as_mut_ptr() as usize, rank.size(), rank.id());
    barrier_batches(rank, args, |r| {
        r.sync_threads();
        // SAFETY: one zeroed word, used by this barrier alone.
        r.single(|_| unsafe { arrive_and_wait(word as *mut u32, ranks, id) });
    });
}

/// One arrival at the one-word barrier and the wait for its phase to flip
/// (cooperative groups' grid barrier with acquire polls).
///
/// # Safety
/// `word` is zeroed before the run and used by this barrier alone, and all
/// `ranks` device ranks call it.
#[inline(always)]
unsafe fn arrive_and_wait(word: *mut u32, ranks: u32, id: u32) -> u32 {
    const FLIP: u32 = 1 << 31;
    let add = if id == 0 { FLIP - (ranks - 1) } else { 1 };
    // SAFETY: as the caller promises.
    unsafe {
        let old = arch::fetch_add(word, add, Ordering::AcqRel, Scope::Gpu);
        if (old.wrapping_add(add) ^ old) & FLIP == 0 {
            while (arch::load_acquire(word, Scope::Gpu) ^ old) & FLIP == 0 {}
        }
    }
    0
}

/// Arguments of [`message_timeline`](MESSAGE_TIMELINE).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct TimelineArgs {
    /// 0: `put_notify` and `wait_notifications`; 1: `send` and `recv`;
    /// 2: `send`, and `iprobe` until it finds the message, then `recv`;
    /// 3: `send` and `notify`, and `wait_notifications`, then `recv`.
    pub mode: u32,
    /// Timed batches (after one warm-up batch).
    pub batches: u32,
    /// Round trips per batch.
    pub iters: u32,
    /// Nonzero when the two sides are in different processes: the last
    /// rank then sends its sums to world rank 0, whose `sums` hold both.
    pub gather: u32,
    /// One `u64` per device rank: what it sends.
    pub src: DeviceSlice<u64>,
    /// One `u64` per device rank: its window, where it receives.
    pub dst: DeviceSlice<u64>,
    /// Per batch and side (world rank 0, then the last): the wrapping sums
    /// over the batch's round trips of the device clock at [`POINTS`]
    /// points: before each transfer, after it, when an arrival is seen
    /// (modes 2 and 3; else when it returns) and after each arrival.
    pub sums: DeviceSlice<u64>,
}

/// Clock readings a side sums per round trip in [`message_timeline`](MESSAGE_TIMELINE).
pub const POINTS: usize = 4;

/// The ping-pong of `message_bench` with 8-byte transfers, each side
/// summing its clock readings around its transfers and arrivals
/// (`Rank::timestamp`: one block barrier each, on both sides): the
/// differences of the two sides' sums give the mean time a transfer takes
/// its sender, and from its end until the receiver sees it and returns.
#[rank]
pub fn message_timeline(rank: &mut Rank, args: &TimelineArgs) {
    let world = rank.world();
    let (me, last) = (world.rank(), world.size() - 1);
    let src = args.src.chunk(rank.id() as usize, 1);
    let dst = args.dst.chunk(rank.id() as usize, 1);
    let win = rank.win_create(world, dst);
    let (data, seen) = (1, 2);
    if last > 0 && (me == 0 || me == last) {
        let (first, peer) = (me == 0, last - me);
        let side = if first { 0 } else { 1 };
        for b in 0..=args.batches {
            let mut sums = [0u64; POINTS];
            let send = |rank: &mut Rank, sums: &mut [u64; POINTS]| {
                sums[0] = sums[0].wrapping_add(rank.timestamp());
                if args.mode == 0 {
                    rank.put_notify(win, peer, 0, src, data);
                } else {
                    rank.send(world, peer, data, src);
                    if args.mode == 3 {
                        rank.notify(world, peer, seen);
                    }
                }
                sums[1] = sums[1].wrapping_add(rank.timestamp());
            };
            let arrive = |rank: &mut Rank, sums: &mut [u64; POINTS]| {
                if args.mode == 0 {
                    rank.wait_notifications(data, 1);
                } else {
                    if args.mode == 2 {
                        while rank.iprobe(world, Source::Rank(peer), Some(data)).is_none() {}
                    } else if args.mode == 3 {
                        rank.wait_notifications(seen, 1);
                    }
                    if args.mode >= 2 {
                        let t = rank.timestamp();
                        sums[2] = sums[2].wrapping_add(t);
                    }
                    rank.recv(world, Source::Rank(peer), Some(data), dst);
                }
                let t = rank.timestamp();
                if args.mode < 2 {
                    sums[2] = sums[2].wrapping_add(t);
                }
                sums[3] = sums[3].wrapping_add(t);
            };
            for _ in 0..args.iters {
                if first {
                    send(rank, &mut sums);
                    arrive(rank, &mut sums);
                } else {
                    arrive(rank, &mut sums);
                    send(rank, &mut sums);
                }
            }
            if b > 0 {
                rank.single(|_| {
                    for (k, s) in sums.iter().enumerate() {
                        let at = ((b as usize - 1) * 2 + side) * POINTS + k;
                        // SAFETY: POINTS elements per batch and side,
                        // written by this side's leader.
                        unsafe { args.sums.write(at, *s) };
                    }
                    0u32
                });
            }
        }
        if args.gather != 0 {
            // The last rank's sums, batch by batch, to world rank 0.
            let tag = 3;
            for b in 0..args.batches as usize {
                let theirs = args.sums.chunk(b * 2 + 1, POINTS);
                if first {
                    rank.recv(world, Source::Rank(peer), Some(tag), theirs);
                } else {
                    rank.send(world, peer, tag, theirs);
                }
            }
        }
    }
    rank.barrier(world);
    rank.win_free(win);
}
