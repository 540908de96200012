//! A randomized many-to-many stress test of notified access: every round,
//! each rank puts a message to `fanout` distinct pseudo-random targets
//! (chosen from `seed`), with a notification. Every receiver knows from the
//! seed which messages it must get, waits for them, and checks each one:
//! its source, its round (order), its payload and its checksum.

use dcuda_device::{rank, DeviceSlice, Rank};

/// Words per message: source, round, payload, checksum.
pub const WORDS: usize = 8;

/// Arguments of [`stress`](STRESS).
#[repr(C)]
#[derive(Clone, Copy)]
pub struct StressArgs {
    /// Per device rank: one message slot per world rank.
    pub inbox: DeviceSlice<u32>,
    /// Per device rank: one outgoing message per target of a round.
    pub outbox: DeviceSlice<u32>,
    /// Per device rank: `[messages checked, bad messages, first bad round,
    /// first bad source]`.
    pub report: DeviceSlice<u32>,
    /// Rounds.
    pub rounds: u32,
    /// Targets per rank and round (fewer than the world's ranks).
    pub fanout: u32,
    /// The seed of the pattern and the payloads.
    pub seed: u32,
}

/// A 32-bit mix of four words (the host computes the same).
pub const fn mix(seed: u32, a: u32, b: u32, c: u32) -> u32 {
    let mut x = seed
        ^ a.wrapping_mul(0x9e37_79b9)
        ^ b.wrapping_mul(0x85eb_ca6b)
        ^ c.wrapping_mul(0xc2b2_ae35);
    x ^= x >> 16;
    x = x.wrapping_mul(0x7feb_352d);
    x ^= x >> 15;
    x = x.wrapping_mul(0x846c_a68b);
    x ^ (x >> 16)
}

/// Target `j` of `source` in `round`, among `n` ranks: `fanout` distinct
/// ranks other than `source`.
pub const fn target(seed: u32, source: u32, round: u32, j: u32, n: u32) -> u32 {
    let base = mix(seed, source, round, 0xffff) % (n - 1);
    (source + 1 + (base + j) % (n - 1)) % n
}

/// Word `i` of the message from `source` to `dest` in `round`.
pub const fn word(seed: u32, source: u32, dest: u32, round: u32, i: usize) -> u32 {
    match i {
        0 => source,
        1 => round,
        _ if i == WORDS - 1 => {
            let mut sum = 0u32;
            let mut k = 2;
            while k < WORDS - 1 {
                sum = sum.rotate_left(5) ^ mix(seed, source, dest, round * 16 + k as u32);
                k += 1;
            }
            sum
        }
        _ => mix(seed, source, dest, round * 16 + i as u32),
    }
}

#[rank]
pub fn stress(rank: &mut Rank, args: &StressArgs) {
    let world = rank.world();
    let (me, n) = (world.rank(), world.size());
    let dev = rank.device().rank() as usize;
    let (seed, fanout) = (args.seed, args.fanout);
    let inbox = args.inbox.chunk(dev, n as usize * WORDS);
    let outbox = args.outbox.chunk(dev, fanout as usize * WORDS);
    let win = rank.win_create(world, inbox);
    let (mut checked, mut bad, mut first_round, mut first_source) =
        (0u32, 0u32, u32::MAX, u32::MAX);
    for round in 0..args.rounds {
        for j in 0..fanout {
            let to = target(seed, me, round, j, n);
            let message = outbox.chunk(j as usize, WORDS);
            rank.threads(|t| {
                let i = t.index() as usize;
                if i < WORDS {
                    // SAFETY: each word is written by one thread.
                    unsafe { message.write(i, word(seed, me, to, round, i)) };
                }
            });
            rank.put_notify(win, to, me as usize * WORDS, message, 0);
        }
        // The messages this rank must get this round.
        let mut expected = 0;
        for source in 0..n {
            if source != me && (0..fanout).any(|j| target(seed, source, round, j, n) == me) {
                expected += 1;
            }
        }
        rank.wait_notifications(0, expected);
        for source in 0..n {
            if source == me || !(0..fanout).any(|j| target(seed, source, round, j, n) == me) {
                continue;
            }
            let slot = inbox.chunk(source as usize, WORDS);
            // SAFETY: the sender notified after writing, and nobody writes
            // the slot again before the barrier below.
            let good =
                (0..WORDS).all(|i| unsafe { slot.read(i) } == word(seed, source, me, round, i));
            checked += 1;
            if !good {
                bad += 1;
                if first_round == u32::MAX {
                    first_round = round;
                    first_source = source;
                }
            }
        }
        // Every rank has read its inbox, and every put has left its
        // outbox, before the next round writes them.
        rank.flush(win);
        rank.barrier(world);
    }
    let report = args.report.chunk(dev, 4);
    // SAFETY: uniform stores of uniform values to this rank's report.
    unsafe {
        report.write(0, checked);
        report.write(1, bad);
        report.write(2, first_round);
        report.write(3, first_source);
    }
    rank.win_free(win);
}
