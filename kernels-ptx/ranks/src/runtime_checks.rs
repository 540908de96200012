//! Kernels that exercise the runtime; the host checks them in
//! `examples/tests/runtime.rs` on the emulator and on the GPU.

use dcuda_device::{rank, rank_log, DeviceCopy, DeviceSlice, Match, Rank, Source};

/// Arguments shared by the checks below.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct CheckArgs {
    /// Per-rank window memory, `words` u32 per rank.
    pub data: DeviceSlice<u32>,
    /// Per-rank results, `words` u32 per rank.
    pub out: DeviceSlice<u32>,
    /// u32 per rank in `data` and `out`.
    pub words: u32,
    /// Rounds of the exchange.
    pub rounds: u32,
    /// A selector for the bad-argument checks.
    pub case: u32,
}

// Memory is per process: a rank's slot is at its device rank, so that the
// same kernels run unchanged in a job of several processes.
impl CheckArgs {
    pub(crate) fn data(&self, rank: u32) -> DeviceSlice<u32> {
        self.data.chunk(rank as usize, self.words as usize)
    }
    pub(crate) fn out(&self, rank: u32) -> DeviceSlice<u32> {
        self.out.chunk(rank as usize, self.words as usize)
    }
}

/// Sets `dst[k] = value(k)` for every element, the rank's threads striding
/// over them.
pub(crate) fn fill<T: DeviceCopy>(
    rank: &mut Rank,
    dst: DeviceSlice<T>,
    value: impl Fn(usize) -> T + Sync,
) {
    let stride = rank.threads_per_rank() as usize;
    rank.threads(|t| {
        let mut k = t.index() as usize;
        while k < dst.len() {
            // SAFETY: each element is written by one thread.
            unsafe { dst.write(k, value(k)) };
            k += stride;
        }
    });
}

/// Ring exchange: each round, every rank puts its `words` values into the
/// next rank's window with a notification, waits for its own, and adds the
/// received values to its output. The tag cycles through all 256 tags.
#[rank]
pub fn ring_exchange(rank: &mut Rank, args: &CheckArgs) {
    let world = rank.world();
    let (me, n) = (world.rank(), world.size());
    let data = args.data(rank.device().rank());
    let out = args.out(rank.device().rank());
    let win = rank.win_create(world, data);
    for round in 0..args.rounds {
        let tag = round % 256;
        // The payload lives in this rank's output slot while in flight.
        fill(rank, out, |k| me * 1000 + round + k as u32);
        rank.flush(win);
        rank.put_notify(win, (me + 1) % n, 0, out, tag);
        rank.wait_notifications(tag, 1);
        rank.flush(win);
        rank.barrier(world); // Everyone has read its input before the next round overwrites it.
    }
    // The last round's data sits in the window; copy it out for the host.
    // SAFETY: the window is no longer written.
    fill(rank, out, |k| unsafe { data.read(k) });
    rank.win_free(win);
}

/// Notifications only: each rank notifies every other rank once per round
/// with tag `round % 8`, then waits for `size - 1` of them; test, then
/// wait. `out[me][0]` counts successful tests of an absent tag (must be 0),
/// `out[me][1]` the rounds completed.
#[rank]
pub fn all_notify(rank: &mut Rank, args: &CheckArgs) {
    let world = rank.world();
    let (me, n) = (world.rank(), world.size());
    let out = args.out(rank.device().rank());
    let mut false_tests = 0u32;
    for round in 0..args.rounds {
        let tag = round % 8;
        for k in 1..n {
            rank.notify(world, (me + k) % n, tag);
        }
        if rank.test_notifications(200, 1) {
            false_tests += 1;
        }
        rank.wait_notifications(tag, n - 1);
        rank.barrier(world);
    }
    // SAFETY: uniform stores of uniform values to this rank's slot.
    unsafe {
        out.write(0, false_tests);
        out.write(1, args.rounds);
    }
}

