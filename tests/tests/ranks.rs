//! Rank kernels: collectives, launch errors, and what the emulator catches
//! at run time.

use dcuda::{Backend, RunConfig, Runtime};
use dcuda_rank_kernels::collectives::{
    rank_value, slice_value, value, CollectiveArgs, MisuseArgs, RankCollectiveArgs,
    SliceReduceArgs, ALLREDUCE_BCAST, ALLREDUCE_SLICES, HIDDEN_MISUSE, INT_COLLECTIVES,
    RANK_PANICS, RESULTS, ROUND_RESULTS,
};

fn setup() -> (Runtime, dcuda::Module) {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    (rt, module)
}

#[test]
fn reductions_scans_and_broadcast_for_every_warp_count() {
    let (rt, module) = setup();
    for threads in [32u32, 64, 96, 256, 1024] {
        let ranks = 3u32;
        let results = rt.alloc::<u32>(ranks as usize * RESULTS).unwrap();
        let scans = rt.alloc::<u32>((ranks * threads) as usize).unwrap();
        let args = CollectiveArgs {
            results: results.slice(),
            scans: scans.slice(),
        };
        // SAFETY: buffers sized for `ranks` ranks of `threads` threads.
        unsafe {
            module.run(
                &INT_COLLECTIVES,
                &RunConfig::new(threads).ranks(ranks),
                &args,
            )
        }
        .unwrap();
        let results = results.download().unwrap();
        let scans = scans.download().unwrap();
        for r in 0..ranks {
            let values: Vec<u32> = (0..threads).map(|t| value(r, t)).collect();
            let got = &results[r as usize * RESULTS..(r as usize + 1) * RESULTS];
            let want = [
                values.iter().sum(),
                *values.iter().min().unwrap(),
                *values.iter().max().unwrap(),
                1000 * r,
                values.iter().fold(1u32, |a, v| a.wrapping_mul(*v)),
                values.iter().fold(!0, |a, v| a & (v | 0x100)),
                values.iter().fold(0, |a, v| a | v),
                values.iter().fold(0, |a, v| a ^ v),
            ];
            assert_eq!(
                got, want,
                "rank {r}, {threads} threads: sum, min, max, broadcast, product, and, or, xor"
            );
            let prefix: Vec<u32> = values
                .iter()
                .scan(0, |acc, v| Some(*acc + v).inspect(|s| *acc = *s))
                .collect();
            assert_eq!(
                &scans[(r * threads) as usize..((r + 1) * threads) as usize],
                &prefix[..],
                "rank {r}, {threads} threads: scan"
            );
        }
    }
}

#[test]
fn threads_per_rank_must_be_whole_warps() {
    let (rt, module) = setup();
    let out = rt.alloc::<u32>(4).unwrap();
    let args = MisuseArgs { out: out.slice() };
    for threads in [0u32, 48, 2048] {
        // SAFETY: rejected before launch.
        let err = unsafe { module.run(&RANK_PANICS, &RunConfig::new(threads).ranks(2), &args) }
            .err()
            .unwrap();
        let msg = err.to_string();
        assert!(
            msg.contains("rank_panics") && msg.contains(&format!("got {threads}")),
            "{msg}"
        );
    }
}

#[test]
fn more_ranks_than_fit_is_an_error_not_a_hang() {
    let (rt, module) = setup();
    let max = module.max_ranks(&RANK_PANICS, 128).unwrap();
    let out = rt.alloc::<u32>(1).unwrap();
    let args = MisuseArgs { out: out.slice() };
    // SAFETY: rejected before launch.
    let err = unsafe { module.run(&RANK_PANICS, &RunConfig::new(128).ranks(max + 1), &args) }
        .err()
        .unwrap();
    let msg = err.to_string();
    assert!(
        msg.contains(&format!("{} ranks", max + 1)) && msg.contains(&format!("at most {max}")),
        "{msg}"
    );
    // A GPU says why: the registers the kernel needs.
    if rt.backend() == Backend::Gpu {
        assert!(msg.contains("registers per thread"), "{msg}");
    }
}

#[test]
fn emulator_stops_a_hidden_thread_index_in_uniform_code() {
    let (rt, module) = setup();
    if rt.backend() != Backend::Emulator {
        return; // On a GPU the read is legal PTX; only the emulator can see it.
    }
    let out = rt.alloc::<u32>(2).unwrap();
    let args = MisuseArgs { out: out.slice() };
    // SAFETY: out has one element per rank.
    let err =
        unsafe { module.run(&HIDDEN_MISUSE, &RunConfig::new(32).ranks(2), &args) }.unwrap_err();
    let msg = err.to_string();
    assert!(
        msg.contains("`thread_idx` called in uniform code of a rank kernel"),
        "{msg}"
    );
}

