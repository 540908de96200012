//! Halo exchange: slices of ranks' parts copied into other ranks' parts
//! between kernel runs.

use super::parts::{check_room, copy_blocks, read_blocks, write_blocks, Blocks, Parts};
use super::scatter::piece_elems;
use super::wire::{self, CallId};
use super::Placement;
use crate::error::{Error, Result};
use dcuda_device::DeviceCopy;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};

/// Elements of rank `from_rank`'s part copied into rank `to_rank`'s part:
/// `blocks` blocks of `len` elements, the first at `from` (and `to`), the
/// next `from_stride` (and `to_stride`) elements further on: rows of a
/// tile, or a column (blocks of one element a row apart).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slice {
    /// The rank whose part is read.
    pub from_rank: u32,
    /// Where its first block starts.
    pub from: usize,
    /// Elements between its blocks' starts.
    pub from_stride: usize,
    /// The rank whose part is written.
    pub to_rank: u32,
    /// Where its first block starts.
    pub to: usize,
    /// Elements between its blocks' starts.
    pub to_stride: usize,
    /// Elements in a block.
    pub len: usize,
    /// Blocks.
    pub blocks: usize,
}

impl Slice {
    /// `len` contiguous elements from `from` in `from_rank`'s part to `to`
    /// in `to_rank`'s.
    pub fn run(from_rank: u32, from: usize, to_rank: u32, to: usize, len: usize) -> Slice {
        Slice {
            from_rank,
            from,
            from_stride: len,
            to_rank,
            to,
            to_stride: len,
            len,
            blocks: 1,
        }
    }

    /// The same, as `blocks` blocks, `from_stride` and `to_stride` apart.
    pub fn repeated(self, blocks: usize, from_stride: usize, to_stride: usize) -> Slice {
        Slice {
            blocks,
            from_stride,
            to_stride,
            ..self
        }
    }

    /// Elements it moves.
    pub fn elements(&self) -> usize {
        self.len * self.blocks
    }

    /// Each block's `(start, end)` on the reading or the writing side.
    fn ranges(&self, writes: bool) -> impl Iterator<Item = (usize, usize)> + '_ {
        let (at, stride) = if writes {
            (self.to, self.to_stride)
        } else {
            (self.from, self.from_stride)
        };
        (0..self.blocks).map(move |b| (at + b * stride, at + b * stride + self.len))
    }

    /// Its last element past the end of a part of `part_len`, overflowing
    /// or not.
    fn leaves(&self, part_len: usize, writes: bool) -> bool {
        let (at, stride) = if writes {
            (self.to, self.to_stride)
        } else {
            (self.from, self.from_stride)
        };
        let end = self
            .blocks
            .saturating_sub(1)
            .checked_mul(stride)
            .and_then(|o| o.checked_add(at))
            .and_then(|s| s.checked_add(self.len));
        self.len > 0 && self.blocks > 0 && end.is_none_or(|e| e > part_len)
    }
}

/// A plan that copies a fixed list of [`Slice`]s between the ranks'
/// parts: inside a process on the device (one 2D copy a slice), between
/// processes staged through the host in pieces of whole blocks. No slice
/// may write what another writes or reads, so the order of the copies
/// cannot matter.
pub struct HaloPlan<T: DeviceCopy> {
    pub(super) at: Placement,
    pub(super) part_len: usize,
    slices: Vec<Slice>,
    plan: u32,
    calls: AtomicU32,
    _elements: PhantomData<T>,
}

impl<T: DeviceCopy> HaloPlan<T> {
    /// Collective: a plan for `slices` between parts of `part_len`
    /// elements. Fails, naming the slices, when one leaves its part or
    /// when two collide.
    pub fn new(at: &Placement, part_len: usize, slices: Vec<Slice>) -> Result<HaloPlan<T>> {
        check_slices(at, part_len, &slices)?;
        let mut hash = std::collections::hash_map::DefaultHasher::new();
        slices.hash(&mut hash);
        at.agree(
            "HaloPlan::new",
            format!(
                "a halo of {} slices (digest {:016x}) of {} in parts of {part_len}",
                slices.len(),
                hash.finish(),
                std::any::type_name::<T>()
            ),
        )?;
        Ok(HaloPlan {
            at: at.clone(),
            part_len,
            slices,
            plan: wire::next_plan(),
            calls: AtomicU32::new(0),
            _elements: PhantomData,
        })
    }

    /// The plan and its route between every pair of processes.
    pub fn explain(&self) -> String {
        let mut pairs = std::collections::BTreeMap::new();
        for s in &self.slices {
            let (from, to) = (self.owner(s.from_rank).0, self.owner(s.to_rank).0);
            *pairs.entry((from, to)).or_insert(0) += s.elements() * std::mem::size_of::<T>();
        }
        format!(
            "halo of {} slices of {} in parts of {}:\n{}",
            self.slices.len(),
            std::any::type_name::<T>(),
            self.part_len,
            self.at
                .explain_pairs(pairs.into_iter().map(|((f, t), b)| (f, t, b)), |f, t| {
                    self.at.staged_route(f, t)
                })
        )
    }

