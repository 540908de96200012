//! The receive thread: what other processes send. Data is checked against
//! this process's own window table before it is written; control messages
//! go to the progress thread.

use super::setup::peer_error;
use super::World;
use crate::error::Result;
use crate::transport::Received;
use dcuda_device::abi::{
    counter_index, WindowEntry, MAILBOX_WINDOW, MAILBOX_WORDS, MAX_WINDOWS, STAGE_HALF,
    STAGE_WINDOW, TAGS,
};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Arc;

impl World {
    /// Starts the receive thread.
    pub fn start_receiver(self: &Arc<Self>) -> std::thread::JoinHandle<()> {
        let world = self.clone();
        std::thread::Builder::new()
            .name("dcuda-receive".into())
            .spawn(move || {
                let _serving = crate::run::turn::serving();
                world.receive_loop()
            })
            .expect("cannot start the receive thread")
    }

    /// Stops the receive thread (after the run's last sync).
    pub fn stop(&self) {
        self.stop.store(true, Ordering::Release);
    }

    fn receive_loop(&self) {
        let mut idle = 0u32;
        let mut spins = 0u32;
        let tx = self
            .control_tx
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let transport = &self.job.transport;
        // Senders of messages delivered but not yet counted as received:
        // typed pieces whose placements still run. A sync counts a message
        // once its data is in place, so they count when those finish.
        let mut uncounted: Vec<u32> = Vec::new();
        while !self.stop.load(Ordering::Acquire) {
            let mut busy = false;
            // Eight data messages in a row before the loop's other calls
            // were no faster (2026-11-29): one a turn.
            match self.take_data(&mut uncounted) {
                Ok(took) => busy = took,
                Err(e) => self.fail(self.me(), e.reason()),
            }
            if !uncounted.is_empty() && !self.placements_running() {
                for from in uncounted.drain(..) {
                    if let Some(r) = self.received.get(from as usize) {
                        r.fetch_add(1, Ordering::Release);
                    }
                }
            }
            // Messages wait here until their ranks have room.
            self.inbox
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .publish_all();
            match transport.try_recv(self.control) {
                Ok(Some(m)) => {
                    busy = true;
                    let _ = tx.send(m);
                }
                Ok(None) => {}
                Err(e) => self.fail(self.me(), e.reason()),
            }
            if let Err(e) = transport.progress() {
                self.fail(self.me(), e.reason());
            }
            spins = spins.wrapping_add(1);
            if spins.is_multiple_of(256) {
                // Every process takes part in a run: one that left ends it.
                for p in self.others() {
                    let left = crate::transport::departure::check_run(&**transport, p, self.run);
                    if let Err(crate::error::Error::PeerFailed { message, .. }) = left {
                        self.fail(p, message);
                    }
                }
            }
            idle = if busy { 0 } else { idle.saturating_add(1) };
            if idle > 10_000 {
                std::thread::yield_now();
            }
        }
    }

    /// Receives and delivers a data message, if one has arrived; with
    /// none, lets the placements of the pieces in `uncounted` end.
    fn take_data(&self, uncounted: &mut Vec<u32>) -> Result<bool> {
        let lend = &mut |len| self.lending.lend(len);
        let Some((from, msg)) = self.job.transport.try_recv_lent(self.data, lend)? else {
            // Pieces wait to be counted exactly while placements run, so
            // an idle loop with none takes no lock.
            if !uncounted.is_empty() {
                self.drain_placements()?;
            }
            return Ok(false);
        };
        uncounted.push(from);
        let start = (msg.len() >= super::transfer::TRACED_FROM).then(std::time::Instant::now);
        let delivered = self.deliver(from, &msg, msg.mapped());
        if let Some(start) = start {
            let us = start.elapsed().as_secs_f64() * 1e6;
            tracing::trace!(target: "dcuda::route", bytes = msg.len(), deliver_us = us, "delivered");
        }
        match delivered {
            Ok(true) => self.hold_until_placed(msg)?,
            Ok(false) => {
                // What was delivered has been copied out.
                if let Received::Owned(v) = msg {
                    crate::transport::buffers::give(v);
                }
            }
            Err(e) => {
                // Copies queued before the failure may still read it.
                let _ = self.drain_placements();
                return Err(e);
            }
        }
        Ok(true)
    }

