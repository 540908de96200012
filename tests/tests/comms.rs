//! Communicators made inside the kernel, on one device: splits, splits of
//! splits, windows and notified access on a split, dups, and freeing them
//! round after round (more rounds than there are slots); the collectives
//! over chunks and the scans, over dups, rails and interleaved splits.

use dcuda::Runtime;

#[test]
fn splits_dups_and_windows_on_one_device() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    for ranks in [1u32, 2, 7, 12] {
        dcuda_tests::comms::check_splits(&rt, &module, (ranks, 0, ranks))
            .unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn split_by_gpu_and_node_on_one_device() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    for ranks in [1u32, 3, 8] {
        let node: Vec<u32> = (0..ranks).collect();
        dcuda_tests::comms::check_split_types(&rt, &module, (ranks, 0, ranks), &node)
            .unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}

#[test]
fn chunk_collectives_and_scans_on_one_device() {
    let rt = Runtime::new().unwrap();
    let module = rt.load(&dcuda_tests::rank_ptx()).unwrap();
    for ranks in [1u32, 2, 3, 8] {
        dcuda_tests::comms::check_chunks(&rt, &module, (ranks, 0, ranks), (&[1, 5, 2_500], &|w| w))
            .unwrap_or_else(|e| panic!("{ranks} ranks: {e}"));
    }
}
