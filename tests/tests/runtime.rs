//! The single-GPU runtime: notified access, matching, barriers, host
//! services and bad arguments (the watchdog's tests are in `watchdog.rs`).
//! Runs on the emulator in CI and on the GPU under `scripts/gpu-run.sh`.

use dcuda::{Error, RunConfig};
use dcuda_rank_kernels::misuse::*;
use dcuda_rank_kernels::runtime_checks::*;

mod runtime_setup;
use runtime_setup::{setup, Buffers};

#[test]
fn ring_exchange_delivers_every_round_in_order() {
    let (rt, module) = setup();
    let (ranks, words, rounds) = (8u32, 300u32, 300u32);
    let mut b = Buffers::new(&rt, ranks, words);
    // SAFETY: buffers hold `words` per rank.
    unsafe {
        module.run(
            &RING_EXCHANGE,
            &RunConfig::new(64).ranks(ranks),
            &b.args(rounds, 0),
        )
    }
    .unwrap();
    let out = b.out.download().unwrap();
    for me in 0..ranks {
        let from = (me + ranks - 1) % ranks;
        for k in 0..words {
            assert_eq!(
                out[(me * words + k) as usize],
                from * 1000 + rounds - 1 + k,
                "rank {me} word {k}"
            );
        }
    }
}

#[test]
fn puts_at_every_alignment_copy_every_byte() {
    let (rt, module) = setup();
    // 100 words: 400 bytes, so every skew has an aligned middle, a head and
    // a tail for a 32-thread rank.
    let (words, rounds) = (100u32, 20u32);
    let bytes = (words * 4) as usize;
    let mut b = Buffers::new(&rt, 2, words);
    let out = rt.alloc::<u32>(2 * rounds as usize * bytes / 4).unwrap();
    let mut args = b.args(rounds, 0);
    args.out = out.slice();
    // SAFETY: `data` holds `words` per rank; `out` a window copy per round.
    unsafe { module.run(&SKEWED_PUTS, &RunConfig::new(32).ranks(2), &args) }.unwrap();
    let source: Vec<u8> = (0..bytes).map(|i| i as u8).collect();
    let got: Vec<u8> = out
        .download()
        .unwrap()
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .collect();
    // Rank 1's window starts as a copy of the same pattern; each put
    // overwrites bytes from `k + shift` on with the source from `k` on.
    let mut window = source.clone();
    for round in 0..2 * rounds as usize {
        let (k, shift) = (round / 2, round % 2);
        let n = bytes - k - shift;
        window[k + shift..k + shift + n].copy_from_slice(&source[k..k + n]);
        assert_eq!(
            &got[round * bytes..(round + 1) * bytes],
            &window[..],
            "put of {n} bytes from byte {k} to byte {}",
            k + shift
        );
    }
}

#[test]
fn notification_counters_survive_wrap_around() {
    let (rt, module) = setup();
    let (ranks, rounds) = (6u32, 40u32);
    for start in [0u32, u32::MAX - 7, i32::MAX as u32 - 3] {
        let mut b = Buffers::new(&rt, ranks, 2);
        let config = RunConfig::new(32).ranks(ranks).notification_start(start);
        // SAFETY: buffers hold 2 words per rank.
        unsafe { module.run(&ALL_NOTIFY, &config, &b.args(rounds, 0)) }.unwrap();
        let out = b.out.download().unwrap();
        for me in 0..ranks as usize {
            assert_eq!(
                out[me * 2],
                0,
                "start {start:#x}: rank {me} consumed a notification that was never sent"
            );
            assert_eq!(out[me * 2 + 1], rounds, "start {start:#x}: rank {me}");
        }
    }
}

#[test]
fn notify_each_sends_one_notification_a_listed_target() {
    let (rt, module) = setup();
    // Two ranks list each other up to eight times a round; nine ranks
    // list eight of the others; 13 ranks of 64 threads, two warps.
    for (ranks, threads) in [(2u32, 32u32), (9, 32), (13, 64)] {
        let rounds = 27;
        let mut b = Buffers::new(&rt, ranks, 2);
        let config = RunConfig::new(threads).ranks(ranks);
        // SAFETY: buffers hold 2 words per rank.
        unsafe { module.run(&NOTIFY_EACH_ROUNDS, &config, &b.args(rounds, 0)) }.unwrap();
        let out = b.out.download().unwrap();
        for me in 0..ranks as usize {
            let what = format!("{ranks} ranks: rank {me}");
            assert_eq!(out[me * 2], 0, "{what} found notifications nobody sent");
            assert_eq!(out[me * 2 + 1], rounds, "{what}");
        }
    }
}

