//! Communicators made inside the kernel, on one device: splits, splits of
//! splits, windows and notified access on a split, dups, and freeing them
//! round after round (more rounds than there are slots).

use dcuda::{RunConfig, Runtime};
use dcuda_rank_kernels::comms::{SplitArgs, COMM_SPLITS, SPLIT_RESULTS};

#[test]
fn splits_dups_and_windows_on_one_device() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    let rounds = 16u32;
    for ranks in [1u32, 2, 7, 12] {
        let win = rt.alloc::<u64>(ranks as usize).unwrap();
        let out = rt
            .alloc::<u64>((ranks * rounds) as usize * SPLIT_RESULTS)
            .unwrap();
        let args = SplitArgs {
            rounds,
            win: win.slice(),
            out: out.slice(),
        };
        // SAFETY: win holds a word per rank, out SPLIT_RESULTS per rank and round.
        unsafe { module.run(&COMM_SPLITS, &RunConfig::new(64).ranks(ranks), &args) }.unwrap();
        let out = out.download().unwrap();
        for id in 0..ranks {
            for round in 0..rounds {
                let at = ((id * rounds + round) as usize) * SPLIT_RESULTS;
                let want = dcuda_tests::split_expected(ranks, 0, ranks, id, round);
                assert_eq!(
                    &out[at..at + SPLIT_RESULTS],
                    &want[..],
                    "{ranks} ranks, rank {id}, round {round}"
                );
            }
        }
    }
}
