//! Two-sided messages over the world, checked inside the kernel: a flood
//! of eager and long messages to rank 0, which first takes all of the last
//! rank's past the others' older ones, then the rest with wildcards,
//! checking each sender's order; a ring of short messages found
//! with `iprobe` and `probe` before `recv`; long messages exchanged in
//! pairs; and the same tag on the world and on a dup of it kept apart.

use crate::runtime_checks::fill;
use dcuda_device::{rank, DeviceCopy, DeviceSlice, Rank, Source, Sum};

/// Arguments of [`message_checks`](MESSAGE_CHECKS).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct MessageArgs {
    /// Elements of a long message (past the eager size).
    pub len: u32,
    /// Messages each rank but 0 sends to rank 0.
    pub rounds: u32,
    /// `len` elements per device rank: send and receive buffers.
    pub send: DeviceSlice<u64>,
    pub recv: DeviceSlice<u64>,
    /// [`MESSAGE_RESULTS`] words per device rank.
    pub out: DeviceSlice<u64>,
}

/// Words per rank of [`MessageArgs::out`]: errors found, messages rank 0
/// received in the flood, the ring message's source and bytes as `probe`
/// told them, 1 if the rank had a partner for long messages, and the
/// mismatches of the world-and-dup check, and how many messages from
/// other processes rank 0 received after one that came later.
pub const MESSAGE_RESULTS: usize = 7;

/// Messages each rank of another process than rank 0's (but the last
/// rank) sends it to fill its inbox.
pub const OUT_OF_TURN: u32 = 20;

/// Element `i` of message `round` of world rank `w`.
pub const fn message_value(w: u32, round: u32, i: u32) -> u64 {
    ((w as u64) << 40) | ((round as u64) << 20) | i as u64
}

/// Short flood messages each sender sends first: more than a log holds,
/// so one sender alone fills it and goes on through its envelope.
pub const FLOOD_BURST: u32 = dcuda_device::abi::MSG_LOG as u32 + 2;

/// Elements of flood message `round`: a long one (a sender's first
/// message call), a burst of short ones, then short and long ones
/// alternate. The short ones are 16 bytes (the payload travels in the
/// leader's registers) or 24 bytes (the threads copy it), mixed, so that
/// both kinds also go through a full log's envelopes.
pub const fn flood_len(round: u32, len: u32) -> u32 {
    if round > 0 && (round < FLOOD_BURST || round.is_multiple_of(2)) {
        2 + round % 3 / 2
    } else {
        len
    }
}

/// The longest of the short messages of every length (bytes).
pub const SHORTEST_BYTES: usize = 17;

/// Elements of the ring message of world rank `w`: 1 to 4, eager.
pub const fn ring_len(w: u32) -> u32 {
    w % 4 + 1
}

/// How many of the first `n` elements of `buf` differ from `value`.
fn mismatches<T: DeviceCopy + PartialEq>(
    rank: &mut Rank,
    buf: DeviceSlice<T>,
    n: usize,
    value: impl Fn(u32) -> T + Sync,
) -> u64 {
    let stride = rank.threads_per_rank() as usize;
    rank.reduce(
        |t| {
            let (mut k, mut bad) = (t.index() as usize, 0u64);
            while k < n {
                // SAFETY: in the buffer; written before the last block call.
                bad += (unsafe { buf.read(k) } != value(k as u32)) as u64;
                k += stride;
            }
            bad
        },
        Sum,
    )
}

