//! Scatter a host array to the ranks' parts, and gather it back.

use super::parts::{as_bytes, as_bytes_mut, check_room, read, write, Part, Parts};
use super::peer::{self, Mapping};
use super::split::{collect_bytes, spread_bytes, Split};
use super::wire::{self, CallId};
use super::{Placement, Route};
use crate::error::{Error, Result};
use dcuda_device::DeviceCopy;
use std::marker::PhantomData;
use std::mem::size_of;
use std::sync::atomic::{AtomicU32, Ordering};

/// A plan that moves a host array of process `root` to the ranks' parts
/// ([`scatter`](Self::scatter)) and back ([`gather`](Self::gather)), split
/// by a [`Split`]. Made collectively; every process then calls the same
/// plans in the same order.
pub struct ScatterPlan<T: DeviceCopy> {
    at: Placement,
    split: Split,
    n: usize,
    root: u32,
    part: Part,
    plan: u32,
    calls: AtomicU32,
    _elements: PhantomData<T>,
}

impl<T: DeviceCopy> ScatterPlan<T> {
    /// Collective: a plan for `n` elements held by process `root`, split
    /// among the ranks by `split`, each rank's share in its part where
    /// `part` says. Fails, naming the values, when a
    /// rank's share does not fit or the processes' plans differ.
    pub fn new(
        at: &Placement,
        split: Split,
        n: usize,
        root: u32,
        part: Part,
    ) -> Result<ScatterPlan<T>> {
        const CALL: &str = "ScatterPlan::new";
        if root >= at.processes() {
            return Err(Error::InvalidArgument {
                call: CALL,
                reason: format!("root process {root} is not in a job of {}", at.processes()),
            });
        }
        split.check(CALL, n, at.ranks())?;
        for r in 0..at.ranks() {
            let c = split.count(n, at.ranks(), r);
            if !part.fits(c) {
                return Err(Error::InvalidArgument {
                    call: CALL,
                    reason: format!(
                        "rank {r} gets {c} elements ({split} of {n}), but its part holds {} from element {}",
                        part.len.saturating_sub(part.offset),
                        part.offset
                    ),
                });
            }
        }
        at.agree(
            CALL,
            format!(
                "a scatter of {n} {} ({split}) from process {root} into {part}",
                std::any::type_name::<T>()
            ),
        )?;
        Ok(ScatterPlan {
            at: at.clone(),
            split,
            n,
            root,
            part,
            plan: wire::next_plan(),
            calls: AtomicU32::new(0),
            _elements: PhantomData,
        })
    }

    /// Elements rank `rank` gets.
    pub fn count(&self, rank: u32) -> usize {
        self.split.count(self.n, self.at.ranks(), rank)
    }

    /// The plan and its route between every pair of processes.
    pub fn explain(&self) -> String {
        let pairs = (0..self.at.processes()).filter_map(|q| {
            let bytes: usize = self.at.ranks_of(q).map(|r| self.count(r)).sum();
            (bytes > 0).then(|| (self.root, q, bytes * std::mem::size_of::<T>()))
        });
        format!(
            "scatter/gather of {} {} ({}) at process {}, {}:\n{}",
            self.n,
            std::any::type_name::<T>(),
            self.split,
            self.root,
            self.part,
            self.at.explain_pairs(pairs, |f, t| self.at.route(f, t))
        )
    }

    /// A call's number (counted even when the call then fails, as on the
    /// other processes), after checking this process's buffer.
    fn begin(&self, call: &'static str, parts: &dyn Parts<T>) -> Result<(u32, CallId)> {
        let me = self.at.process();
        let id = CallId {
            plan: self.plan,
            call: self.calls.fetch_add(1, Ordering::Relaxed),
        };
        let ranks = self.at.ranks_of(me).len() as u32;
        check_room(call, me, parts, ranks, self.part.len)?;
        Ok((me, id))
    }

    fn root_slice_len(&self, call: &'static str, len: Option<usize>) -> Result<()> {
        match len {
            Some(l) if l == self.n => Ok(()),
            got => Err(Error::InvalidArgument {
                call,
                reason: format!(
                    "process {} is the root of a plan of {} elements, but its host array {}",
                    self.root,
                    self.n,
                    got.map_or("is missing".to_string(), |l| format!("has {l}"))
                ),
            }),
        }
    }