// ANCHOR: notify_each
/// `notify_each`: in round `r` every rank notifies `r % 9` targets (none
/// to eight), `(me + 1 + j·(r + 1)) % n` for the `j`-th, so a small world
/// lists a rank twice; then it waits for what the others sent it, and
/// after a barrier tests that nothing more came. `out[me][0]` counts
/// notifications found beyond those (must be 0), `out[me][1]` the rounds.
#[rank]
pub fn notify_each_rounds(rank: &mut Rank, args: &CheckArgs) {
    let world = rank.world();
    let (me, n) = (world.rank(), world.size());
    let out = args.out(rank.device().rank());
    let mut extra = 0u32;
    for round in 0..args.rounds {
        let (tag, m) = (round % 8, round % 9);
        let target = |from: u32, j: u32| (from + 1 + j * (round + 1)) % n;
        let mut targets = [0u32; 8];
        for j in 0..m {
            targets[j as usize] = target(me, j);
        }
        rank.notify_each(world, &targets[..m as usize], tag);
        let expected = (0..n)
            .map(|from| (0..m).filter(|&j| target(from, j) == me).count() as u32)
            .sum::<u32>();
        if expected > 0 {
            rank.wait_notifications(tag, expected);
        }
        rank.barrier(world);
        if rank.test_notifications(tag, 1) {
            extra += 1;
        }
    }
    // SAFETY: uniform stores of uniform values to this rank's slot.
    unsafe {
        out.write(0, extra);
        out.write(1, args.rounds);
    }
}
// ANCHOR_END: notify_each

/// Gets: each rank writes its window, barrier, then gets its left
/// neighbour's values with a notification to that neighbour, which waits
/// for it. `out[me]` holds the neighbour's values.
#[rank]
pub fn neighbour_get(rank: &mut Rank, args: &CheckArgs) {
    let world = rank.world();
    let (me, n) = (world.rank(), world.size());
    let data = args.data(rank.device().rank());
    let out = args.out(rank.device().rank());
    fill(rank, data, |k| me * 7 + k as u32);
    let win = rank.win_create(world, data);
    let left = (me + n - 1) % n;
    rank.get_notify(win, left, 0, out, 9);
    rank.wait_notifications(9, 1); // My right neighbour read my data.
    rank.win_free(win);
}

/// Matching, in two phases. Ranks 1.. send to rank 0 on a matched window.
/// Phase 1: `rounds` notifications each, tags alternating 1 and 2 (all fit
/// in the log); rank 0 takes each source's tag-2 ones by source, then the
/// rest with a tag wildcard. Phase 2: `case` notifications each with tag 3,
/// more than the log holds, so senders wait for room; rank 0 takes them with
/// a full wildcard. `out[0]`: `[by source, by tag wildcard, by full wildcard,
/// 1 if anything was left]`.
// ANCHOR: matching
#[rank]
pub fn matching(rank: &mut Rank, args: &CheckArgs) {
    let world = rank.world();
    let (me, n) = (world.rank(), world.size());
    let data = args.data(rank.device().rank());
    let win = rank.win_create_matched(world, data);
    if me != 0 {
        for round in 0..args.rounds {
            rank.put_notify(win, 0, me as usize, data.slice(0..1), 1 + round % 2);
        }
        // Phase 1 is all in the log before phase 2 can fill it.
        rank.barrier(world);
        for _ in 0..args.case {
            rank.notify_matched(win, 0, 3);
        }
    } else {
        rank.barrier(world);
        let out = args.out(0);
        let mut by_source = 0;
        for source in 1..n {
            rank.wait_match(
                Match::any()
                    .source(Source::Rank(source))
                    .window(&win)
                    .tag(2),
                args.rounds / 2,
            );
            by_source += args.rounds / 2;
        }
        let rest = (n - 1) * args.rounds - by_source;
        rank.wait_match(Match::any().tag(1), rest);
        let mut wildcard = 0;
        let total = (n - 1) * args.case;
        while wildcard < total {
            let chunk = (total - wildcard).min(32);
            rank.wait_match(Match::any(), chunk);
            wildcard += chunk;
        }
        let left = rank.test_match(Match::any(), 1);
        // SAFETY: uniform stores of uniform values to rank 0's slot.
        unsafe {
            out.write(0, by_source);
            out.write(1, rest);
            out.write(2, wildcard);
            out.write(3, left as u32);
        }
    }
    rank.barrier(world);
    rank.win_free(win);
}

// ANCHOR_END: matching

