//! Broadcast a host array to every rank's part.

use super::parts::{as_bytes, check_room, copy, fill_parts, write, Part, Parts};
use super::peer::{self, Mapping};
use super::scatter::piece_elems;
use super::wire::{self, CallId};
use super::{Placement, Route};
use crate::error::{Error, Result};
use crate::runtime::Runtime;
use dcuda_device::DeviceCopy;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};

/// A plan that copies a host array of process `root` to every rank's
/// part. Where every other process with ranks is a peer of the root (its
/// GPU mapped through CUDA IPC), the root writes the array into each one's
/// first rank's part itself; otherwise the pieces go down a chain of the
/// processes with ranks, from the root on, each process forwarding a piece
/// as it arrives (the root sends one copy, not one a process). Each
/// process then copies it on the device to its other ranks' parts.
pub struct BroadcastPlan<T: DeviceCopy> {
    at: Placement,
    n: usize,
    root: u32,
    part: Part,
    plan: u32,
    calls: AtomicU32,
    _elements: PhantomData<T>,
}

impl<T: DeviceCopy> BroadcastPlan<T> {
    /// Collective: a plan for `n` elements of process `root`, into every
    /// rank's part where `part` says.
    pub fn new(at: &Placement, n: usize, root: u32, part: Part) -> Result<BroadcastPlan<T>> {
        const CALL: &str = "BroadcastPlan::new";
        if root >= at.processes() || !part.fits(n) {
            return Err(Error::InvalidArgument {
                call: CALL,
                reason: format!(
                    "a broadcast of {n} elements from process {root} into {part} in a job of {} processes",
                    at.processes()
                ),
            });
        }
        at.agree(
            CALL,
            format!(
                "a broadcast of {n} {} from process {root} into {part}",
                std::any::type_name::<T>()
            ),
        )?;
        Ok(BroadcastPlan {
            at: at.clone(),
            n,
            root,
            part,
            plan: wire::next_plan(),
            calls: AtomicU32::new(0),
            _elements: PhantomData,
        })
    }

    /// The processes the data pass through, from the root on: the root,
    /// then every other process with ranks, in order after it.
    fn chain(&self) -> Vec<u32> {
        let p = self.at.processes();
        let others = (1..p).map(|k| (self.root + k) % p);
        std::iter::once(self.root)
            .chain(others.filter(|&q| !self.at.ranks_of(q).is_empty()))
            .collect()
    }

    /// Whether every other process with ranks is a peer of the root.
    fn all_peers(&self) -> bool {
        let chain = self.chain();
        chain.len() > 1
            && chain[1..]
                .iter()
                .all(|&q| self.at.route(self.root, q) == Route::Peer)
    }

    /// The plan and its route between every pair of processes.
    pub fn explain(&self) -> String {
        let bytes = self.n * std::mem::size_of::<T>();
        let chain = self.chain();
        let local =
            (!self.at.ranks_of(self.root).is_empty()).then_some((self.root, self.root, bytes));
        let (how, pairs): (&str, Vec<_>) = if self.all_peers() {
            (
                "the root writes every process's copy through peer copies",
                chain[1..].iter().map(|&q| (self.root, q, bytes)).collect(),
            )
        } else {
            (
                "a pipelined chain of processes, each forwarding every piece as it arrives",
                chain.windows(2).map(|w| (w[0], w[1], bytes)).collect(),
            )
        };
        format!(
            "broadcast of {} {} from process {}, {} ({how}; one copy a process, then device copies to its other ranks):\n{}",
            self.n,
            std::any::type_name::<T>(),
            self.root,
            self.part,
            self.at
                .explain_pairs(local.into_iter().chain(pairs), |f, t| self.at.route(f, t))
        )
    }

