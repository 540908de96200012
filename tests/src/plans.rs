//! Checks of the host-side transfer plans against a host reference: every
//! pattern and split, on one process or under `mpirun` (the
//! `plan_checks` program runs them). Each process checks its own ranks'
//! parts; the root checks what it gathered.

use dcuda::plan::{BroadcastPlan, HaloPlan, Part, Placement, ScatterPlan, Slice, Split};
use dcuda::{DeviceBuffer, Runtime};

type Check = Result<(), String>;

/// A value no plan writes: parts start with it, to see what a plan left.
const UNTOUCHED: u32 = 0xdead_beef;
/// Elements that take several pieces on the wire (a piece is 1 MiB).
pub const MANY_PIECES: usize = 300_000;

fn parts(rt: &Runtime, at: &Placement, part_len: usize) -> DeviceBuffer<u32> {
    let local = at.ranks_of(at.process()).len();
    rt.upload(&vec![UNTOUCHED; local * part_len])
        .expect("parts")
}

/// The splits checked for `ranks` ranks and `n` elements.
pub fn splits(ranks: u32, n: usize) -> Vec<Split> {
    // Counts: some ranks get nothing, the shares lie backwards with gaps.
    let counts: Vec<usize> = (0..ranks as usize)
        .map(|r| (r * 5 % 7) * n / (7 * ranks as usize))
        .collect();
    let mut displs = vec![0; ranks as usize];
    let mut at = 0;
    for r in (0..ranks as usize).rev() {
        displs[r] = at;
        at += counts[r] + usize::from(r % 2 == 0);
    }
    let counts = Split::Counts { counts, displs };
    vec![Split::Block, Split::Cyclic(1), Split::Cyclic(3), counts]
}

/// Scatter, a change on the host standing for a kernel, gather: the parts
/// and the gathered array against the reference.
pub fn check_scatter(rt: &Runtime, at: &Placement, split: Split, n: usize, root: u32) -> Check {
    let ranks = at.ranks();
    let shares: Vec<Vec<u32>> = (0..ranks)
        .map(|r| {
            let mut idx = Vec::new();
            for (s, l) in reference_runs(&split, n, ranks, r) {
                idx.extend((s..s + l).map(|i| i as u32));
            }
            idx
        })
        .collect();
    let part_len = shares.iter().map(Vec::len).max().unwrap_or(0) + 2;
    let plan = ScatterPlan::<u32>::new(at, split.clone(), n, root, Part::of(part_len).data_at(1))
        .map_err(|e| e.to_string())?;
    let me = at.process();
    let mut buf = parts(rt, at, part_len);
    // Twice, with other data: a plan is reused.
    for round in 0..2u32 {
        let input: Vec<u32> = (0..n as u32).map(|i| i * 7 + round).collect();
        let host = (me == root).then_some(&input[..]);
        plan.scatter(host, &mut buf).map_err(|e| e.to_string())?;
        let got = buf.download().map_err(|e| e.to_string())?;
        for (i, r) in at.ranks_of(me).enumerate() {
            // The share after one untouched element, then untouched ones.
            let part = &got[i * part_len..(i + 1) * part_len];
            let want: Vec<u32> = shares[r as usize].iter().map(|&j| j * 7 + round).collect();
            let (head, rest) = part.split_at(1);
            if rest[..want.len()] != want[..]
                || head[0] != UNTOUCHED
                || rest[want.len()..].iter().any(|&x| x != UNTOUCHED)
            {
                return Err(format!(
                    "{split} of {n} from process {root}, round {round}: rank {r}'s part is {:?}..., expected {:?}...",
                    &part[..part.len().min(8)],
                    &want[..want.len().min(8)]
                ));
            }
        }
    }
    // A kernel's stand-in: every element of a share becomes 3x + 1.
    let changed: Vec<u32> = buf
        .download()
        .map_err(|e| e.to_string())?
        .iter()
        .map(|&x| x.wrapping_mul(3).wrapping_add(1))
        .collect();
    buf.copy_from(&changed).map_err(|e| e.to_string())?;
    let mut out = vec![0u32; n];
    plan.gather(&buf, (me == root).then_some(&mut out[..]))
        .map_err(|e| e.to_string())?;
    if me == root {
        let mut want = vec![0u32; n];
        for s in &shares {
            for &j in s {
                want[j as usize] = (j * 7 + 1).wrapping_mul(3).wrapping_add(1);
            }
        }
        if let Some(i) = (0..n).find(|&i| out[i] != want[i]) {
            return Err(format!(
                "{split} of {n} gathered at process {root}: element {i} is {}, expected {}",
                out[i], want[i]
            ));
        }
    }
    Ok(())
}

