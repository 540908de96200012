//! The split-phase allreduce (`allreduce_start`, `allreduce_finish`):
//! the blocking allreduce's bits on every communicator, and each misuse
//! reported with the call that made it.

use dcuda::{RunConfig, Runtime};
use dcuda_rank_kernels::split_phase::{split_value, SplitArgs, SPLIT_ALLREDUCE, SPLIT_RESULTS};

fn run(ranks: u32, rounds: u32, case: u32) -> Result<Vec<u64>, String> {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    let out = rt
        .alloc::<u64>((ranks * rounds) as usize * SPLIT_RESULTS)
        .unwrap();
    let args = SplitArgs {
        rounds,
        case,
        out: out.slice(),
    };
    // SAFETY: out holds SPLIT_RESULTS words per rank and round.
    unsafe { module.run(&SPLIT_ALLREDUCE, &RunConfig::new(64).ranks(ranks), &args) }
        .map_err(|e| e.to_string())?;
    Ok(out.download().unwrap())
}

#[test]
fn split_allreduce_gives_the_blocking_bits_on_every_communicator() {
    for ranks in [1u32, 2, 5] {
        let rounds = 3;
        let out = run(ranks, rounds, 0).unwrap();
        for round in 0..rounds {
            for r in 0..ranks {
                let at = ((r * rounds + round) as usize) * SPLIT_RESULTS;
                let got = &out[at..at + SPLIT_RESULTS];
                // World and device: every rank; the split: ranks of r's parity.
                for (c, members) in [
                    (0..ranks).collect::<Vec<_>>(),
                    (0..ranks).collect(),
                    (0..ranks).filter(|q| q % 2 == r % 2).collect(),
                ]
                .into_iter()
                .enumerate()
                {
                    let (sum, blocking, min) = (got[3 * c], got[3 * c + 1], got[3 * c + 2]);
                    assert_eq!(
                        sum, blocking,
                        "{ranks} ranks, rank {r}, round {round}, comm {c}"
                    );
                    let exact: f64 = members.iter().map(|&q| split_value(q, round)).sum();
                    let sum = f64::from_bits(sum);
                    assert!((sum - exact).abs() < 1e-9, "{sum} vs {exact}");
                    assert_eq!(min, members[0] as u64, "comm {c}");
                }
            }
        }
    }
}

#[test]
fn a_barrier_while_one_is_pending_is_an_error() {
    let err = run(3, 1, 1).unwrap_err();
    assert!(err.contains("barrier"), "{err}");
    assert!(
        err.contains("an allreduce_start of this rank is pending"),
        "{err}"
    );
}

#[test]
fn a_second_start_while_one_is_pending_is_an_error() {
    let err = run(3, 1, 2).unwrap_err();
    assert!(err.contains("allreduce_start"), "{err}");
    assert!(err.contains("is pending"), "{err}");
}

#[test]
fn a_body_that_ends_with_one_pending_is_an_error() {
    let err = run(3, 1, 3).unwrap_err();
    assert!(err.contains("allreduce_finish"), "{err}");
    assert!(
        err.contains("ended with an allreduce_start not finished"),
        "{err}"
    );
}
