//! World syncs: counted barriers, and the window exchange that rides on
//! them. Non-blocking: the progress thread starts a sync and polls it while
//! it keeps serving its ranks.

use super::comm_sync::CommSyncs;
use super::message::{Message, SharedEntry};
use super::setup::peer_error;
use super::World;
use crate::error::Result;
use dcuda_device::abi::{Peer, Route, WindowEntry, MAX_WINDOWS};
use std::collections::HashMap;
use std::sync::atomic::Ordering;

/// A world sync's message from one process.
struct Arrived {
    sent: u64,
    window: Option<(u32, Vec<SharedEntry>)>,
}

/// World-sync state of the progress thread.
#[derive(Default)]
pub(crate) struct Syncs {
    next: u32,
    arrived: HashMap<u32, Vec<Option<Arrived>>>,
    /// The sync under way: its number, its window, and whether this
    /// process's entries of it include memory that cannot be mapped.
    pending: Option<(u32, Option<u32>, bool)>,
    /// Syncs of communicators other than the world.
    pub comms: CommSyncs,
}

/// Whether a window exchange includes memory no peer can map (so its
/// traffic goes through the hosts).
fn unmappable(entries: &[SharedEntry]) -> bool {
    entries
        .iter()
        .any(|e| e.entry.live != 0 && e.entry.bytes > 0 && e.ipc.is_none())
}

impl World {
    /// Starts the next world sync: a barrier, or the exchange of window
    /// `window`.
    pub fn start_sync(&self, syncs: &mut Syncs, window: Option<u32>) -> Result<()> {
        let seq = syncs.next;
        syncs.next += 1;
        let shared = match window {
            Some(id) => Some((id, self.own_entries(id)?)),
            None => None,
        };
        for p in self.others() {
            let msg = Message::<Vec<u8>>::Sync {
                seq,
                sent: self.sent[p as usize].load(Ordering::Relaxed),
                window: shared.clone(),
            };
            self.job.transport.send(p, self.control, msg.encode())?;
        }
        let own = shared.as_ref().is_some_and(|(_, e)| unmappable(e));
        syncs.pending = Some((seq, window, own));
        Ok(())
    }

    /// Reads this process's entries of window `id` from the device, keeps
    /// them for the receive thread, and makes IPC handles where a peer
    /// could map them.
    fn own_entries(&self, id: u32) -> Result<Vec<SharedEntry>> {
        if id as usize >= MAX_WINDOWS {
            return Err(peer_error(
                "window exchange",
                format!("window id {id} out of range"),
            ));
        }
        let ranks = self.ranks() as usize;
        let entries = self.read_entries(id as usize, self.first(), ranks)?;
        self.mirror.lock().unwrap_or_else(|e| e.into_inner())
            [id as usize * ranks..(id as usize + 1) * ranks]
            .copy_from_slice(&entries);
        let peers = self.runtime.device.peers();
        let symmetric = self.symmetric;
        Ok(entries
            .into_iter()
            .map(|entry| {
                let used = entry.live != 0 && entry.bytes > 0;
                SharedEntry {
                    ipc: match peers {
                        // NVSHMEM's heap cannot be shared through CUDA IPC.
                        Some(p) if used && symmetric.is_none() => p.ipc_export(entry.base).ok(),
                        _ => None,
                    },
                    symmetric: symmetric
                        .filter(|_| used)
                        .and_then(|s| s.offset_of(entry.base, entry.bytes)),
                    entry,
                }
            })
            .collect())
    }

    /// `count` entries of window `id` from world rank `first` on, from the
    /// device table.
    fn read_entries(&self, id: usize, first: u32, count: usize) -> Result<Vec<WindowEntry>> {
        let mut entries = vec![WindowEntry::default(); count];
        let raw = bytemuck::cast_slice_mut(&mut entries);
        self.runtime.read_device(self.entry_addr(id, first), raw)?;
        Ok(entries)
    }

    /// Writes `entries` of window `id` from world rank `first` on into the
    /// device table.
    fn write_entries(&self, id: usize, first: u32, entries: &[WindowEntry]) -> Result<()> {
        let raw = bytemuck::cast_slice(entries);
        self.runtime.write_device(self.entry_addr(id, first), raw)
    }

    /// The device address of world rank `first`'s entry of window `id`.
    fn entry_addr(&self, id: usize, first: u32) -> u64 {
        let index = id * self.size() as usize + first as usize;
        self.table + (index * std::mem::size_of::<WindowEntry>()) as u64
    }