/// Which elements a rank gets, computed here without the library.
fn reference_runs(split: &Split, n: usize, ranks: u32, r: u32) -> Vec<(usize, usize)> {
    let (ranks, r) = (ranks as usize, r as usize);
    match split {
        Split::Block => {
            let starts: Vec<usize> = (0..=ranks)
                .map(|k| k * (n / ranks) + k.min(n % ranks))
                .collect();
            vec![(starts[r], starts[r + 1] - starts[r])]
        }
        Split::Cyclic(b) => (0..n.div_ceil(*b))
            .filter(|k| k % ranks == r)
            .map(|k| (k * b, (*b).min(n - k * b)))
            .collect(),
        Split::Counts { counts, displs } => vec![(displs[r], counts[r])],
    }
}

/// Broadcast from `root`: every rank's part holds the array from its
/// third element on.
pub fn check_broadcast(rt: &Runtime, at: &Placement, n: usize, root: u32) -> Check {
    let part_len = n + 3;
    let plan = BroadcastPlan::<u32>::new(at, n, root, Part::of(part_len).data_at(2))
        .map_err(|e| e.to_string())?;
    let input: Vec<u32> = (0..n as u32).map(|i| i ^ 0x5a5a).collect();
    let mut buf = parts(rt, at, part_len);
    plan.broadcast((at.process() == root).then_some(&input[..]), &mut buf)
        .map_err(|e| e.to_string())?;
    let got = buf.download().map_err(|e| e.to_string())?;
    for (i, r) in at.ranks_of(at.process()).enumerate() {
        let part = &got[i * part_len..(i + 1) * part_len];
        if part[2..n + 2] != input[..] || [part[0], part[1], part[n + 2]] != [UNTOUCHED; 3] {
            return Err(format!(
                "broadcast of {n} from process {root}: rank {r}'s part differs"
            ));
        }
    }
    Ok(())
}

/// A line halo, and a list of slices: each ghost zone holds what its
/// neighbour's own elements held; nothing else changed.
pub fn check_halo(rt: &Runtime, at: &Placement, halo: usize, periodic: bool) -> Check {
    let part_len = 3 * halo + 1;
    let plan = HaloPlan::<u32>::line(at, part_len, halo, periodic).map_err(|e| e.to_string())?;
    let value = |r: u32, j: usize| r * 10_000_000 + j as u32;
    let check = |slices: &[Slice], plan: &HaloPlan<u32>| -> Check {
        let me = at.process();
        let local = at.ranks_of(me);
        let init: Vec<u32> = local
            .clone()
            .flat_map(|r| (0..part_len).map(move |j| value(r, j)))
            .collect();
        let mut buf = rt.upload(&init).map_err(|e| e.to_string())?;
        for _ in 0..2 {
            plan.exchange(&mut buf).map_err(|e| e.to_string())?;
        }
        let mut want = init;
        for s in slices.iter().filter(|s| local.contains(&s.to_rank)) {
            let base = (s.to_rank - local.start) as usize * part_len;
            for k in 0..s.len {
                want[base + s.to + k] = value(s.from_rank, s.from + k);
            }
        }
        let got = buf.download().map_err(|e| e.to_string())?;
        match (0..got.len()).find(|&i| got[i] != want[i]) {
            Some(i) => Err(format!(
                "halo ({} slices, halo {halo}): element {} of rank {}'s part is {}, expected {}",
                slices.len(),
                i % part_len,
                local.start + (i / part_len) as u32,
                got[i],
                want[i]
            )),
            None => Ok(()),
        }
    };
    let n = at.ranks();
    let line: Vec<Slice> = (0..n)
        .flat_map(|r| {
            let (before, after) = ((r + n - 1) % n, (r + 1) % n);
            let down = (periodic || r > 0).then_some(Slice {
                from_rank: r,
                from: halo,
                to_rank: before,
                to: part_len - halo,
                len: halo,
            });
            let up = (periodic || r + 1 < n).then_some(Slice {
                from_rank: r,
                from: part_len - 2 * halo,
                to_rank: after,
                to: 0,
                len: halo,
            });
            down.into_iter().chain(up)
        })
        .collect();
    check(&line, &plan)?;
    // Any slices: each rank's first elements to the rank two on.
    let skew: Vec<Slice> = (0..n)
        .map(|r| Slice {
            from_rank: r,
            from: 0,
            to_rank: (r + 2) % n,
            to: part_len - halo.min(3),
            len: halo.min(3),
        })
        .collect();
    let plan = HaloPlan::<u32>::new(at, part_len, skew.clone()).map_err(|e| e.to_string())?;
    check(&skew, &plan)
}
