//! The communicator checks of `kernels-ptx/ranks/src/comms.rs`, shared by
//! the one-device test (`tests/comms.rs`) and `world_checks` (every
//! process checks its own ranks).

use dcuda::{Module, RunConfig, Runtime};
use dcuda_rank_kernels::comms::{
    across_value, split_color, AcrossArgs, SplitArgs, ALLREDUCE_ACROSS, COMM_SPLITS, NONE,
    SPLIT_RESULTS,
};

/// This process's ranks, the world rank of the first, and the world's size.
pub type Layout = (u32, u32, u32);

/// Runs `comm_splits` for 16 rounds (more than the slots, so freed slots
/// are reused) and checks every local rank's results.
pub fn check_splits(
    rt: &Runtime,
    module: &Module,
    (ranks, first, world): Layout,
) -> Result<(), String> {
    let rounds = 16u32;
    let win = rt.alloc::<u64>(ranks as usize).map_err(|e| e.to_string())?;
    let out = rt
        .alloc::<u64>((ranks * rounds) as usize * SPLIT_RESULTS)
        .map_err(|e| e.to_string())?;
    let args = SplitArgs {
        rounds,
        win: win.slice(),
        out: out.slice(),
    };
    let config = RunConfig::new(64).ranks(ranks);
    // SAFETY: win holds a word per rank, out SPLIT_RESULTS per rank and round.
    unsafe { module.run(&COMM_SPLITS, &config, &args) }.map_err(|e| e.to_string())?;
    let out = out.download().map_err(|e| e.to_string())?;
    for id in 0..ranks {
        for round in 0..rounds {
            let at = ((id * rounds + round) as usize) * SPLIT_RESULTS;
            let want = split_expected(world, first, ranks, id, round);
            if out[at..at + SPLIT_RESULTS] != want[..] {
                let got = &out[at..at + SPLIT_RESULTS];
                return Err(format!(
                    "world rank {}, round {round}: got {got:?}, want {want:?}",
                    first + id
                ));
            }
        }
    }
    Ok(())
}

/// Runs `allreduce_across` over the world and over rails, short and long
/// (several pieces of the staging area), and checks every local rank's
/// sums. The world's layout is `world_checks`': 2 ranks on even processes,
/// 3 on odd ones.
pub fn check_across(
    rt: &Runtime,
    module: &Module,
    (ranks, first, world): Layout,
) -> Result<(), String> {
    let devs: Vec<u32> = (0..world).map(device_rank).collect();
    for len in [1u32, 3, 20_000] {
        for rails in [0u32, 1] {
            let n = (ranks * len) as usize;
            let sums = rt.alloc::<u64>(n).map_err(|e| e.to_string())?;
            let reals = rt.alloc::<f64>(n).map_err(|e| e.to_string())?;
            let args = AcrossArgs {
                len,
                rails,
                sums: sums.slice(),
                reals: reals.slice(),
            };
            let config = RunConfig::new(64).ranks(ranks);
            // SAFETY: len elements per rank in both buffers.
            unsafe { module.run(&ALLREDUCE_ACROSS, &config, &args) }.map_err(|e| e.to_string())?;
            let sums = sums.download().map_err(|e| e.to_string())?;
            let reals = reals.download().map_err(|e| e.to_string())?;
            let what = if rails == 1 { "rails" } else { "world" };
            for id in 0..ranks {
                let members: Vec<u32> = (0..world)
                    .filter(|&v| rails == 0 || devs[v as usize] == id)
                    .collect();
                for i in 0..len {
                    let want: u64 = members.iter().map(|&v| across_value(v, i)).sum();
                    let real: f64 = members
                        .iter()
                        .map(|&v| across_value(v, i) as f64 * 0.5)
                        .sum();
                    let at = (id * len + i) as usize;
                    if sums[at] != want || reals[at] != real {
                        return Err(format!("{what} of {len}, world rank {}, element {i}: got {} and {}, want {want} and {real}", first + id, sums[at], reals[at]));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The device rank of world rank `w` when even processes have 2 ranks and
/// odd ones 3.
fn device_rank(w: u32) -> u32 {
    let (mut first, mut p) = (0, 0);
    loop {
        let r = 2 + p % 2;
        if w < first + r {
            return w - first;
        }
        first += r;
        p += 1;
    }
}

/// What `comm_splits` (kernels-ptx/ranks) leaves for world rank `first +
/// id` (device rank `id` of a device of `ranks` ranks) in `round`, in a
/// world of `size` ranks.
pub fn split_expected(size: u32, first: u32, ranks: u32, id: u32, round: u32) -> Vec<u64> {
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
        // reduce_to rank 0 of the split: the maximum there, none elsewhere.
        want[4] = if me == 0 {
            *members.iter().max().unwrap() as u64
        } else {
            NONE
        };
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
