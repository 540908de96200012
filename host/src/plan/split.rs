//! How a host array is split among ranks.

use super::parts::{as_bytes, as_bytes_mut};
use crate::error::{Error, Result};
use dcuda_device::DeviceCopy;

/// Which elements of a host array of `n` go to which rank. A rank's
/// elements lie one after another in its part, in the array's order.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Split {
    /// Contiguous blocks in rank order; the first `n % ranks` ranks get one
    /// element more (as `MPI_Scatter` of `n / ranks` plus the rest).
    Block,
    /// Blocks of `block` elements dealt to the ranks in turn: block `k`
    /// goes to rank `k % ranks` (block-cyclic; `Cyclic(1)` deals elements).
    Cyclic(usize),
    /// Rank `r` gets `counts[r]` elements from `displs[r]` on (as
    /// `MPI_Scatterv`); ranges may not overlap.
    Counts {
        /// Elements per rank.
        counts: Vec<usize>,
        /// Where each rank's elements start in the array.
        displs: Vec<usize>,
    },
}

impl Split {
    /// Checks the split against an array of `n` elements and `ranks`
    /// ranks; the error names the rank and its values.
    pub(super) fn check(&self, call: &'static str, n: usize, ranks: u32) -> Result<()> {
        let bad = |reason: String| Err(Error::InvalidArgument { call, reason });
        match self {
            Split::Block => Ok(()),
            Split::Cyclic(0) => bad("Split::Cyclic needs a block of at least one element".into()),
            Split::Cyclic(_) => Ok(()),
            Split::Counts { counts, displs } => {
                if counts.len() != ranks as usize || displs.len() != ranks as usize {
                    return bad(format!(
                        "Split::Counts has {} counts and {} displacements for {ranks} ranks",
                        counts.len(),
                        displs.len()
                    ));
                }
                let mut ranges: Vec<(usize, usize, usize)> = Vec::new();
                for (r, (&c, &d)) in counts.iter().zip(displs).enumerate() {
                    if c > 0 && d.checked_add(c).is_none_or(|end| end > n) {
                        return bad(format!(
                            "rank {r}'s {c} elements from {d} on pass the array's end ({n})"
                        ));
                    }
                    if c > 0 {
                        ranges.push((d, d + c, r));
                    }
                }
                ranges.sort();
                for w in ranges.windows(2) {
                    if w[1].0 < w[0].1 {
                        return bad(format!(
                            "rank {}'s elements {}..{} overlap rank {}'s {}..{}",
                            w[1].2, w[1].0, w[1].1, w[0].2, w[0].0, w[0].1
                        ));
                    }
                }
                Ok(())
            }
        }
    }

    /// The runs `(array offset, length)` of rank `rank`'s elements, in
    /// order.
    pub(super) fn runs(&self, n: usize, ranks: u32, rank: u32) -> Vec<(usize, usize)> {
        let (ranks, r) = (ranks as usize, rank as usize);
        match self {
            Split::Block => {
                let (base, extra) = (n / ranks, n % ranks);
                let start = r * base + r.min(extra);
                let len = base + usize::from(r < extra);
                if len == 0 {
                    Vec::new()
                } else {
                    vec![(start, len)]
                }
            }
            Split::Cyclic(b) => (r * b..n)
                .step_by(b * ranks)
                .map(|start| (start, (*b).min(n - start)))
                .collect(),
            Split::Counts { counts, displs } if counts[r] > 0 => vec![(displs[r], counts[r])],
            Split::Counts { .. } => Vec::new(),
        }
    }

    /// Elements rank `rank` gets.
    pub(super) fn count(&self, n: usize, ranks: u32, rank: u32) -> usize {
        self.runs(n, ranks, rank).iter().map(|r| r.1).sum()
    }
}

/// Elements `k..` of a rank's sequence, whose runs in the host array are
/// `runs`, copied from `host` into `out` (as many as it holds).
pub(super) fn collect_bytes<T: DeviceCopy>(
    runs: &[(usize, usize)],
    k: usize,
    host: &[T],
    out: &mut [u8],
) {
    let size = std::mem::size_of::<T>();
    walk(runs, k, out.len() / size, |at, from, len| {
        out[at * size..(at + len) * size].copy_from_slice(as_bytes(&host[from..from + len]))
    });
}