// ANCHOR: messages
#[rank]
pub fn message_checks(rank: &mut Rank, args: &MessageArgs) {
    let world = rank.world();
    let (me, n, id) = (world.rank(), world.size(), rank.id() as usize);
    let len = args.len as usize;
    let (send, recv) = (args.send.chunk(id, len), args.recv.chunk(id, len));
    let mut got = [0u64; MESSAGE_RESULTS];

    // A flood to rank 0 on a dup of the world (its wildcard receives must
    // not take the ring's messages below): eager and long, tags 0, 1, 2.
    let flood = rank.comm_dup(world);
    if me != 0 {
        for round in 0..args.rounds {
            let l = flood_len(round, args.len) as usize;
            fill(rank, send.slice(0..l), |i| {
                message_value(me, round, i as u32)
            });
            rank.send(flood, 0, round % 3, send.slice(0..l));
        }
    } else if n > 1 {
        // The last rank's messages first, past the others' older ones,
        // then the rest in any order, each sender's in the order sent.
        let last = n - 1;
        for round in 0..args.rounds {
            let st = rank.recv(flood, Source::Rank(last), None, recv);
            got[0] += (st.source != last || st.tag != round % 3) as u64;
            got[0] += mismatches(rank, recv, st.count::<u64>(), |i| {
                message_value(last, round, i)
            });
            got[1] += 1;
        }
        let mut next = [0u32; 64];
        let total = (n - 1) * args.rounds;
        while (got[1] as u32) < total {
            let st = rank.recv(flood, Source::Any, None, recv);
            let s = st.source;
            let round = next[s as usize % 64];
            next[s as usize % 64] = round + 1;
            got[0] += (s == last) as u64;
            got[0] += (st.tag != round % 3) as u64;
            got[0] += (st.count::<u64>() != flood_len(round, args.len) as usize) as u64;
            got[0] += mismatches(rank, recv, st.count::<u64>(), |i| {
                message_value(s, round, i)
            });
            got[1] += 1;
        }
    }

    rank.comm_free(flood);

    // Out of turn: the ranks of other processes than rank 0's fill its
    // inbox (their sends return once their host has the message); after
    // a barrier, rank 0 first receives the last rank's later message.
    let remote = me != rank.device().rank();
    if remote && me != n - 1 {
        for round in 0..OUT_OF_TURN {
            rank.send(world, 0, 5, send.slice(0..1));
            got[0] += (round >= OUT_OF_TURN) as u64;
        }
    }
    rank.barrier(world);
    if me == n - 1 {
        rank.send(world, 0, 6, send.slice(0..2));
    }
    if me == 0 {
        let st = rank.recv(world, Source::Rank(n - 1), Some(6), recv);
        got[0] += (st.bytes != 16) as u64;
        let here = rank.device().size();
        let senders = n - here - (n > here) as u32;
        for _ in 0..senders * OUT_OF_TURN {
            rank.recv(world, Source::Any, Some(5), recv);
            got[6] += 1;
        }
    }

    // A ring of short messages: found with iprobe and probe, then received.
    fill(rank, send.slice(0..4), |i| message_value(me, 0, i as u32));
    rank.send(world, (me + 1) % n, 7, send.slice(0..ring_len(me) as usize));
    let from = (me + n - 1) % n;
    while rank.iprobe(world, Source::Rank(from), Some(7)).is_none() {}
    let st = rank.probe(world, Source::Any, Some(7));
    got[2] = st.source as u64;
    got[3] = st.bytes;
    let st = rank.recv(
        world,
        Source::Rank(st.source),
        Some(st.tag),
        recv.slice(0..st.count::<u64>()),
    );
    got[0] += mismatches(rank, recv, st.count::<u64>(), |i| message_value(from, 0, i));

    // Long messages in pairs: the even rank sends first.
    let partner = me ^ 1;
    if partner < n {
        fill(rank, send, |i| message_value(me, 1, i as u32));
        if me.is_multiple_of(2) {
            rank.send(world, partner, 3, send);
            rank.recv(world, Source::Rank(partner), Some(3), recv);
        } else {
            rank.recv(world, Source::Rank(partner), Some(3), recv);
            rank.send(world, partner, 3, send);
        }
        got[0] += mismatches(rank, recv, len, |i| message_value(partner, 1, i));
        got[4] = 1;
    }

    // The same tag to itself on the world and on a dup: each receive
    // takes its own communicator's message.
    let dup = rank.comm_dup(world);
    fill(rank, send.slice(0..2), |i| 100 + i as u64);
    rank.send(world, me, 9, send.slice(0..1));
    rank.send(dup, me, 9, send.slice(1..2));
    rank.recv(dup, Source::Rank(me), Some(9), recv.slice(0..1));
    rank.recv(world, Source::Any, Some(9), recv.slice(1..2));
    got[5] = mismatches(rank, recv, 2, |i| 101 - i as u64);
    rank.comm_free(dup);

    // Short messages of every length to 17 bytes, from and to odd and
    // even offsets, to itself: the lengths whose payload travels in the
    // leader's registers and their neighbours. Bytes around the received
    // ones stay as they were.
    // SAFETY: byte views of this rank's `len` words of each buffer.
    let (sb, rb) = unsafe {
        (
            DeviceSlice::from_raw_parts(send.as_mut_ptr() as *mut u8, len * 8),
            DeviceSlice::from_raw_parts(recv.as_mut_ptr() as *mut u8, len * 8),
        )
    };
    for n in 1..=SHORTEST_BYTES {
        let (from, to) = (n % 2 + n % 3, n % 4);
        fill(rank, sb.slice(from..from + n), |i| (n * 31 + i) as u8);
        fill(rank, rb.slice(0..SHORTEST_BYTES + 8), |_| 0xEE);
        rank.send(world, me, 10, sb.slice(from..from + n));
        let st = rank.recv(world, Source::Rank(me), Some(10), rb.slice(to..to + n));
        got[0] += (st.bytes != n as u64) as u64;
        got[0] += mismatches(rank, rb, SHORTEST_BYTES + 8, |i| {
            let i = i as usize;
            if (to..to + n).contains(&i) {
                (n * 31 + i - to) as u8
            } else {
                0xEE
            }
        });
    }

    let out = args.out.chunk(id, MESSAGE_RESULTS);
    rank.threads(|t| {
        if let Some(v) = got.get(t.index() as usize) {
            // SAFETY: each thread writes its own word of this rank's results.
            unsafe { out.write(t.index() as usize, *v) };
        }
    });
}
// ANCHOR_END: messages

