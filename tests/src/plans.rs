//! Checks of the host-side transfer plans against a host reference: every
//! pattern and split, on one process or under `mpirun` (the
//! `plan_checks` program runs them). Each process checks its own ranks'
//! parts; the root checks what it gathered.

use dcuda::plan::{BroadcastPlan, Grid, HaloPlan, Part, Placement, ScatterPlan, Slice, Split};
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

/// Rank `r`'s element `j` before an exchange.
fn value(r: u32, j: usize) -> u32 {
    r * 10_000_000 + j as u32
}

/// This process's parts (of `part_len`, each element its `value`) before
/// and after `plan` exchanged them twice.
fn exchanged(
    rt: &Runtime,
    at: &Placement,
    part_len: usize,
    plan: &HaloPlan<u32>,
) -> Result<(Vec<u32>, Vec<u32>), String> {
    let local = at.ranks_of(at.process());
    let init: Vec<u32> = local
        .flat_map(|r| (0..part_len).map(move |j| value(r, j)))
        .collect();
    let mut buf = rt.upload(&init).map_err(|e| e.to_string())?;
    for _ in 0..2 {
        plan.exchange(&mut buf).map_err(|e| e.to_string())?;
    }
    Ok((init, buf.download().map_err(|e| e.to_string())?))
}

/// The first element where `got` differs from `want`, named.
fn compare(at: &Placement, what: &str, part_len: usize, got: &[u32], want: &[u32]) -> Check {
    match (0..got.len()).find(|&i| got[i] != want[i]) {
        Some(i) => Err(format!(
            "{what}: element {} of rank {}'s part is {}, expected {}",
            i % part_len,
            at.ranks_of(at.process()).start + (i / part_len) as u32,
            got[i],
            want[i]
        )),
        None => Ok(()),
    }
}

/// `slices` exchanged by `HaloPlan::new`: each block lands where it says.
fn check_slices(rt: &Runtime, at: &Placement, part_len: usize, slices: Vec<Slice>) -> Check {
    let plan = HaloPlan::<u32>::new(at, part_len, slices.clone()).map_err(|e| e.to_string())?;
    let (mut want, got) = exchanged(rt, at, part_len, &plan)?;
    let local = at.ranks_of(at.process());
    for s in slices.iter().filter(|s| local.contains(&s.to_rank)) {
        let base = (s.to_rank - local.start) as usize * part_len;
        for b in 0..s.blocks {
            for k in 0..s.len {
                want[base + s.to + b * s.to_stride + k] =
                    value(s.from_rank, s.from + b * s.from_stride + k);
            }
        }
    }
    compare(
        at,
        &format!("{} slices", slices.len()),
        part_len,
        &got,
        &want,
    )
}

/// A line halo, and lists of slices (runs, and columns): each ghost zone
/// holds what its neighbour's own elements held; nothing else changed.
pub fn check_halo(rt: &Runtime, at: &Placement, halo: usize, periodic: bool) -> Check {
    let part_len = 3 * halo + 1;
    let plan = HaloPlan::<u32>::line(at, part_len, halo, periodic).map_err(|e| e.to_string())?;
    let (mut want, got) = exchanged(rt, at, part_len, &plan)?;
    let (n, local) = (at.ranks(), at.ranks_of(at.process()));
    for r in local.clone() {
        let base = (r - local.start) as usize * part_len;
        for k in 0..halo {
            if periodic || r > 0 {
                want[base + k] = value((r + n - 1) % n, part_len - 2 * halo + k);
            }
            if periodic || r + 1 < n {
                want[base + part_len - halo + k] = value((r + 1) % n, halo + k);
            }
        }
    }
    compare(
        at,
        &format!("line halo {halo}, periodic {periodic}"),
        part_len,
        &got,
        &want,
    )?;
    // Any runs: each rank's first elements to the rank two on.
    let w = halo.min(3);
    let skew = (0..n)
        .map(|r| Slice::run(r, 0, (r + 2) % n, part_len - w, w))
        .collect();
    check_slices(rt, at, part_len, skew)?;
    // Columns of a 5-wide tile of `halo` rows: column 0 to column 3 of the
    // next rank, column 1 to column 4 of the rank before.
    let tile = 5 * halo;
    let columns = (0..n)
        .flat_map(|r| {
            let down = Slice::run(r, 0, (r + 1) % n, 3, 1).repeated(halo, 5, 5);
            let up = Slice::run(r, 1, (r + n - 1) % n, 4, 1).repeated(halo, 5, 5);
            [down, up]
        })
        .collect();
    check_slices(rt, at, tile, columns)
}

/// A 2D grid halo (`HaloPlan::grid`) against a reference written from
/// the grid's geometry: each frame side holds the facing own rows or
/// columns of the neighbour there; corners and own elements unchanged.
pub fn check_grid(rt: &Runtime, at: &Placement, g: Grid) -> Check {
    // ANCHOR: grid_plan
    let plan = HaloPlan::<u32>::grid(at, g).map_err(|e| e.to_string())?;
    let part_len = g.part_len(); // each rank's framed tile, row-major
                                 // ANCHOR_END: grid_plan
    let (mut want, got) = exchanged(rt, at, part_len, &plan)?;
    let (h, pitch, local) = (g.halo, g.cols + 2 * g.halo, at.ranks_of(at.process()));
    let (px, py) = (g.ranks_x as i64, g.ranks_y as i64);
    let at_grid = |x: i64, y: i64| {
        let inside = (0..px).contains(&x) && (0..py).contains(&y);
        (inside || g.periodic).then(|| (y.rem_euclid(py) * px + x.rem_euclid(px)) as u32)
    };
    for r in local.clone() {
        let base = (r - local.start) as usize * part_len;
        let (x, y) = ((r % g.ranks_x) as i64, (r / g.ranks_x) as i64);
        for i in 0..h {
            for j in h..h + g.cols {
                if let Some(n) = at_grid(x, y - 1) {
                    want[base + i * pitch + j] = value(n, (g.rows + i) * pitch + j);
                }
                if let Some(s) = at_grid(x, y + 1) {
                    want[base + (h + g.rows + i) * pitch + j] = value(s, (h + i) * pitch + j);
                }
            }
            for row in h..h + g.rows {
                if let Some(w) = at_grid(x - 1, y) {
                    want[base + row * pitch + i] = value(w, row * pitch + g.cols + i);
                }
                if let Some(e) = at_grid(x + 1, y) {
                    want[base + row * pitch + h + g.cols + i] = value(e, row * pitch + h + i);
                }
            }
        }
    }
    compare(at, &format!("{g:?}"), part_len, &got, &want)
}