    /// Collective: copies each rank's share of `host` (read on the root
    /// process only; others may pass `None`) to its part in its process's
    /// `parts`, where the plan's [`Part`] says.
    pub fn scatter(&self, host: Option<&[T]>, parts: &mut impl Parts<T>) -> Result<()> {
        const CALL: &str = "ScatterPlan::scatter";
        let (me, id) = self.begin(CALL, parts)?;
        if me == self.root {
            self.root_slice_len(CALL, host.map(<[T]>::len))?;
            self.send_shares(host.unwrap_or_default(), parts, id)?;
            return self.flush();
        }
        if self.peer_offered(parts, id)? {
            return self.flush();
        }
        for (i, r) in self.at.ranks_of(me).enumerate() {
            let (count, mut k) = (self.count(r), 0);
            while k < count {
                let got = wire::recv(self.at.transport()?, self.root, id)?;
                write(parts, self.part.start(i) + k, got.data())?;
                k += got.data().len() / size_of::<T>();
            }
        }
        self.flush()
    }

    /// The root's side of a scatter: its own ranks' shares written (one
    /// run straight from the array, several packed first) while another
    /// thread copies the peers' (each through a context on its GPU where it
    /// can: the GPUs' links work at once), then the others' sent in pieces
    /// packed straight into their messages.
    fn send_shares(&self, host: &[T], parts: &dyn Parts<T>, id: CallId) -> Result<()> {
        let (me, piece) = (self.at.process(), piece_elems::<T>());
        let rt = parts.base().1;
        let share = |r: u32| -> Vec<u8> {
            let runs = self.split.runs(self.n, self.at.ranks(), r);
            let count: usize = runs.iter().map(|run| run.1).sum();
            let mut bytes = vec![0u8; count * size_of::<T>()];
            collect_bytes(&runs, 0, host, &mut bytes);
            bytes
        };
        let single = |r: u32| match self.split.runs(self.n, self.at.ranks(), r)[..] {
            [(s, l)] => Some(as_bytes(&host[s..s + l])),
            _ => None,
        };
        let moved = peer::beside(
            || {
                self.peer_copies(rt, id, |m, i, r| match single(r) {
                    Some(bytes) => m.write::<T>(self.part.start(i), bytes),
                    None => m.write::<T>(self.part.start(i), &share(r)),
                })
            },
            || {
                (self.at.ranks_of(me).enumerate()).try_for_each(|(i, r)| match single(r) {
                    Some(bytes) => write(parts, self.part.start(i), bytes),
                    None => write(parts, self.part.start(i), &share(r)),
                })
            },
        )?;
        for q in (0..self.at.processes()).filter(|&q| q != me) {
            for r in self.at.ranks_of(q) {
                let runs = self.split.runs(self.n, self.at.ranks(), r);
                let count: usize = runs.iter().map(|run| run.1).sum();
                if moved.contains(&q) {
                    continue;
                }
                for k in (0..count).step_by(piece) {
                    let bytes = piece.min(count - k) * size_of::<T>();
                    wire::send_with(self.at.transport()?, (q, id), bytes, |b| {
                        collect_bytes(&runs, k, host, b);
                        Ok(())
                    })?;
                }
            }
        }
        Ok(())
    }

    /// Collective: copies each rank's share back from its part into `host`
    /// on the root process (others may pass `None`).
    pub fn gather(&self, parts: &impl Parts<T>, host: Option<&mut [T]>) -> Result<()> {
        const CALL: &str = "ScatterPlan::gather";
        let (me, id) = self.begin(CALL, parts)?;
        if me == self.root {
            self.root_slice_len(CALL, host.as_ref().map(|h| h.len()))?;
            self.take_shares(parts, host.unwrap_or_default(), id)?;
            return self.flush();
        }
        if self.peer_offered(parts, id)? {
            return self.flush();
        }
        let piece = piece_elems::<T>();
        for (i, r) in self.at.ranks_of(me).enumerate() {
            let count = self.count(r);
            for k in (0..count).step_by(piece) {
                let bytes = piece.min(count - k) * size_of::<T>();
                let at = self.part.start(i) + k;
                let t = self.at.transport()?;
                wire::send_with(t, (self.root, id), bytes, |b| read(parts, at, b))?;
            }
        }
        self.flush()
    }