#[test]
fn get_notify_reads_the_neighbour_and_tells_it() {
    let (rt, module) = setup();
    let (ranks, words) = (5u32, 70u32);
    let mut b = Buffers::new(&rt, ranks, words);
    // SAFETY: buffers hold `words` per rank.
    unsafe {
        module.run(
            &NEIGHBOUR_GET,
            &RunConfig::new(32).ranks(ranks),
            &b.args(0, 0),
        )
    }
    .unwrap();
    let out = b.out.download().unwrap();
    for me in 0..ranks {
        let left = (me + ranks - 1) % ranks;
        for k in 0..words {
            assert_eq!(
                out[(me * words + k) as usize],
                left * 7 + k,
                "rank {me} word {k}"
            );
        }
    }
}

#[test]
fn matching_by_source_window_and_tag_with_back_pressure() {
    let (rt, module) = setup();
    // Phase 1: 5 senders x 20 fit in the log of 128. Phase 2: 5 x 100
    // notifications into it: senders must wait for room.
    let (ranks, rounds, flood) = (6u32, 20u32, 100u32);
    let mut b = Buffers::new(&rt, ranks, 8);
    // SAFETY: buffers hold 8 words per rank.
    unsafe {
        module.run(
            &MATCHING,
            &RunConfig::new(32).ranks(ranks),
            &b.args(rounds, flood),
        )
    }
    .unwrap();
    let out = b.out.download().unwrap();
    assert_eq!(
        out[0],
        (ranks - 1) * rounds / 2,
        "tag-2 notifications taken by source"
    );
    assert_eq!(
        out[1],
        (ranks - 1) * rounds / 2,
        "tag-1 notifications taken by tag"
    );
    assert_eq!(
        out[2],
        (ranks - 1) * flood,
        "every flooded notification arrived once"
    );
    assert_eq!(out[3], 0, "nothing is left to match");
}

#[test]
fn host_services_timers_logging_and_round_trips() {
    let (rt, module) = setup();
    let (ranks, rounds) = (4u32, 25u32);
    let mut b = Buffers::new(&rt, ranks, 1);
    // SAFETY: buffers hold 1 word per rank.
    let report = unsafe {
        module.run(
            &HOST_SERVICES,
            &RunConfig::new(32).ranks(ranks),
            &b.args(rounds, 0),
        )
    }
    .unwrap();
    assert_eq!(report.ranks, ranks);
    assert_eq!(report.host_calls, (ranks * rounds) as u64);
    assert_eq!(report.timers.len(), 1);
    assert_eq!(report.timers[0].id, 7);
    assert!(report.timers[0].elapsed <= report.elapsed);
    let mut logged: Vec<u32> = report.logs.iter().map(|(r, _)| *r).collect();
    logged.sort_unstable();
    assert_eq!(logged, (0..ranks).collect::<Vec<_>>());
    for (r, text) in &report.logs {
        assert!(
            text.starts_with(&format!("rank {r} pinged {rounds} times in ")),
            "{text}"
        );
    }
    let replies = b.out.download().unwrap();
    assert!(
        replies.iter().all(|&v| v >= rounds && v <= ranks * rounds),
        "{replies:?}"
    );
    let (device, host) = report.memory_per_rank;
    assert!(
        device + host <= 64 * 1024,
        "runtime memory per rank: {device} + {host} bytes"
    );
}

