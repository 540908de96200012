//! The receive thread: what other processes send. Data is checked against
//! this process's own window table before it is written; control messages
//! go to the progress thread.

use super::inbox::{Letter, MappedPayload, Payload};
use super::laid::since_start;
use super::lending::Side;
use super::message::Message;
use super::setup::peer_error;
use super::transfer::{pieces, TRACED_FROM};
use super::World;
use crate::error::Result;
use crate::transport::Received;
use dcuda_device::abi::{
    counter_index, WindowEntry, MAILBOX_WINDOW, MAILBOX_WORDS, MAX_WINDOWS, NO_WINDOW, STAGE_HALF,
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
            match transport.try_recv_lent(self.data, &mut |len| self.lending.lend(len)) {
                Ok(Some((from, msg))) => {
                    busy = true;
                    match self.deliver(from, &msg, msg.mapped()) {
                        Ok(true) => {
                            if let Err(e) = self.hold_until_placed(msg) {
                                self.fail(self.me(), e.reason());
                            }
                        }
                        // What was delivered has been copied out.
                        done => {
                            if let Err(e) = done {
                                self.fail(self.me(), e.reason());
                                // Copies queued before the failure may
                                // still read the message.
                                let _ = self.drain_placements();
                            }
                            if let Received::Owned(v) = msg {
                                crate::transport::buffers::give(v);
                            }
                        }
                    }
                    uncounted.push(from);
                }
                // Nothing to receive beside the placements: let them end.
                // Pieces wait to be counted exactly while placements run,
                // so an idle loop with none takes no lock.
                Ok(None) if !uncounted.is_empty() => {
                    if let Err(e) = self.drain_placements() {
                        self.fail(self.me(), e.reason());
                    }
                }
                Ok(None) => {}
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

    /// The device rank of world rank `target`, if it is one of this
    /// process's.
    fn local_rank(&self, from: u32, target: u32) -> Result<u32> {
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
    fn requester(&self, from: u32, source: u32) -> Result<u32> {
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
    fn activate_remote(&self) -> Result<()> {
        if !self.remote_seen.swap(true, Ordering::Relaxed) {
            self.runtime
                .write_device(self.remote_active, &1u32.to_le_bytes())?;
        }
        Ok(())
    }

    /// Counts notification `tag` for local world rank `target`.
    fn notify_local(&self, target: u32, tag: Option<u32>) -> Result<()> {
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

    /// Writes `data`, part of a received message, to device address `to`:
    /// by one DMA where the message lies in lent memory the GPU maps at
    /// `mapped`.
    fn write_received(
        &self,
        to: u64,
        data: &[u8],
        message: &[u8],
        mapped: Option<u64>,
    ) -> Result<()> {
        let start = std::time::Instant::now();
        match mapped {
            Some(at) => {
                let from = at + (data.as_ptr() as u64 - message.as_ptr() as u64);
                self.lending.copy(Side::In, to, from, data.len())?;
            }
            None => self.runtime.write_device(to, data)?,
        }
        if data.len() >= TRACED_FROM {
            let us = start.elapsed().as_secs_f64() * 1e6;
            let lent = mapped.is_some();
            tracing::trace!(target: "dcuda::route", at_us = since_start(), bytes = data.len(), lent, write_us = us, "piece written");
        }
        Ok(())
    }

    /// Handles a message from process `from`; `mapped`: where the GPU maps
    /// it, if it was received into lent memory.
    /// Returns whether copies queued from the message's memory still read
    /// it (then it must be held until they finish).
    fn deliver(&self, from: u32, bytes: &[u8], mapped: Option<u64>) -> Result<bool> {
        let message = Message::decode(bytes)?;
        if !matches!(message, Message::PutLaid { tag: None, .. }) {
            self.drain_placements()?;
        }
        let mut reading = false;
        let done = match message {
            Message::Put {
                source,
                target,
                window,
                offset,
                tag,
                data,
            } => {
                self.local_rank(from, target)?;
                if window != NO_WINDOW {
                    let e =
                        self.checked_entry(source, target, window, offset, data.len() as u64)?;
                    if !data.is_empty() {
                        self.write_received(e.base + offset, data, bytes, mapped)?;
                    }
                }
                self.notify_local(target, tag)
            }
            Message::Get {
                source,
                target,
                window,
                offset,
                bytes,
                local,
                tag,
            } => {
                self.local_rank(from, target)?;
                let e = self.checked_entry(source, target, window, offset, bytes)?;
                let requester = self.requester(from, source)?;
                for (done, piece, last) in pieces(bytes) {
                    let reply = |data| Message::GetReply {
                        rank: requester,
                        local: local + done,
                        last,
                        data,
                    };
                    let at = e.base + offset + done;
                    self.send_read(from, at, piece as usize, reply, |_| Ok(()))?;
                }
                self.notify_local(target, tag)
            }
            Message::PutLaid {
                source,
                target,
                window,
                offset,
                tag,
                data,
            } => {
                self.local_rank(from, target)?;
                let place = (source, target, window, offset);
                let at = mapped.map(|m| m + (data.as_ptr() as u64 - bytes.as_ptr() as u64));
                reading = self.place(from, place, data, tag.is_some(), at)?;
                self.notify_local(target, tag)
            }
            Message::GetLaid {
                source,
                target,
                window,
                offset,
                bytes,
                local,
                tag,
                header,
            } => {
                self.local_rank(from, target)?;
                let requester = self.requester(from, source)?;
                let place = (source, target, window, offset);
                let data = self.gather(from, place, header, bytes)?;
                let reply = Message::GetReply {
                    rank: requester,
                    local,
                    last: true,
                    data,
                };
                self.send_data(from, reply.encode())?;
                self.notify_local(target, tag)
            }
            Message::GetReply {
                rank,
                local,
                last,
                data,
            } => {
                if rank >= self.ranks() {
                    return Err(peer_error(
                        "receive",
                        format!(
                            "process {from} replied to device rank {rank}, which does not exist"
                        ),
                    ));
                }
                self.accept_reply(from, rank, local, data.len() as u64, last)?;
                if !data.is_empty() {
                    self.write_received(local, data, bytes, mapped)?;
                }
                if last {
                    self.complete(rank);
                }
                Ok(())
            }
            Message::Send {
                target,
                context,
                source,
                tag,
                data,
            } => {
                let dev = self.local_rank(from, target)?;
                self.activate_remote()?;
                let letter = Letter {
                    context,
                    source,
                    tag,
                    data: Payload::Bytes(data.to_vec()),
                };
                self.inbox
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(dev, letter);
                Ok(())
            }
            Message::SendMapped {
                target,
                context,
                source,
                tag,
                bytes,
                rank,
                handle,
                offset,
            } => {
                let dev = self.local_rank(from, target)?;
                self.activate_remote()?;
                let mapped = MappedPayload {
                    process: from,
                    rank,
                    handle,
                    offset,
                    bytes,
                };
                let letter = Letter {
                    context,
                    source,
                    tag,
                    data: Payload::Mapped(mapped),
                };
                self.inbox
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push(dev, letter);
                Ok(())
            }
            Message::Taken { rank } => {
                if rank >= self.ranks() {
                    let what = format!("process {from} answered a mapped message of device rank {rank}, but this process has {} ranks", self.ranks());
                    return Err(peer_error("receive", what));
                }
                self.complete(rank);
                Ok(())
            }
            other => Err(peer_error(
                "receive",
                format!(
                    "process {from} sent a control message on the data channel: {:?}",
                    kind(&other)
                ),
            )),
        };
        done.map(|()| reading)
    }
}

fn kind<D>(m: &Message<D>) -> &'static str {
    match m {
        Message::Put { .. } => "put",
        Message::Get { .. } => "get",
        Message::PutLaid { .. } => "put in a layout",
        Message::GetLaid { .. } => "get in a layout",
        Message::GetReply { .. } => "get reply",
        Message::Send { .. } => "message",
        Message::SendMapped { .. } => "mapped message",
        Message::Taken { .. } => "mapped message taken",
        Message::Setup(_) => "setup",
        Message::Sync { .. } => "sync",
        Message::CommSync { .. } => "communicator sync",
        Message::Abort(_) => "abort",
    }
}
