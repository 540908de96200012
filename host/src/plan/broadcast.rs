//! Broadcast a host array to every rank's part.

use super::parts::{as_bytes, check_room, copy, write, Part, Parts};
use super::scatter::piece_elems;
use super::wire::{self, CallId};
use super::Placement;
use crate::error::{Error, Result};
use dcuda_device::DeviceCopy;
use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};

/// A plan that copies a host array of process `root` to every rank's
/// part. The pieces go down a chain of the processes with ranks, from the
/// root on, each process forwarding a piece as it arrives (the root sends
/// one copy, not one a process); each process writes it into its first
/// rank's part and copies it on the device to its other ranks' parts.
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

    /// The plan and its route between every pair of processes.
    pub fn explain(&self) -> String {
        let bytes = self.n * std::mem::size_of::<T>();
        let chain = self.chain();
        let local =
            (!self.at.ranks_of(self.root).is_empty()).then_some((self.root, self.root, bytes));
        let pairs = local
            .into_iter()
            .chain(chain.windows(2).map(|w| (w[0], w[1], bytes)));
        format!(
            "broadcast of {} {} from process {}, {} (a pipelined chain of processes, each forwarding every piece as it arrives; one copy a process, then device copies to its other ranks):\n{}",
            self.n,
            std::any::type_name::<T>(),
            self.root,
            self.part,
            self.at.explain_pairs(pairs)
        )
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
            if let Some(&next) = self.chain().get(1) {
                for k in (0..self.n).step_by(piece_elems::<T>()) {
                    let piece = &host[k..(k + piece_elems::<T>()).min(self.n)];
                    wire::send(self.at.transport()?, next, id, as_bytes(piece))?;
                }
            }
            if local > 0 {
                write(parts, self.part.start(0), as_bytes(host))?;
            }
        } else if local > 0 {
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
        for i in 1..local {
            copy(parts, self.part.start(i), self.part.start(0), self.n)?;
        }
        self.at.flush()
    }
}