/// Elements of the messages [`peer_message_checks`](PEER_MESSAGE_CHECKS) sends each round, in
/// order: in registers, inline, over several records, and the longest
/// that goes into a mapped GPU's peer log.
pub const PEER_LENS: [u32; 4] = [
    1,
    (dcuda_device::abi::EAGER / 8) as u32,
    300,
    (dcuda_device::abi::PEER_EAGER / 8) as u32,
];

/// Messages between processes, in pairs of ranks half the world apart
/// (the last rank of an odd world sits out): in `rounds` rounds the lower
/// rank sends [`PEER_LENS`] with one tag, then takes them back from its
/// partner (received in the order sent); with `len` past the longest of
/// them, each round adds a message of `len` elements and a short one after
/// it. `out`: errors, and messages received.
#[rank]
pub fn peer_message_checks(rank: &mut Rank, args: &MessageArgs) {
    let world = rank.world();
    let (me, n, id) = (world.rank(), world.size(), rank.id() as usize);
    let len = args.len as usize;
    let (send, recv) = (args.send.chunk(id, len), args.recv.chunk(id, len));
    let half = n / 2;
    let mut got = [0u64; 2];
    if me < 2 * half {
        let (partner, lower) = if me < half {
            (me + half, true)
        } else {
            (me - half, false)
        };
        let mut lens = [0u32; 6];
        lens[..4].copy_from_slice(&PEER_LENS);
        let count = if args.len > PEER_LENS[3] {
            lens[4] = args.len;
            lens[5] = 2;
            6
        } else {
            4
        };
        let lens = &lens[..count];
        for round in 0..args.rounds {
            for turn in [lower, !lower] {
                for (i, &l) in lens.iter().enumerate() {
                    let l = l as usize;
                    let code = round * 8 + i as u32;
                    if turn {
                        fill(rank, send.slice(0..l), |k| {
                            message_value(me, code, k as u32)
                        });
                        rank.send(world, partner, 11, send.slice(0..l));
                    } else {
                        let st = rank.recv(world, Source::Rank(partner), Some(11), recv);
                        got[0] += (st.count::<u64>() != l) as u64;
                        got[0] += mismatches(rank, recv, st.count::<u64>(), |k| {
                            message_value(partner, code, k)
                        });
                        got[1] += 1;
                    }
                }
            }
        }
    }
    let out = args.out.chunk(id, MESSAGE_RESULTS);
    rank.threads(|t| {
        if let Some(v) = got.get(t.index() as usize) {
            // SAFETY: each thread writes its own word of this rank's results.
            unsafe { out.write(t.index() as usize, *v) };
        }
    });
}
