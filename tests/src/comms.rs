//! The communicator checks of `kernels-ptx/ranks/src/comms.rs`, shared by
//! the one-device test (`tests/comms.rs`) and `world_checks` (every
//! process checks its own ranks).

use dcuda::{Module, RunConfig, Runtime};
use dcuda_rank_kernels::chunks::{
    chunk_results, chunk_split, chunk_value, ChunkArgs, CHUNK_COLLECTIVES, NONE as CHUNK_NONE,
    SCANS,
};
use dcuda_rank_kernels::comms::{
    across_value, split_color, AcrossArgs, SplitArgs, ALLREDUCE_ACROSS, COMM_SPLITS, NONE,
    SPLIT_RESULTS, SPLIT_TYPES, TYPE_RESULTS,
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

/// The world ranks of this process's node, when process `p` has
/// `ranks_of(p)` ranks (this process's alone without a job).
pub fn node_members(rt: &Runtime, ranks_of: impl Fn(u32) -> u32) -> Vec<u32> {
    let Some(job) = rt.job() else {
        return (0..ranks_of(0)).collect();
    };
    let mut first = 0;
    let mut members = Vec::new();
    for p in 0..job.processes() {
        if job.node_of(p) == Some(job.node()) {
            members.extend(first..first + ranks_of(p));
        }
        first += ranks_of(p);
    }
    members
}

/// Runs `split_types` and checks every local rank's results: the GPU's
/// communicator holds this process's ranks and the node's the world ranks
/// in `node`, both in reversed world order.
pub fn check_split_types(
    rt: &Runtime,
    module: &Module,
    (ranks, first, _): Layout,
    node: &[u32],
) -> Result<(), String> {
    let out = rt
        .alloc::<u64>(ranks as usize * TYPE_RESULTS)
        .map_err(|e| e.to_string())?;
    let config = RunConfig::new(64).ranks(ranks);
    // SAFETY: out holds TYPE_RESULTS words per rank.
    unsafe { module.run(&SPLIT_TYPES, &config, &out.slice()) }.map_err(|e| e.to_string())?;
    let out = out.download().map_err(|e| e.to_string())?;
    let sum = |from: u32, to: u32| (from..to).map(u64::from).sum::<u64>();
    for id in 0..ranks {
        let w = first + id;
        // Reversed order: the GPU rank that precedes w in the ring is w + 1.
        let gpu_rank = first + ranks - 1 - w;
        let from = if gpu_rank == 0 { first } else { w + 1 };
        let want = [
            gpu_rank as u64,
            ranks as u64,
            sum(first, first + ranks),
            // Reversed order: the node's ranks above w come first.
            node.iter().filter(|&&v| v > w).count() as u64,
            node.len() as u64,
            node.iter().map(|&v| v as u64).sum(),
            from as u64,
        ];
        let got = &out[id as usize * TYPE_RESULTS..(id as usize + 1) * TYPE_RESULTS];
        if got != want {
            return Err(format!(
                "world rank {w}: got {got:?}, want {want:?} (gpu rank, size, sum; node rank, size, sum; ring)"
            ));
        }
    }
    Ok(())
}

/// Runs `allreduce_across` over a dup of the world, rails and the world,
/// short and long (several pieces of the staging area), and checks every local rank's
/// sums. The world's layout is `world_checks`': 2 ranks on even processes,
/// 3 on odd ones.
pub fn check_across(
    rt: &Runtime,
    module: &Module,
    (ranks, first, world): Layout,
) -> Result<(), String> {
    let devs: Vec<u32> = (0..world).map(device_rank).collect();
    for len in [3u32, 20_000] {
        for rails in [0u32, 1, 2] {
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
            let what = ["a dup of the world", "rails", "the world"][rails as usize];
            for id in 0..ranks {
                let members: Vec<u32> = (0..world)
                    .filter(|&v| rails != 1 || devs[v as usize] == id)
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
pub fn device_rank(w: u32) -> u32 {
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

/// Runs `chunk_collectives` over a dup of the world, rails, an interleaved
/// split and the world itself,
/// with chunks of each of `lens` elements (more than 2,048 take several
/// pieces of the staging area between processes), and checks every local
/// rank's results; `device_of` gives the device rank of a world rank.
pub fn check_chunks(
    rt: &Runtime,
    module: &Module,
    (ranks, first, world): Layout,
    (lens, device_of): (&[u32], &dyn Fn(u32) -> u32),
) -> Result<(), String> {
    for &len in lens {
        for mode in 0..4u32 {
            let cap = (world * len) as usize;
            let per = chunk_results(world, len);
            let src = rt
                .alloc::<u64>(ranks as usize * cap)
                .map_err(|e| e.to_string())?;
            let out = rt
                .alloc::<u64>(ranks as usize * per)
                .map_err(|e| e.to_string())?;
            let args = ChunkArgs {
                len,
                mode,
                src: src.slice(),
                out: out.slice(),
            };
            let config = RunConfig::new(64).ranks(ranks);
            // SAFETY: world * len source elements and chunk_results per rank.
            unsafe { module.run(&CHUNK_COLLECTIVES, &config, &args) }.map_err(|e| e.to_string())?;
            let out = out.download().map_err(|e| e.to_string())?;
            for id in 0..ranks {
                let got = &out[id as usize * per..(id as usize + 1) * per];
                let want = chunks_expected((first + id, world, len, mode), device_of);
                for (k, w) in want {
                    if got[k] != w {
                        let w_rank = first + id;
                        return Err(format!("chunk collectives (mode {mode}, chunks of {len}), world rank {w_rank}, word {k}: got {}, want {w}", got[k]));
                    }
                }
            }
            let scans = scans_expected(ranks, first, &out, per);
            if let Some(e) = scans {
                return Err(format!("chunks of {len}, mode {mode}: {e}"));
            }
        }
    }
    Ok(())
}

/// The words `chunk_collectives` leaves for world rank `w` (index, value),
/// but the scans.
fn chunks_expected(
    (w, world, len, mode): (u32, u32, u32, u32),
    device_of: &dyn Fn(u32) -> u32,
) -> Vec<(usize, u64)> {
    let split = |v: u32| chunk_split(mode, v, device_of(v), world);
    let mut members: Vec<u32> = (0..world).filter(|&v| split(v).0 == split(w).0).collect();
    members.sort_by_key(|&v| (split(v).1, v));
    let (size, me) = (
        members.len() as u32,
        members.iter().position(|&v| v == w).unwrap() as u32,
    );
    let cap = (world * len) as usize;
    let mut want = Vec::new();
    for j in 0..size {
        for e in 0..len {
            let at = (j * len + e) as usize;
            want.push((at, chunk_value(members[j as usize], 0, e)));
            if me == size - 1 {
                want.push((cap + at, chunk_value(members[j as usize], 0, e)));
            }
            want.push((2 * cap + at, chunk_value(members[j as usize], me, e)));
        }
    }
    for e in 0..len {
        want.push((
            3 * cap + e as usize,
            chunk_value(members[size as usize / 2], me, e),
        ));
        let sum = members.iter().map(|&v| chunk_value(v, me, e)).sum();
        want.push((3 * cap + (len + e) as usize, sum));
    }
    let scans = 3 * cap + 2 * len as usize;
    want.push((scans + 3, (0..=w).map(u64::from).sum()));
    let below = members[..me as usize].iter().map(|&v| v as u64).sum();
    want.push((scans + 4, if me == 0 { CHUNK_NONE } else { below }));
    want
}

/// Checks the scans of every local rank: `None` if all are right.
fn scans_expected(ranks: u32, first: u32, out: &[u64], per: usize) -> Option<String> {
    for id in 0..ranks {
        let got = &out[(id as usize + 1) * per - SCANS..(id as usize + 1) * per - 2];
        let scan: u64 = (0..=id).map(|d| (first + d) as u64).sum();
        let exscan = if id == 0 {
            CHUNK_NONE
        } else {
            scan - (first + id) as u64
        };
        let half: u64 = (id..ranks).filter(|d| d % 2 == id % 2).map(u64::from).sum();
        if got != [scan, exscan, half] {
            return Some(format!(
                "scans of world rank {}: got {got:?}, want {:?}",
                first + id,
                [scan, exscan, half]
            ));
        }
    }
    None
}