    /// The device rank of world rank `target`, if it is one of this
    /// process's.
    pub(super) fn local_rank(&self, from: u32, target: u32) -> Result<u32> {
        target
            .checked_sub(self.first())
            .filter(|&dev| dev < self.ranks())
            .ok_or_else(|| {
                peer_error(
                    "receive",
                    format!("process {from} sent an access for world rank {target}, which is not on process {}", self.me()),
                )
            })
    }

    /// The device rank on process `from` of world rank `source`, which
    /// asked for a get.
    pub(super) fn requester(&self, from: u32, source: u32) -> Result<u32> {
        source
            .checked_sub(self.firsts[from as usize])
            .ok_or_else(|| peer_error("receive", format!("process {from} asked for a get on behalf of world rank {source}, not one of its ranks")))
    }

    /// The window entry of local world rank `target` for an access of
    /// `bytes` at `offset`, checked.
    pub(super) fn checked_entry(
        &self,
        source: u32,
        target: u32,
        window: u32,
        offset: u64,
        bytes: u64,
    ) -> Result<WindowEntry> {
        let dev = (target - self.first()) as usize;
        let entry = if window == MAILBOX_WINDOW {
            // The library's own: every rank's mailbox, for the whole run.
            let bytes = (MAILBOX_WORDS * 8) as u64;
            WindowEntry {
                base: self.mailboxes + dev as u64 * bytes,
                bytes,
                live: 1,
                ..WindowEntry::default()
            }
        } else if window == STAGE_WINDOW {
            // The library's own: every rank's staging area, for the run.
            let bytes = (2 * STAGE_HALF) as u64;
            WindowEntry {
                base: self.stages + dev as u64 * bytes,
                bytes,
                live: 1,
                ..WindowEntry::default()
            }
        } else if (window as usize) < MAX_WINDOWS {
            let mirror = self.mirror.lock().unwrap_or_else(|e| e.into_inner());
            mirror[window as usize * self.ranks() as usize + dev]
        } else {
            WindowEntry::default()
        };
        if entry.live == 0 {
            return Err(peer_error("remote access", format!("rank {source} accessed window {window} of rank {target}, which is not live there")));
        }
        if offset
            .checked_add(bytes)
            .is_none_or(|end| end > entry.bytes)
        {
            return Err(peer_error("remote access", format!("rank {source} accessed bytes {offset}..{} of window {window} of rank {target}, which has {} bytes", offset.saturating_add(bytes), entry.bytes)));
        }
        Ok(entry)
    }

    /// Before the first notification or message from another process:
    /// the ranks start reading their remote counters and inboxes, which
    /// live in host memory, so that runs without any skip those reads.
    pub(super) fn activate_remote(&self) -> Result<()> {
        if !self.remote_seen.swap(true, Ordering::Relaxed) {
            self.runtime
                .write_device(self.remote_active, &1u32.to_le_bytes())?;
        }
        Ok(())
    }

    /// Counts notification `tag` for local world rank `target`.
    pub(super) fn notify_local(&self, target: u32, tag: Option<u32>) -> Result<()> {
        let Some(tag) = tag else {
            return Ok(());
        };
        if tag >= TAGS {
            return Err(peer_error(
                "receive",
                format!("a notification with tag {tag}, out of range"),
            ));
        }
        self.activate_remote()?;
        let at = counter_index(target - self.first(), tag);
        // SAFETY: the remote counters have `[ranks][TAGS]` entries, for the
        // run, and `target` is one of this process's ranks.
        unsafe { AtomicU32::from_ptr((self.remote_counters as *mut u32).add(at)) }
            .fetch_add(1, Ordering::Release);
        Ok(())
    }
}