    /// The root's side of a gather: its own ranks' shares read (one run
    /// straight into the array) while another thread reads the peers'
    /// (each through a context on its GPU where it can), then the others'
    /// taken as they arrive.
    fn take_shares(&self, parts: &dyn Parts<T>, host: &mut [T], id: CallId) -> Result<()> {
        let me = self.at.process();
        let rt = parts.base().1;
        let shares = Disjoint(host.as_mut_ptr(), host.len());
        // Rank `r`'s share read by `read` into its runs of the array.
        let take = |r: u32, read: &dyn Fn(&mut [u8]) -> Result<()>| -> Result<()> {
            let runs = self.split.runs(self.n, self.at.ranks(), r);
            // SAFETY: each rank's runs are served by one thread, and the
            // runs of different ranks are disjoint (a split refuses
            // overlapping ranges).
            unsafe {
                if let [(s, l)] = runs[..] {
                    return read(as_bytes_mut(shares.run(s, l)));
                }
                let count: usize = runs.iter().map(|run| run.1).sum();
                let mut bytes = vec![0u8; count * size_of::<T>()];
                read(&mut bytes)?;
                let mut at = 0;
                for &(s, l) in &runs {
                    let size = size_of::<T>();
                    as_bytes_mut(shares.run(s, l))
                        .copy_from_slice(&bytes[at * size..(at + l) * size]);
                    at += l;
                }
            }
            Ok(())
        };
        let moved = peer::beside(
            || {
                self.peer_copies(rt, id, |m, i, r| {
                    take(r, &|b| m.read::<T>(self.part.start(i), b))
                })
            },
            || {
                (self.at.ranks_of(me).enumerate())
                    .try_for_each(|(i, r)| take(r, &|b| read(parts, self.part.start(i), b)))
            },
        )?;
        for q in (0..self.at.processes()).filter(|&q| q != me) {
            for r in self.at.ranks_of(q) {
                let runs = self.split.runs(self.n, self.at.ranks(), r);
                let count: usize = runs.iter().map(|run| run.1).sum();
                if moved.contains(&q) {
                    continue;
                }
                let mut k = 0;
                while k < count {
                    let got = wire::recv(self.at.transport()?, q, id)?;
                    spread_bytes(&runs, k, got.data(), host);
                    k += got.data().len() / size_of::<T>();
                }
            }
        }
        Ok(())
    }

    fn flush(&self) -> Result<()> {
        self.at.flush()
    }

    /// A process other than the root with a peer route: offers its buffer
    /// to the root; whether the root then moved its shares itself (if not,
    /// the pair goes on staged).
    fn peer_offered(&self, parts: &dyn Parts<T>, id: CallId) -> Result<bool> {
        Ok(self.at.route(self.root, self.at.process()) == Route::Peer
            && peer::offer(&self.at, parts, self.root, id)?
            && peer::answered(&self.at, self.root, id)?)
    }

    /// The root's peer copies: for every process with a peer route, takes
    /// its offer, maps its buffer and runs `copy` (the mapping, the rank's
    /// index there, the rank) for each of its ranks. The processes whose
    /// shares moved; the others go staged, a failed mapping with a warning.
    fn peer_copies(
        &self,
        rt: &crate::runtime::Runtime,
        id: CallId,
        mut copy: impl FnMut(&Mapping, usize, u32) -> Result<()>,
    ) -> Result<Vec<u32>> {
        let me = self.at.process();
        let mut moved = Vec::new();
        for q in (0..self.at.processes()).filter(|&q| self.at.route(me, q) == Route::Peer) {
            let Some(offer) = peer::take(&self.at, q, id)? else {
                continue;
            };
            let copied = Mapping::open(rt, &offer, q).and_then(|m| {
                (self.at.ranks_of(q).enumerate()).try_for_each(|(i, r)| copy(&m, i, r))
            });
            if let Err(e) = &copied {
                tracing::warn!("process {me}: peer copies with process {q} failed ({e}); its shares go staged through host memory");
            }
            peer::answer(&self.at, q, id, copied.is_ok())?;
            if copied.is_ok() {
                moved.push(q);
            }
        }
        Ok(moved)
    }
}

/// A gather's host array, written by two threads at once: the root's own
/// ranks' runs and its peers' ranks' runs, which are disjoint.
struct Disjoint<T>(*mut T, usize);

// SAFETY: the threads write disjoint runs of an array that outlives them.
unsafe impl<T: Send> Send for Disjoint<T> {}
unsafe impl<T: Send> Sync for Disjoint<T> {}

impl<T> Disjoint<T> {
    /// Elements `s..s + l` of the array.
    ///
    /// # Safety
    /// No other thread uses them meanwhile.
    #[allow(clippy::mut_from_ref)]
    unsafe fn run(&self, s: usize, l: usize) -> &mut [T] {
        assert!(
            s.checked_add(l).is_some_and(|end| end <= self.1),
            "run {s}+{l} past {}",
            self.1
        );
        std::slice::from_raw_parts_mut(self.0.add(s), l)
    }
}

/// Elements in one piece on the wire.
pub(super) fn piece_elems<T>() -> usize {
    (wire::PIECE_BYTES / std::mem::size_of::<T>().max(1)).max(1)
}
