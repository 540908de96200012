//! Shared pieces of the end-to-end tests: the PTX of the test kernels.

/// The PTX of `kernels-ptx/smoke`, built by this crate's build script.
pub fn smoke_ptx() -> dcuda::Ptx {
    dcuda::include_ptx!("dcuda_smoke_kernels")
}

/// The PTX of `kernels-ptx/ranks`.
pub fn rank_ptx() -> dcuda::Ptx {
    dcuda::include_ptx!("dcuda_rank_kernels")
}

/// What `comm_splits` (kernels-ptx/ranks) leaves for world rank `first +
/// id` (device rank `id` of a device of `ranks` ranks) in `round`, in a
/// world of `size` ranks.
pub fn split_expected(size: u32, first: u32, ranks: u32, id: u32, round: u32) -> Vec<u64> {
    use dcuda_rank_kernels::comms::{split_color, SPLIT_RESULTS};
    let w = first + id;
    let mut want = vec![u64::MAX; SPLIT_RESULTS];
    if let Some(color) = split_color(w, round) {
        // Key size - v: new ranks in descending world rank.
        let mut members: Vec<u32> = (0..size)
            .filter(|&v| split_color(v, round) == Some(color))
            .collect();
        members.reverse();
        let rank_of = |v: u32| members.iter().position(|&m| m == v).unwrap() as u32;
        let me = rank_of(w);
        want[0] = me as u64;
        want[1] = members.len() as u64;
        want[2] = members.iter().map(|&v| v as u64).sum();
        want[3] = members[0] as u64;
        want[4] = *members.iter().max().unwrap() as u64;
        let half: Vec<u32> = members
            .iter()
            .copied()
            .filter(|&v| rank_of(v) % 2 == me % 2)
            .collect();
        want[5] = (me / 2) as u64;
        want[6] = half.len() as u64;
        want[7] = half.iter().map(|&v| v as u64).sum();
    }
    let same: Vec<u32> = (0..ranks).filter(|d| d % 2 == id % 2).collect();
    let (erank, esize) = (id / 2, same.len() as u32);
    let prev = same[((erank + esize - 1) % esize) as usize];
    want[8] = (first + prev) as u64;
    want[9] = same.iter().map(|&d| d as u64).sum();
    want[10] = size as u64;
    want[11] = w as u64;
    want
}