    /// Takes control messages and finishes the pending sync when it can;
    /// returns whether it finished one.
    pub fn poll_syncs(&self, syncs: &mut Syncs) -> Result<bool> {
        let rx = self.control_rx.lock().unwrap_or_else(|e| e.into_inner());
        while let Ok((from, msg)) = rx.try_recv() {
            match Message::decode(&msg)? {
                Message::Sync { seq, sent, window } => {
                    let slots = syncs
                        .arrived
                        .entry(seq)
                        .or_insert_with(|| (0..self.processes()).map(|_| None).collect());
                    slots[from as usize] = Some(Arrived { sent, window });
                }
                Message::CommSync {
                    context,
                    lead,
                    seq,
                    sent,
                    entries,
                } => syncs
                    .comms
                    .arrive(from, (context, lead, seq), sent, entries),
                Message::Abort(text) => self.fail(from, text),
                _ => {
                    return Err(peer_error(
                        "control",
                        format!("process {from} sent a data message on the control channel"),
                    ))
                }
            }
        }
        drop(rx);
        let Some((seq, window, own_unmappable)) = syncs.pending else {
            return Ok(false);
        };
        let Some(slots) = syncs.arrived.get(&seq) else {
            return Ok(false);
        };
        for p in self.others() {
            match &slots[p as usize] {
                Some(m) if self.received[p as usize].load(Ordering::Acquire) >= m.sent => {}
                _ => return Ok(false),
            }
        }
        let slots = syncs.arrived.remove(&seq).unwrap_or_default();
        syncs.pending = None;
        if let Some(id) = window {
            // Every process sees every process's entries, so all decide
            // alike: once any window's traffic goes through the hosts, so
            // does the world barrier, which then delivers it.
            let any = own_unmappable
                || slots.iter().flatten().any(|a| {
                    a.window
                        .as_ref()
                        .is_some_and(|(_, entries)| unmappable(entries))
                });
            if any && self.all_direct.swap(false, Ordering::Relaxed) {
                self.runtime
                    .write_device(self.leader_barrier, &0u32.to_le_bytes())?;
            }
            self.install_window(id, slots)?;
        }
        Ok(true)
    }

    /// Writes the other processes' entries of window `id` into the device
    /// table: mapped addresses for direct peers, their own for the rest.
    /// A peer whose memory cannot be mapped is reached through the host
    /// from now on.
    fn install_window(&self, id: u32, slots: Vec<Option<Arrived>>) -> Result<()> {
        for (p, slot) in slots.into_iter().enumerate() {
            let Some(Arrived {
                window: Some((sent_id, entries)),
                ..
            }) = slot
            else {
                continue;
            };
            let expected = (self.firsts[p + 1] - self.firsts[p]) as usize;
            if sent_id != id || entries.len() != expected {
                return Err(peer_error("window exchange", format!("process {p} sent {} entries of window {sent_id} for window {id}; expected {expected}", entries.len())));
            }
            let mut route = self.routes.lock().unwrap_or_else(|e| e.into_inner())[p];
            if route == Route::Direct && unmappable(&entries) {
                tracing::warn!(target: "dcuda", "process {}: window {id} of process {p} is not in memory that can be mapped (allocate it with Runtime::alloc); its traffic goes through the host from now on", self.me());
                self.demote(p as u32)?;
                route = Route::Host;
            }
            let mut row = Vec::with_capacity(entries.len());
            for e in entries {
                let mut entry = e.entry;
                entry.route = route as u8;
                if let (Route::Direct, Some((handle, offset))) = (route, e.ipc) {
                    let what = format!("window {id}");
                    entry.base = self.map(p as u32, &handle, (offset, entry.bytes), &what)?;
                }
                if let (Route::Host, Some(at)) = (route, self.symmetric_address(p, id, &e)?) {
                    entry.route = Route::Nvshmem as u8;
                    entry.base = at;
                }
                row.push(entry);
            }
            self.write_entries(id as usize, self.firsts[p], &row)?;
        }
        Ok(())
    }

    /// Sends all traffic to process `p` through the host: its peer entry
    /// and every window entry of it already installed.
    fn demote(&self, p: u32) -> Result<()> {
        self.routes.lock().unwrap_or_else(|e| e.into_inner())[p as usize] = Route::Host;
        let route = self.peers
            + (p as usize * std::mem::size_of::<Peer>() + std::mem::offset_of!(Peer, route)) as u64;
        self.runtime
            .write_device(route, &(Route::Host as u32).to_le_bytes())?;
        let (first, ranks) = (
            self.firsts[p as usize],
            (self.firsts[p as usize + 1] - self.firsts[p as usize]) as usize,
        );
        for id in 0..MAX_WINDOWS {
            let mut row = self.read_entries(id, first, ranks)?;
            for e in &mut row {
                e.route = Route::Host as u8;
            }
            self.write_entries(id, first, &row)?;
        }
        Ok(())
    }
}