    /// The root's peer copies when every other process is a peer: takes
    /// every offer, writes `host` into each offered buffer, and answers
    /// all. Whether it did (if not, the chain runs, with a warning).
    fn peer_copies(&self, host: &[T], rt: &Runtime, id: CallId) -> Result<bool> {
        let chain = self.chain();
        let mut offers = Vec::new();
        for &q in &chain[1..] {
            offers.push((q, peer::take(&self.at, q, id)?));
        }
        // A process whose buffer is mapped host memory offers none: then
        // the chain serves everyone, as documented.
        let copied = if offers.iter().all(|(_, o)| o.is_some()) {
            let copied = offers.iter().try_for_each(|(q, offer)| match offer {
                Some(o) => Mapping::open(rt, o, *q)
                    .and_then(|m| m.fill::<T>(&self.starts(*q), as_bytes(host))),
                None => Ok(()),
            });
            if let Err(e) = &copied {
                tracing::warn!(
                    "process {}: a broadcast's peer copies failed ({e}); it goes down the chain of processes",
                    self.root
                );
            }
            copied.is_ok()
        } else {
            false
        };
        let word = if copied { peer::FILLED } else { peer::STAGED };
        for (q, offer) in &offers {
            if offer.is_some() {
                peer::answer_with(&self.at, *q, id, word)?;
            }
        }
        Ok(copied)
    }

    /// Where each rank of process `q` gets the array: the start of its part.
    fn starts(&self, q: u32) -> Vec<usize> {
        (0..self.at.ranks_of(q).len())
            .map(|i| self.part.start(i))
            .collect()
    }

    /// Collective: copies `host` (read on the root only; others may pass
    /// `None`) to the start of every rank's part.
    pub fn broadcast(&self, host: Option<&[T]>, parts: &mut impl Parts<T>) -> Result<()> {
        const CALL: &str = "BroadcastPlan::broadcast";
        let me = self.at.process();
        let id = CallId {
            plan: self.plan,
            call: self.calls.fetch_add(1, Ordering::Relaxed),
        };
        let local = self.at.ranks_of(me).len();
        check_room(CALL, me, parts, local as u32, self.part.len)?;
        if me == self.root {
            let host = match host {
                Some(h) if h.len() == self.n => h,
                got => {
                    return Err(Error::InvalidArgument {
                        call: CALL,
                        reason: format!(
                            "process {me} is the root of a broadcast of {} elements, but its host array {}",
                            self.n,
                            got.map_or("is missing".to_string(), |h| format!("has {}", h.len()))
                        ),
                    })
                }
            };
            // The peers' copies (through contexts on their GPUs where it
            // can) beside the root's own: the GPUs' links work at once.
            let rt = parts.base().1.clone();
            let moved = peer::beside(
                || Ok(self.all_peers() && self.peer_copies(host, &rt, id)?),
                || fill_parts::<T>(&*parts, &self.starts(me), as_bytes(host)),
            )?;
            if let Some(&next) = self.chain().get(1).filter(|_| !moved) {
                for k in (0..self.n).step_by(piece_elems::<T>()) {
                    let piece = &host[k..(k + piece_elems::<T>()).min(self.n)];
                    wire::send(self.at.transport()?, next, id, as_bytes(piece))?;
                }
            }
            // Every rank's part here was filled beside the peers' copies.
            return self.at.flush();
        } else if local > 0 {
            let answer = if self.all_peers() && peer::offer(&self.at, parts, self.root, id)? {
                peer::answer_of(&self.at, self.root, id)?
            } else {
                peer::STAGED
            };
            if answer == peer::FILLED {
                // The root filled every rank's part here.
                return self.at.flush();
            }
            if answer == peer::STAGED {
                // Forward each piece before writing it, so the chain flows.
                let chain = self.chain();
                let at = chain.iter().position(|&q| q == me).unwrap_or_default();
                let (before, after) = (chain[at.saturating_sub(1)], chain.get(at + 1).copied());
                let mut k = 0;
                while k < self.n {
                    let got = wire::recv(self.at.transport()?, before, id)?;
                    if let Some(next) = after {
                        wire::send(self.at.transport()?, next, id, got.data())?;
                    }
                    write(parts, self.part.start(0) + k, got.data())?;
                    k += got.data().len() / std::mem::size_of::<T>();
                }
            }
        }
        for i in 1..local {
            copy(parts, self.part.start(i), self.part.start(0), self.n)?;
        }
        self.at.flush()
    }
}