#[test]
fn bad_arguments_end_the_run_with_rank_call_and_values() {
    let (rt, module) = setup();
    let cases = [
        "rank 1: put: target rank 7 is out of range: the communicator has 4 ranks",
        "rank 1: put_notify: elements 15..17 are outside the target window of rank 0, which has 16 elements",
        "rank 1: notify: tag 700 is out of range: tags are 0..256",
        "rank 1: get: window 1 is not live (never created, or freed)",
        "rank 1: wait_notifications: count 4294967295 exceeds the maximum 2147483647",
        "rank 1: flush: window 1 is not live (never created, or freed)",
        "rank 1: win_create: window base 0x",
        // 7, 8: only across processes (world_checks).
        "",
        "",
        "rank 1: notify: tag 300 is reserved for the library's own traffic (256..640); user tags are 0..256",
        "rank 1: win_create: window memory 0x",
        "rank 1: put: elements 18446744073709551615 (that is -1)..0 are outside the target window of rank 0, which has 16 elements",
        // 12: only across processes (world_checks).
        "",
        "rank 1: bcast: root 9 is out of range: the communicator has 4 ranks",
        "rank 1: comm_free: the world communicator cannot be freed: only communicators made by comm_split or comm_dup can",
        "rank 1: notify: the communicator of context 3 (slot 2) is not live on this rank: it was freed (comm_free)",
        "rank 1: comm_split: color 4294967295 is reserved: colors are 0..4294967295; pass None to join no communicator",
        "rank 1: allgather_into: the destination has 3 elements, but 4 are needed: a chunk of 1 elements for each of the communicator's 4 ranks",
        "rank 1: alltoall_into: the source has 5 elements, but 4 are needed: a chunk of 1 elements for each of the communicator's 4 ranks",
        "rank 1: gather_into: root 9 is out of range: the communicator has 4 ranks",
        "rank 1: send: tag 300 is reserved for the library's own traffic (256..640); user tags are 0..256",
        "rank 1: recv: the message from rank 1 with tag 5 has 8 bytes, but the receive buffer only 4: pass a buffer at least as long (probe tells a message's length)",
        "rank 1: probe: source rank 9 is out of range: the communicator has 4 ranks",
        "rank 1: abort: the rank kernel aborted the run with code 7 (values 5000, 4096, 1)",
        "rank 1: put_typed: the origin datatype moves 4 elements and the target datatype 3: they must move as many",
        "rank 1: put_typed: the local datatype reaches element 5, but the local buffer has 4 elements",
        "rank 1: put_typed: the target datatype may name one element twice (a stride shorter than what the smaller strides span): a datatype that is written to must not overlap",
        "rank 1: put_typed: elements 12..18 are outside the target window of rank 0, which has 16 elements",
        // 28: only across processes (world_checks).
        "",
        "rank 1: put_typed: block 1 of the target indexed layout starts before block 0 ends: a layout that is written to lists its blocks in increasing order without overlap",
        "rank 1: put_typed: the indexed layout's firsts go from 3 at block 1 to 2 after it: they must start at 0 and never decrease",
        // On a GPU the warp reads its displacements before it writes, so
        // the put may also succeed; it never writes past its buffers.
        "rank 1: put_typed: an indexed layout's lists changed while the call moved data (written during the call): 2 element(s) fell outside their buffer and were not moved",
        "rank 1: notify_each: count 9 exceeds the maximum 8",
    ];
    for (case, want) in cases.iter().enumerate() {
        if want.is_empty() {
            continue;
        }
        let mut b = Buffers::new(&rt, 4, 16);
        // SAFETY: buffers hold 16 words per rank; the bad call is checked before any access.
        let result = unsafe {
            module.run(
                &BAD_CALL,
                &RunConfig::new(32).ranks(4),
                &b.args(0, case as u32),
            )
        };
        let raced = case == 31 && rt.backend() == dcuda::Backend::Gpu;
        match result {
            Ok(_) if raced => {}
            Err(Error::RankCall { rank, message, .. }) if raced => {
                assert_eq!(rank, 1);
                assert!(
                    message.starts_with("rank 1: put_typed: an indexed layout's lists changed"),
                    "{message}"
                );
            }
            Err(Error::RankCall { rank, message, .. }) => {
                assert_eq!(rank, 1);
                if want.ends_with("memory 0x") {
                    assert!(
                        message.starts_with(want)
                            && message.contains(
                                "is not in global memory: shared memory belongs to one rank"
                            ),
                        "case {case}: {message}"
                    );
                } else if want.ends_with("0x") {
                    assert!(
                        message.starts_with(want)
                            && message.ends_with(
                                "(8 bytes) is not aligned to its element type's 4 bytes"
                            ),
                        "case {case}: {message}"
                    );
                } else {
                    assert_eq!(message, *want, "case {case}");
                }
            }
            other => panic!("case {case}: expected a rank error, got {other:?}"),
        }
    }
}

#[test]
fn window_misuse_is_an_error_not_silent_corruption() {
    let (rt, module) = setup();
    let cases = [
        "rank 1: put: window 0 holds elements of 1 bytes at rank 0, but this rank uses it with elements of 4 bytes: every rank must create a window with the same element type",
        "rank 1: put: the window handle is stale: window 0 (number 1 of its communicator) was freed, and its id now belongs to window number 2",
        "rank 1: put: this rank created window 0 over the world communicator, but rank 0 over the device: every rank must create a window over the same communicator",
        "rank 1: put: window 0 is not live at rank 0: every rank of its communicator must create it, and none may free it while others still use it",
    ];
    for (case, want) in cases.iter().enumerate() {
        let mut b = Buffers::new(&rt, 4, 16);
        // SAFETY: buffers hold 16 words per rank; the bad access is refused before any copy.
        let result = unsafe {
            module.run(
                &WINDOW_MISUSE,
                &RunConfig::new(32).ranks(4),
                &b.args(0, case as u32),
            )
        };
        match result {
            Err(Error::RankCall { rank, message, .. }) => {
                assert_eq!(rank, 1, "case {case}");
                assert_eq!(message, *want, "case {case}");
            }
            other => panic!("case {case}: expected a rank error, got {other:?}"),
        }
    }
}
