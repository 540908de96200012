//! Communicator syncs: the counted barrier of [`sync`](super::sync), among
//! only the processes that hold ranks of one communicator, optionally
//! carrying each process's split entries to the others (a split of a
//! communicator that spans processes).
//!
//! The device names the communicator by its context id, its slot and its
//! part of the slot's tables; the host reads the representatives' world
//! ranks there, which give the processes taking part. A communicator is
//! keyed by its context id and its first representative's world rank, so
//! two communicators of one context id (disjoint, made by different
//! splits) never mix, and each key numbers its syncs.

use super::message::Message;
use super::setup::peer_error;
use super::World;
use crate::error::Result;
use dcuda_device::abi::{CommSync, CommSyncKind, SplitEntry, TABLE_SPAN};
use std::collections::HashMap;
use std::sync::atomic::Ordering;

/// What one process sent for one sync.
pub(crate) struct Arrived {
    sent: u64,
    entries: Vec<(u32, SplitEntry)>,
}

/// A sync this process has started.
struct Pending {
    key: (u32, u32, u32),
    /// The device rank waiting for the reply.
    rank: u32,
    others: Vec<u32>,
    sync: CommSync,
}

/// Communicator-sync state of the progress thread.
#[derive(Default)]
pub(crate) struct CommSyncs {
    next: HashMap<(u32, u32), u32>,
    arrived: HashMap<(u32, u32, u32), HashMap<u32, Arrived>>,
    pending: Vec<Pending>,
}

impl CommSyncs {
    /// Keeps a sync message from `from`.
    pub fn arrive(
        &mut self,
        from: u32,
        key: (u32, u32, u32),
        sent: u64,
        entries: Vec<(u32, SplitEntry)>,
    ) {
        let slot = self.arrived.entry(key).or_default();
        slot.insert(from, Arrived { sent, entries });
    }
}

impl World {
    /// `count` entries of `sync`'s communicator's table from entry `from`
    /// of its part on.
    fn read_table(&self, sync: &CommSync, from: u32, count: u32) -> Result<Vec<u32>> {
        let row = sync.slot as u64 * (TABLE_SPAN as u64 * self.size() as u64);
        let mut out = vec![0u32; count as usize];
        let addr = self.comm_tables + (row + sync.offset as u64 + from as u64) * 4;
        self.runtime
            .read_device(addr, bytemuck::cast_slice_mut(&mut out))?;
        Ok(out)
    }

    fn entry_addr_of(&self, slot: u32, world: u32) -> u64 {
        let index = slot as u64 * self.size() as u64 + world as u64;
        self.comm_exchange + index * size_of::<SplitEntry>() as u64
    }

    /// Starts device rank `rank`'s sync of the communicator of context
    /// `context` described by `sync`.
    pub fn start_comm_sync(
        &self,
        syncs: &mut CommSyncs,
        rank: u32,
        context: u32,
        sync: CommSync,
    ) -> Result<()> {
        let bad = |what: String| peer_error("communicator sync", what);
        let world = self.size();
        if sync.offset as u64 + sync.size as u64 + sync.reps as u64
            > TABLE_SPAN as u64 * world as u64
        {
            return Err(bad(format!(
                "a communicator of {} ranks from table entry {}, in a world of {world}",
                sync.size, sync.offset
            )));
        }
        let reps = self.read_table(&sync, sync.size, sync.reps)?;
        let mut processes = Vec::with_capacity(reps.len());
        for &w in &reps {
            let p = self
                .process_of(w)
                .ok_or_else(|| bad(format!("representative {w} outside the world")))?;
            if processes.last().is_some_and(|&q| q >= p) {
                return Err(bad(format!(
                    "representatives {reps:?} out of process order"
                )));
            }
            processes.push(p);
        }
        if !processes.contains(&self.me()) {
            return Err(bad(format!(
                "process {} is not among the communicator's processes {processes:?}",
                self.me()
            )));
        }
        let lead = reps[0];
        let next = syncs.next.entry((context, lead)).or_default();
        let key = (context, lead, *next);
        *next += 1;
        let mut entries = Vec::new();
        if sync.kind == CommSyncKind::Split as u32 {
            let (first, end) = (self.first(), self.first() + self.ranks());
            for w in self.read_table(&sync, 0, sync.size)? {
                if (first..end).contains(&w) {
                    let mut e = SplitEntry::default();
                    self.runtime.read_device(
                        self.entry_addr_of(sync.slot, w),
                        bytemuck::bytes_of_mut(&mut e),
                    )?;
                    entries.push((w, e));
                }
            }
        }
        let others: Vec<u32> = processes.into_iter().filter(|&p| p != self.me()).collect();
        for &p in &others {
            let msg = Message::<Vec<u8>>::CommSync {
                context,
                lead,
                seq: key.2,
                sent: self.sent[p as usize].load(Ordering::Relaxed),
                entries: entries.clone(),
            };
            self.job.transport.send(p, self.control, msg.encode())?;
        }
        syncs.pending.push(Pending {
            key,
            rank,
            others,
            sync,
        });
        Ok(())
    }

    /// Finishes every started sync that can finish; returns the device
    /// ranks to reply to.
    pub fn poll_comm_syncs(&self, syncs: &mut CommSyncs) -> Result<Vec<u32>> {
        let mut done = Vec::new();
        let mut i = 0;
        while i < syncs.pending.len() {
            let p = &syncs.pending[i];
            let ready = syncs.arrived.get(&p.key).is_some_and(|a| {
                p.others.iter().all(|q| {
                    a.get(q).is_some_and(|m| {
                        self.received[*q as usize].load(Ordering::Acquire) >= m.sent
                    })
                })
            });
            if !ready {
                i += 1;
                continue;
            }
            let p = syncs.pending.swap_remove(i);
            let arrived = syncs.arrived.remove(&p.key).unwrap_or_default();
            if p.sync.kind == CommSyncKind::Split as u32 {
                for (from, a) in arrived {
                    for (w, e) in a.entries {
                        if self.process_of(w) != Some(from) {
                            return Err(peer_error("split exchange", format!("process {from} sent the split entry of world rank {w}, which is not its own")));
                        }
                        self.runtime.write_device(
                            self.entry_addr_of(p.sync.slot, w),
                            bytemuck::bytes_of(&e),
                        )?;
                    }
                }
            }
            done.push(p.rank);
        }
        Ok(done)
    }
}
