//! Two-sided messages against notified puts between two ranks: world rank
//! 0 and the last world rank (two ranks of one GPU, or of two processes),
//! the same sizes, the same timing (device clock, per batch).

use dcuda_device::{rank, DeviceSlice, Rank, Source};

/// The data tag, and the tag of the acknowledgement that ends a stream.
const DATA: u32 = 1;
const ACK: u32 = 2;

/// Arguments of [`message_bench`](MESSAGE_BENCH).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct MessageBenchArgs {
    /// 0: `put_notify` into a window and `wait_notifications`; 1: `send`
    /// and `recv`.
    pub mode: u32,
    /// 0: ping-pong (latency); 1: a stream of `iters` messages, then an
    /// acknowledgement (bandwidth).
    pub stream: u32,
    /// Elements (`u64`) per message.
    pub len: u32,
    /// Timed batches.
    pub batches: u32,
    /// Round trips or messages per batch.
    pub iters: u32,
    /// `len` per device rank: what it sends.
    pub src: DeviceSlice<u64>,
    /// `len` per device rank: its window, and where it receives.
    pub dst: DeviceSlice<u64>,
    /// World rank 0 writes each batch's nanoseconds here.
    pub out: DeviceSlice<u64>,
}

/// World rank 0 (the first) and the last world rank exchange messages of
/// `len` elements in `batches` timed batches, after a warm-up batch; every
/// other rank waits in the final barrier.
#[rank]
pub fn message_bench(rank: &mut Rank, args: &MessageBenchArgs) {
    let world = rank.world();
    let (me, last) = (world.rank(), world.size() - 1);
    let len = args.len as usize;
    let src = args.src.chunk(rank.id() as usize, len);
    let dst = args.dst.chunk(rank.id() as usize, len);
    let win = rank.win_create(world, dst);
    if last > 0 && (me == 0 || me == last) {
        let first = me == 0;
        let peer = last - me;
        for b in 0..=args.batches {
            let t0 = rank.timestamp();
            if args.stream == 0 {
                for _ in 0..args.iters {
                    if first {
                        transfer(rank, args.mode, win, peer, src);
                        arrive(rank, args.mode, peer, dst, 1);
                    } else {
                        arrive(rank, args.mode, peer, dst, 1);
                        transfer(rank, args.mode, win, peer, src);
                    }
                }
            } else if first {
                for _ in 0..args.iters {
                    transfer(rank, args.mode, win, peer, src);
                }
                rank.recv(world, Source::Rank(peer), Some(ACK), dst.slice(0..1));
            } else {
                arrive(rank, args.mode, peer, dst, args.iters);
                rank.send(world, peer, ACK, src.slice(0..1));
            }
            let t1 = rank.timestamp();
            if first && b > 0 {
                rank.single(|_| {
                    // SAFETY: one element per batch, written by one thread.
                    unsafe { args.out.write(b as usize - 1, t1 - t0) };
                    0u32
                });
            }
        }
    }
    rank.barrier(world);
    rank.win_free(win);
}

/// Sends `src` to world rank `peer`: a notified put into its window, or a
/// message.
#[inline(always)]
fn transfer(
    rank: &mut Rank,
    mode: u32,
    win: dcuda_device::Window<u64>,
    peer: u32,
    src: DeviceSlice<u64>,
) {
    if mode == 0 {
        rank.put_notify(win, peer, 0, src, DATA);
    } else {
        let world = rank.world();
        rank.send(world, peer, DATA, src);
    }
}

/// Waits for `count` transfers from world rank `peer`.
#[inline(always)]
fn arrive(rank: &mut Rank, mode: u32, peer: u32, dst: DeviceSlice<u64>, count: u32) {
    if mode == 0 {
        rank.wait_notifications(DATA, count);
    } else {
        let world = rank.world();
        for _ in 0..count {
            rank.recv(world, Source::Rank(peer), Some(DATA), dst);
        }
    }
}
