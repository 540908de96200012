//! Halo exchange: slices of ranks' parts copied into other ranks' parts
//! between kernel runs.

use super::parts::{check_room, copy, read, write, Parts};
use super::scatter::piece_elems;
use super::wire::{self, CallId};
use super::Placement;
use crate::error::{Error, Result};
use dcuda_device::DeviceCopy;
use std::hash::{Hash, Hasher};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};

/// `len` elements at `from` in rank `from_rank`'s part, copied to `to`
/// in rank `to_rank`'s part.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Slice {
    /// The rank whose part is read.
    pub from_rank: u32,
    /// Where in its part.
    pub from: usize,
    /// The rank whose part is written.
    pub to_rank: u32,
    /// Where in its part.
    pub to: usize,
    /// Elements.
    pub len: usize,
}

/// A plan that copies a fixed list of [`Slice`]s between the ranks'
/// parts: inside a process on the device, between processes staged
/// through the host in pieces. No slice may write what another writes or
/// reads, so the order of the copies cannot matter.
pub struct HaloPlan<T: DeviceCopy> {
    at: Placement,
    part_len: usize,
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
        const CALL: &str = "HaloPlan::new";
        let bad = |reason: String| Err(Error::InvalidArgument { call: CALL, reason });
        // Per rank: (start, end, slice index, writes).
        let mut ranges: Vec<Vec<(usize, usize, usize, bool)>> =
            vec![Vec::new(); at.ranks() as usize];
        for (i, s) in slices.iter().enumerate() {
            for (rank, at_, writes) in [(s.from_rank, s.from, false), (s.to_rank, s.to, true)] {
                let end = at_.checked_add(s.len).filter(|&e| e <= part_len);
                match (ranges.get_mut(rank as usize), end) {
                    (None, _) => {
                        return bad(format!(
                            "slice {i} ({s:?}) names rank {rank} of {}",
                            at.ranks()
                        ))
                    }
                    (_, None) => {
                        return bad(format!(
                            "slice {i} ({s:?}) leaves rank {rank}'s part of {part_len}"
                        ))
                    }
                    (Some(r), Some(end)) if s.len > 0 => r.push((at_, end, i, writes)),
                    _ => {}
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
        let mut hash = std::collections::hash_map::DefaultHasher::new();
        slices.hash(&mut hash);
        at.agree(
            CALL,
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

    /// Collective: the halo of a line of ranks. Each part is a low ghost
    /// zone of `halo` elements, the rank's own elements, and a high ghost
    /// zone of `halo`: a rank's first `halo` own elements go to the high
    /// ghost zone of the rank before it, its last `halo` to the low ghost
    /// zone of the rank after it; with `periodic`, the ends wrap around.
    pub fn line(
        at: &Placement,
        part_len: usize,
        halo: usize,
        periodic: bool,
    ) -> Result<HaloPlan<T>> {
        if part_len < 3 * halo {
            return Err(Error::InvalidArgument {
                call: "HaloPlan::line",
                reason: format!("parts of {part_len} elements cannot hold two ghost zones of {halo} and {halo} own elements"),
            });
        }
        let n = at.ranks();
        let mut slices = Vec::new();
        for r in 0..n {
            let (before, after) = ((r + n - 1) % n, (r + 1) % n);
            if periodic || r > 0 {
                slices.push(Slice {
                    from_rank: r,
                    from: halo,
                    to_rank: before,
                    to: part_len - halo,
                    len: halo,
                });
            }
            if periodic || r + 1 < n {
                slices.push(Slice {
                    from_rank: r,
                    from: part_len - 2 * halo,
                    to_rank: after,
                    to: 0,
                    len: halo,
                });
            }
        }
        HaloPlan::new(at, part_len, slices)
    }

    /// The plan and its route between every pair of processes.
    pub fn explain(&self) -> String {
        let mut pairs = std::collections::BTreeMap::new();
        for s in &self.slices {
            let (from, to) = (self.owner(s.from_rank).0, self.owner(s.to_rank).0);
            *pairs.entry((from, to)).or_insert(0) += s.len * std::mem::size_of::<T>();
        }
        format!(
            "halo of {} slices of {} in parts of {}:\n{}",
            self.slices.len(),
            std::any::type_name::<T>(),
            self.part_len,
            self.at
                .explain_pairs(pairs.into_iter().map(|((f, t), b)| (f, t, b)))
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
        let (size, piece) = (std::mem::size_of::<T>(), piece_elems::<T>());
        let mut buf = Vec::new();
        for s in &self.slices {
            let ((fp, fbase), (tp, tbase)) = (self.owner(s.from_rank), self.owner(s.to_rank));
            if fp != me {
                continue;
            }
            if tp == me {
                copy(parts, tbase + s.to, fbase + s.from, s.len)?;
                continue;
            }
            for k in (0..s.len).step_by(piece) {
                buf.resize(piece.min(s.len - k) * size, 0u8);
                read(parts, fbase + s.from + k, &mut buf)?;
                wire::send(self.at.transport()?, tp, id, &buf)?;
            }
        }
        for s in &self.slices {
            let ((fp, _), (tp, tbase)) = (self.owner(s.from_rank), self.owner(s.to_rank));
            if tp != me || fp == me {
                continue;
            }
            let mut k = 0;
            while k < s.len {
                let got = wire::recv(self.at.transport()?, fp, id)?;
                write(parts, tbase + s.to + k, &got)?;
                k += got.len() / size;
            }
        }
        self.at.flush()
    }
}