/// The inverse of [`collect_bytes`]: `piece`, elements `k..` of the
/// rank's sequence, copied to their places in `host`.
pub(super) fn spread_bytes<T: DeviceCopy>(
    runs: &[(usize, usize)],
    k: usize,
    piece: &[u8],
    host: &mut [T],
) {
    let size = std::mem::size_of::<T>();
    walk(runs, k, piece.len() / size, |at, to, len| {
        as_bytes_mut(&mut host[to..to + len]).copy_from_slice(&piece[at * size..(at + len) * size])
    });
}

/// Calls `f(sequence offset from k, host offset, length)` for the parts
/// of the runs that hold sequence elements `k..k + len`.
fn walk(runs: &[(usize, usize)], k: usize, len: usize, mut f: impl FnMut(usize, usize, usize)) {
    let (mut skip, mut done) = (k, 0);
    for &(start, run) in runs {
        if done == len {
            break;
        }
        if skip >= run {
            skip -= run;
            continue;
        }
        let take = (run - skip).min(len - done);
        f(done, start + skip, take);
        done += take;
        skip = 0;
    }
}

impl std::fmt::Display for Split {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Split::Block => f.write_str("blocks"),
            Split::Cyclic(b) => write!(f, "cyclic blocks of {b}"),
            Split::Counts { counts, displs } => {
                write!(f, "counts {counts:?} at {displs:?}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every element goes to exactly one rank, and a rank's runs are
    /// in the array's order.
    fn covers_once(split: &Split, n: usize, ranks: u32) {
        let mut seen = vec![0u32; n];
        for r in 0..ranks {
            let runs = split.runs(n, ranks, r);
            assert!(runs.windows(2).all(|w| w[0].0 + w[0].1 <= w[1].0));
            for (s, l) in runs {
                seen[s..s + l].iter_mut().for_each(|x| *x += 1);
            }
        }
        assert!(seen.iter().all(|&x| x == 1), "{split} n={n} ranks={ranks}");
    }

    #[test]
    fn block_and_cyclic_cover_every_element_once() {
        for n in [0, 1, 7, 64, 1000] {
            for ranks in [1, 2, 3, 7] {
                covers_once(&Split::Block, n, ranks);
                for b in [1, 3, 16] {
                    covers_once(&Split::Cyclic(b), n, ranks);
                }
            }
        }
        assert_eq!(Split::Block.runs(10, 3, 0), vec![(0, 4)]);
        assert_eq!(Split::Block.runs(10, 3, 2), vec![(7, 3)]);
        assert_eq!(Split::Cyclic(2).runs(9, 2, 1), vec![(2, 2), (6, 2)]);
        assert_eq!(Split::Cyclic(2).runs(9, 2, 0), vec![(0, 2), (4, 2), (8, 1)]);
    }

    #[test]
    fn pieces_of_a_sequence_map_to_their_runs() {
        let host: Vec<u32> = (0..20).collect();
        let runs = Split::Cyclic(3).runs(20, 2, 1); // 3..6, 9..12, 15..18
        let mut out = [0u8; 20];
        collect_bytes(&runs, 2, &host, &mut out);
        assert_eq!(out, as_bytes(&[5u32, 9, 10, 11, 15]));
        let mut back = vec![0u32; 20];
        spread_bytes(&runs, 2, &out, &mut back);
        assert_eq!(&back[5..6], &[5]);
        assert_eq!(&back[9..12], &[9, 10, 11]);
        assert_eq!(&back[15..16], &[15]);
        assert_eq!(back.iter().filter(|&&x| x != 0).count(), 5);
    }

    #[test]
    fn counts_are_checked() {
        let c = |counts: Vec<usize>, displs: Vec<usize>| Split::Counts { counts, displs };
        assert!(c(vec![2, 3], vec![3, 0]).check("t", 5, 2).is_ok());
        let e = c(vec![2, 3], vec![2, 0]).check("t", 5, 2).unwrap_err();
        assert!(
            e.to_string()
                .contains("rank 0's elements 2..4 overlap rank 1's 0..3"),
            "{e}"
        );
        let e = c(vec![2, 3], vec![4, 0]).check("t", 5, 2).unwrap_err();
        assert!(
            e.to_string().contains("rank 0's 2 elements from 4 on pass"),
            "{e}"
        );
        let e = c(vec![2], vec![0]).check("t", 5, 2).unwrap_err();
        assert!(
            e.to_string()
                .contains("1 counts and 1 displacements for 2 ranks"),
            "{e}"
        );
        assert!(Split::Cyclic(0).check("t", 5, 2).is_err());
    }
}