    fn owner(&self, rank: u32) -> (u32, usize) {
        let (p, i) = self.at.owner(rank).unwrap_or_default();
        (p, i as usize * self.part_len)
    }

    /// Collective: copies every slice. Slices inside this process are
    /// device copies; the others go through the host.
    pub fn exchange(&self, parts: &mut impl Parts<T>) -> Result<()> {
        let me = self.at.process();
        let id = CallId {
            plan: self.plan,
            call: self.calls.fetch_add(1, Ordering::Relaxed),
        };
        let local = self.at.ranks_of(me).len() as u32;
        check_room("HaloPlan::exchange", me, parts, local, self.part_len)?;
        let size = std::mem::size_of::<T>();
        for s in self.slices.iter().filter(|s| s.elements() > 0) {
            let ((fp, fbase), (tp, tbase)) = (self.owner(s.from_rank), self.owner(s.to_rank));
            let from = Blocks {
                at: fbase + s.from,
                stride: s.from_stride,
                len: s.len,
            };
            let to = Blocks {
                at: tbase + s.to,
                stride: s.to_stride,
                len: s.len,
            };
            if fp == me && tp == me {
                copy_blocks(parts, to, from, s.blocks)?;
            } else if fp == me {
                for (first, blocks) in pieces::<T>(s) {
                    let at = Blocks {
                        at: from.at + first * s.from_stride,
                        ..from
                    };
                    let bytes = blocks * s.len * size;
                    let t = self.at.transport()?;
                    wire::send_with(t, (tp, id), bytes, |b| read_blocks(parts, at, b))?;
                }
            }
        }
        for s in self.slices.iter().filter(|s| s.elements() > 0) {
            let ((fp, _), (tp, tbase)) = (self.owner(s.from_rank), self.owner(s.to_rank));
            if tp != me || fp == me {
                continue;
            }
            let to = Blocks {
                at: tbase + s.to,
                stride: s.to_stride,
                len: s.len,
            };
            for (first, blocks) in pieces::<T>(s) {
                let got = wire::recv(self.at.transport()?, fp, id)?;
                if got.data().len() != blocks * s.len * size {
                    return Err(Error::InvalidArgument {
                        call: "HaloPlan::exchange",
                        reason: format!("process {me} got {} bytes from process {fp} for {blocks} blocks of {} elements", got.data().len(), s.len),
                    });
                }
                write_blocks(
                    parts,
                    Blocks {
                        at: to.at + first * s.to_stride,
                        ..to
                    },
                    got.data(),
                )?;
            }
        }
        self.at.flush()
    }
}

/// A slice's pieces on the wire: `(first block, blocks)`, whole blocks of
/// about a piece's size together.
fn pieces<T>(s: &Slice) -> impl Iterator<Item = (usize, usize)> {
    let per = (piece_elems::<T>() / s.len.max(1)).max(1);
    let blocks = s.blocks;
    (0..blocks)
        .step_by(per)
        .map(move |b| (b, per.min(blocks - b)))
}

/// Every slice stays in its parts, and no slice writes what another
/// reads or writes.
fn check_slices(at: &Placement, part_len: usize, slices: &[Slice]) -> Result<()> {
    let bad = |reason: String| {
        Err(Error::InvalidArgument {
            call: "HaloPlan::new",
            reason,
        })
    };
    // Per rank: (start, end, slice index, writes).
    let mut ranges: Vec<Vec<(usize, usize, usize, bool)>> = vec![Vec::new(); at.ranks() as usize];
    for (i, s) in slices.iter().enumerate() {
        for (rank, writes) in [(s.from_rank, false), (s.to_rank, true)] {
            let Some(r) = ranges.get_mut(rank as usize) else {
                return bad(format!(
                    "slice {i} ({s:?}) names rank {rank} of {}",
                    at.ranks()
                ));
            };
            if s.leaves(part_len, writes) {
                return bad(format!(
                    "slice {i} ({s:?}) leaves rank {rank}'s part of {part_len}"
                ));
            }
            if s.len > 0 {
                r.extend(s.ranges(writes).map(|(a, b)| (a, b, i, writes)));
            }
        }
    }
    for (rank, r) in ranges.iter_mut().enumerate() {
        r.sort();
        for (j, a) in r.iter().enumerate() {
            // Later ranges that start before `a` ends overlap it.
            for b in r[j + 1..].iter().take_while(|b| b.0 < a.1) {
                if a.3 || b.3 {
                    return bad(format!(
                        "slices {} and {} collide in rank {rank}'s part ({}..{} and {}..{}, one of them written)",
                        a.2, b.2, a.0, a.1, b.0, b.1
                    ));
                }
            }
        }
    }
    Ok(())
}