#[test]
fn ranks_of_1024_threads_run_or_the_error_says_why() {
    let (rt, module) = setup();
    let out = rt.alloc::<u32>(2).unwrap();
    let args = MisuseArgs { out: out.slice() };
    // Ranks 0 and 1 do not panic. SAFETY: out has one element per rank.
    match unsafe { module.run(&RANK_PANICS, &RunConfig::new(1024).ranks(2), &args) } {
        Ok(_) => {
            let fit = module.max_ranks(&RANK_PANICS, 1024).unwrap();
            println!("1024-thread ranks on {:?}: {fit} fit", rt.backend());
            assert_eq!(out.download().unwrap(), [1, 1]);
        }
        Err(e) => {
            let msg = e.to_string();
            println!("1024-thread ranks on {:?}: {msg}", rt.backend());
            assert!(
                rt.backend() == Backend::Gpu && msg.contains("registers per thread"),
                "{msg}"
            );
        }
    }
}

#[test]
fn allreduce_and_bcast_between_the_ranks_of_a_device() {
    let (rt, module) = setup();
    let (ranks, rounds) = (5u32, 4u32);
    for device in [0, 1] {
        let out = rt
            .alloc::<u64>((ranks * rounds) as usize * ROUND_RESULTS)
            .unwrap();
        let args = RankCollectiveArgs {
            rounds,
            device,
            out: out.slice(),
        };
        // SAFETY: out holds ROUND_RESULTS words per rank and round.
        unsafe { module.run(&ALLREDUCE_BCAST, &RunConfig::new(64).ranks(ranks), &args) }.unwrap();
        let out = out.download().unwrap();
        for round in 0..rounds {
            let values: Vec<u32> = (0..ranks).map(|r| rank_value(r, round)).collect();
            let root = round % ranks;
            let first = (round as usize) * ROUND_RESULTS;
            for r in 0..ranks {
                let at = ((r * rounds + round) as usize) * ROUND_RESULTS;
                let got = &out[at..at + ROUND_RESULTS];
                let want = [
                    values.iter().sum::<u32>() as u64,
                    *values.iter().min().unwrap() as u64,
                    *values.iter().max().unwrap() as u64,
                    values.iter().fold(0, |a, v| a ^ v) as u64,
                    // The f64 sum: the same bits on every rank, as rank 0's.
                    out[first + 4],
                    (root * 1000 + round) as u64,
                ];
                assert_eq!(got, want, "rank {r}, round {round}, device comm {device}");
            }
            let real = f64::from_bits(out[first + 4]);
            let exact: f64 = values.iter().map(|&v| v as f64 * 0.1).sum();
            assert!(
                (real - exact).abs() < 1e-9,
                "round {round}: {real} vs {exact}"
            );
        }
    }
}

#[test]
fn allreduce_into_reduces_slices_and_refuses_unequal_lengths_and_elements() {
    let (rt, module) = setup();
    let (ranks, len) = (5u32, 1003u32);
    for case in [0, 1, 2] {
        let n = (ranks * len) as usize;
        let (input, sums, reals) = (
            rt.alloc::<u32>(n).unwrap(),
            rt.alloc::<u32>(n).unwrap(),
            rt.alloc::<f64>(n).unwrap(),
        );
        let args = SliceReduceArgs {
            len,
            case,
            input: input.slice(),
            sums: sums.slice(),
            reals: reals.slice(),
        };
        // SAFETY: every buffer holds `len` elements per rank.
        let result =
            unsafe { module.run(&ALLREDUCE_SLICES, &RunConfig::new(64).ranks(ranks), &args) };
        if case == 1 {
            // Whichever rank notices first names the other and both lengths.
            let msg = result.unwrap_err().to_string();
            let named = msg.contains("rank 1 passed buffers of 1002 elements, this rank of 1003")
                || msg.contains("passed buffers of 1003 elements, this rank of 1002");
            assert!(named && msg.contains("allreduce_into"), "{msg}");
            continue;
        }
        if case == 2 {
            // Each rank would read the others' buffers by its own element size.
            let msg = result.unwrap_err().to_string();
            let named = msg.contains("rank 1 passed elements of 8 bytes, this rank of 4 bytes")
                || msg.contains("passed elements of 4 bytes, this rank of 8 bytes");
            assert!(named && msg.contains("allreduce_into"), "{msg}");
            continue;
        }
        result.unwrap();
        let (sums, reals) = (sums.download().unwrap(), reals.download().unwrap());
        for i in 0..len {
            let want: u32 = (0..ranks).map(|r| slice_value(r, i)).sum();
            let exact: f64 = (0..ranks).map(|r| slice_value(r, i) as f64 * 0.5).sum();
            for r in 0..ranks {
                let at = (r * len + i) as usize;
                assert_eq!(sums[at], want, "u32 sum, rank {r}, element {i}");
                assert_eq!(
                    reals[at].to_bits(),
                    reals[i as usize].to_bits(),
                    "f64 bits, rank {r}, element {i}"
                );
            }
            assert!((reals[i as usize] - exact).abs() < 1e-9, "element {i}");
        }
    }
}
