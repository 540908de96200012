//! Typed transfers checked against the elements MPI's definitions name:
//! `typed_exchange` (strided datatypes) and `indexed_exchange` (indexed
//! layouts), on one process (tests/tests/typed.rs) and across processes
//! (`world_checks`, where neighbours in other processes are reached
//! through the host).

use crate::comms::Layout;
use dcuda::{Module, RunConfig, Runtime};
use dcuda_rank_kernels::indexed::{IndexedArgs, INDEXED_EXCHANGE};
use dcuda_rank_kernels::typed::{TypedArgs, TYPED_EXCHANGE};

/// What rank `me` of `size` holds after `typed_exchange` on `n × n`
/// matrices: its two result matrices.
fn expected(me: u32, size: u32, n: u32) -> Vec<u32> {
    let (nn, left) = ((n * n) as usize, (me + size - 1) % size);
    let value = |rank: u32, k: u32| rank * 100_000 + k;
    let mut out = vec![0u32; 4 * nn];
    // Row `left % n` of the first matrix: the left rank's column `left % n`.
    let c = left % n;
    for j in 0..n {
        out[(c * n + j) as usize] = value(left, j * n + c);
    }
    // Unnotified: the left rank's next row into the second matrix's last
    // column.
    let d = (c + 1) % n;
    for i in 0..n {
        out[nn + (i * n + n - 1) as usize] = value(left, d * n + i);
    }
    // The 2 × 3 block at (1, 2) of the left rank's matrix, element by
    // element in row-major order, into the 3 × 2 block at (3, 1).
    let wide: Vec<u32> = (1..3)
        .flat_map(|i| (2..5).map(move |j| i * n + j))
        .collect();
    let tall: Vec<u32> = (3..6)
        .flat_map(|i| (1..3).map(move |j| i * n + j))
        .collect();
    for (w, t) in wide.iter().zip(&tall) {
        out[nn + *t as usize] = value(left, *w);
    }
    // The left rank's matrix, transposed.
    for i in 0..n {
        for j in 0..n {
            out[2 * nn + (j * n + i) as usize] = value(left, i * n + j);
        }
    }
    // Columns 0..8 of the left rank's matrix into columns 8..16.
    for i in 0..n {
        for j in 0..8 {
            out[3 * nn + (i * n + 8 + j) as usize] = value(left, i * n + j);
        }
    }
    out
}

/// Runs `typed_exchange` on `n × n` matrices (`n` a multiple of 4, at
/// least 16) on this process's `ranks` (world ranks `first..` of `world`)
/// with `threads` threads each, and checks every rank's results.
pub fn check_typed(
    rt: &Runtime,
    module: &Module,
    (ranks, first, world): Layout,
    (threads, n): (u32, u32),
) -> Result<(), String> {
    let nn = (n * n) as usize;
    let e = |e: dcuda::Error| e.to_string();
    let data = rt.alloc::<u32>(ranks as usize * nn).map_err(e)?;
    let out = rt.alloc::<u32>(ranks as usize * 4 * nn).map_err(e)?;
    let args = TypedArgs {
        data: data.slice(),
        out: out.slice(),
        n,
    };
    let config = RunConfig::new(threads).ranks(ranks);
    // SAFETY: n² words of data and 4n² of results per rank.
    unsafe { module.run(&TYPED_EXCHANGE, &config, &args) }.map_err(e)?;
    let got = out.download().map_err(e)?;
    for id in 0..ranks {
        let mine = &got[id as usize * 4 * nn..(id as usize + 1) * 4 * nn];
        let me = first + id;
        if mine != &expected(me, world, n)[..] {
            return Err(format!(
                "typed_exchange: world rank {me} of {world}: wrong results"
            ));
        }
    }
    Ok(())
}

/// Blocks of these lengths (one empty), with gaps between them.
const LENGTHS: [u32; 6] = [3, 1, 0, 17, 5, 40];

/// `(firsts, displacements)` of [`LENGTHS`] in `n` words.
fn blocks() -> (Vec<u32>, Vec<u32>) {
    let (mut firsts, mut displacements, mut at) = (vec![0], vec![], 2);
    for len in LENGTHS {
        firsts.push(firsts.last().unwrap() + len);
        displacements.push(at);
        at += len + 7;
    }
    (firsts, displacements)
}

/// Rank `me` of `size`'s three result parts of `n` words.
fn expected_indexed(me: u32, size: u32, n: u32, picks: &[u32], spots: &[u32]) -> Vec<u32> {
    let (n, left) = (n as usize, (me + size - 1) % size);
    let value = |rank: u32, k: u32| rank * 100_000 + k;
    let mut out = vec![0u32; 3 * n];
    for (i, &p) in picks.iter().enumerate() {
        out[i] = value(left, p);
    }
    let (firsts, displacements) = blocks();
    // Block b holds elements firsts[b].. of the transfer.
    let elements: Vec<u32> = LENGTHS
        .iter()
        .zip(&displacements)
        .flat_map(|(&len, &d)| d..d + len)
        .collect();
    assert_eq!(elements.len() as u32, *firsts.last().unwrap());
    for (e, &at) in elements.iter().enumerate() {
        out[n + at as usize] = value(left, e as u32);
        out[2 * n + spots[e] as usize] = value(left, at);
    }
    out
}

/// Runs `indexed_exchange` as [`check_typed`] runs `typed_exchange`, on
/// `n` words per rank (at least 600), gathering `picks` of them.
pub fn check_indexed(
    rt: &Runtime,
    module: &Module,
    (ranks, first, world): Layout,
    (threads, n, picks): (u32, u32, u32),
) -> Result<(), String> {
    // Any order, repeats included: a read side may name an element twice.
    let picks: Vec<u32> = (0..picks).map(|k| (k * 7919 + 11) % n).collect();
    let (firsts, displacements) = blocks();
    let total = *firsts.last().unwrap_or(&0);
    let spots: Vec<u32> = (0..total).map(|k| 5 + 9 * k).collect();
    let e = |e: dcuda::Error| e.to_string();
    let data = rt.alloc::<u32>((ranks * n) as usize).map_err(e)?;
    let out = rt.alloc::<u32>((3 * ranks * n) as usize).map_err(e)?;
    let lists = [&picks, &firsts, &displacements, &spots]
        .map(|l| rt.upload(l))
        .into_iter()
        .collect::<Result<Vec<_>, _>>()
        .map_err(e)?;
    let args = IndexedArgs {
        data: data.slice(),
        out: out.slice(),
        n,
        picks: lists[0].slice(),
        firsts: lists[1].slice(),
        displacements: lists[2].slice(),
        spots: lists[3].slice(),
    };
    let config = RunConfig::new(threads).ranks(ranks);
    // SAFETY: n words of data and 3n of results per rank; every list stays
    // within them.
    unsafe { module.run(&INDEXED_EXCHANGE, &config, &args) }.map_err(e)?;
    let got = out.download().map_err(e)?;
    for id in 0..ranks {
        let mine = &got[(3 * id * n) as usize..(3 * (id + 1) * n) as usize];
        let me = first + id;
        if mine != &expected_indexed(me, world, n, &picks, &spots)[..] {
            return Err(format!(
                "indexed_exchange: world rank {me} of {world}: wrong results"
            ));
        }
    }
    Ok(())
}