/// Host services: a timed section with a barrier, a log line per rank, and
/// host round trips. `out[me][0]` is the last ping reply.
// ANCHOR: host_services
#[rank]
pub fn host_services(rank: &mut Rank, args: &CheckArgs) {
    let me = rank.world().rank();
    rank.start_timer(7);
    let t0 = rank.timestamp();
    let mut reply = 0;
    for _ in 0..args.rounds {
        reply = rank.host_ping();
    }
    let t1 = rank.timestamp();
    rank.stop_timer(7);
    rank_log!(
        rank,
        "rank {} pinged {} times in {} ns",
        me,
        args.rounds,
        t1 - t0
    );
    // SAFETY: a uniform store to this rank's slot.
    unsafe { args.out(rank.device().rank()).write(0, reply) };
}

// ANCHOR_END: host_services

/// A deadlock: the last rank waits for a notification nobody sends; the
/// others wait in a barrier it never reaches. The watchdog must end it.
// ANCHOR: deadlock
#[rank]
pub fn deadlock(rank: &mut Rank, _args: &CheckArgs) {
    let world = rank.world();
    if world.rank() == world.size() - 1 {
        rank.wait_notifications(5, 1);
    }
    rank.barrier(world);
}

// ANCHOR_END: deadlock

/// Byte puts at every alignment: for each `k < rounds`, rank 0 puts
/// `words * 4 - k` bytes from byte `k` of its data into byte `k` (same
/// skew) and into byte `k + 1` (different skew) of rank 1's window, which
/// copies its window to `out + round * words * 4` after each put. The
/// host checks every byte.
#[rank]
pub fn skewed_puts(rank: &mut Rank, args: &CheckArgs) {
    let world = rank.world();
    let me = world.rank();
    let bytes = args.words as usize * 4;
    let words = args.data(rank.device().rank());
    // Byte `i` holds `i mod 256`.
    fill(rank, words, |k| {
        let b = k as u32 * 4;
        u32::from_le_bytes([b as u8, (b + 1) as u8, (b + 2) as u8, (b + 3) as u8])
    });
    // SAFETY: the same memory as `words`, viewed as bytes.
    let (data, out) = unsafe {
        (
            DeviceSlice::from_raw_parts(words.as_mut_ptr() as *mut u8, bytes),
            DeviceSlice::from_raw_parts(args.out.as_mut_ptr() as *mut u8, args.out.len() * 4),
        )
    };
    let win = rank.win_create(world, data);
    for round in 0..2 * args.rounds as usize {
        let (k, shift) = (round / 2, round % 2);
        if me == 0 {
            rank.put_notify(win, 1, k + shift, data.slice(k..bytes - shift), 0);
        } else if me == 1 {
            rank.wait_notifications(0, 1);
            let part = out.chunk(round, bytes);
            let stride = rank.threads_per_rank() as usize;
            rank.threads(|t| {
                let mut i = t.index() as usize;
                while i < bytes {
                    // SAFETY: each byte is copied by one thread.
                    unsafe { part.write(i, data.read(i)) };
                    i += stride;
                }
            });
            // The next put overwrites the window: the copy is done first.
            rank.sync_threads();
        }
        rank.barrier(world);
    }
    rank.win_free(win);
}

/// World rank 1 (on process 0) notifies a rank that does not exist; the
/// ranks of the other processes wait for a notification that only it
/// would have sent. The failure must reach them at once: they never
/// finish on their own, and the watchdog may be off.
#[rank]
pub fn wait_on_failed(rank: &mut Rank, _args: &CheckArgs) {
    let world = rank.world();
    let me = world.rank();
    if me == 1 {
        rank.notify(world, world.size() + 5, 0);
    } else if me >= 2 {
        rank.wait_notifications(7, 1);
    }
}

/// Rank 0 polls with `test_notifications` for a notification nobody sends,
/// forever; rank 1 gets 3 of the 5 it waits for. The watchdog must report
/// both, with the live count.
#[rank]
pub fn poll_forever(rank: &mut Rank, _args: &CheckArgs) {
    let world = rank.world();
    match world.rank() {
        0 => {
            for _ in 0..3 {
                rank.notify(world, 1, 4);
            }
            while !rank.test_notifications(6, 1) {}
        }
        1 => rank.wait_notifications(4, 5),
        _ => {}
    }
}
