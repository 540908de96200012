//! Put targets: the lookup made once, then puts through it, on one device
//! (the rank's own copy); `world.rs` runs the same ring between processes
//! (the general put through the host). Bad handles are errors naming the
//! rank, the call and the slot.

use dcuda::{Error, RunConfig, Runtime};
use dcuda_rank_kernels::put_targets::*;
use dcuda_rank_kernels::runtime_checks::CheckArgs;

fn args(
    data: &dcuda::DeviceBuffer<u32>,
    out: &dcuda::DeviceBuffer<u32>,
    words: u32,
    rounds: u32,
    case: u32,
) -> CheckArgs {
    CheckArgs {
        data: data.slice(),
        out: out.slice(),
        words,
        rounds,
        case,
    }
}

#[test]
fn a_ring_through_put_targets_delivers_every_round() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    // 300 words: the large part copied by every thread; 7 words: three
    // large words, and the small part's 16 bytes.
    for (ranks, words, rounds) in [(8u32, 300u32, 41u32), (3, 7, 6)] {
        let n = (ranks * words) as usize;
        let (data, out) = (rt.alloc::<u32>(n).unwrap(), rt.alloc::<u32>(n).unwrap());
        let a = args(&data, &out, words, rounds, 0);
        // SAFETY: both buffers hold `words` per rank.
        unsafe { module.run(&PUT_TARGET_RING, &RunConfig::new(64).ranks(ranks), &a) }.unwrap();
        let got = out.download().unwrap();
        let big = words - SMALL_WORDS;
        for me in 0..ranks {
            let prev = (me + ranks - 1) % ranks;
            for k in 0..words {
                let want = if k < big {
                    prev * 1000 + rounds - 1 + k
                } else {
                    prev * 1000 + 777 + k
                };
                assert_eq!(
                    got[(me * words + k) as usize],
                    want,
                    "{ranks} ranks, rank {me}, word {k}"
                );
            }
        }
    }
}

#[test]
fn misused_put_targets_are_errors_naming_rank_call_and_slot() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    let cases = [
        "rank 1: put_notify_to: the put target handle is stale: its slot 0 was freed (free_put_target, or win_free of its window); make a new one with put_target",
        "rank 1: put_to: the put target handle is stale: its slot 0 was freed (free_put_target, or win_free of its window); make a new one with put_target",
        "rank 1: put_target: no put target slot is free: at most 16 put targets may be live on a rank at once; free those you are done with (free_put_target, or win_free of their window)",
        "rank 1: put_notify_to: the source has 3 elements, but the put target at rank 0 holds 2: a put to a target writes at most the count it was made with",
        "rank 1: put_target: elements 15..17 are outside the target window of rank 0, which has 16 elements",
        "rank 1: put_target_slice: the put target handle is stale: its slot 0 was freed (free_put_target, or win_free of its window); make a new one with put_target",
    ];
    for (case, want) in cases.iter().enumerate() {
        let (data, out) = (rt.alloc::<u32>(64).unwrap(), rt.alloc::<u32>(64).unwrap());
        let a = args(&data, &out, 16, 0, case as u32);
        // SAFETY: both buffers hold 16 words per rank; the bad call is refused before any copy.
        match unsafe { module.run(&PUT_TARGET_MISUSE, &RunConfig::new(32).ranks(4), &a) } {
            Err(Error::RankCall { rank, message, .. }) => {
                assert_eq!(rank, 1, "case {case}");
                assert_eq!(message, *want, "case {case}");
            }
            other => panic!("case {case}: expected a rank error, got {other:?}"),
        }
    }
}
