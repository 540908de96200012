//! Handling one data message from another process: checked against this
//! process's window table, then written, placed, answered or queued for its
//! rank.

use super::inbox::{Letter, MappedPayload, Payload};
use super::lending::Side;
use super::message::Message;
use super::setup::peer_error;
use super::transfer::{pieces, since_start, TRACED_FROM};
use super::World;
use crate::error::Result;
use dcuda_device::abi::NO_WINDOW;

/// Where the GPU maps `part` of a received `message` that it maps at
/// `mapped` (the decoded message's fields borrow from it).
fn mapped_part(mapped: Option<u64>, message: &[u8], part: &[u8]) -> Option<u64> {
    let offset = (part.as_ptr() as usize).checked_sub(message.as_ptr() as usize)?;
    debug_assert!(offset + part.len() <= message.len());
    mapped.map(|at| at + offset as u64)
}

impl World {
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
        // The clock only for traced pieces: this runs for every put.
        let start = (data.len() >= TRACED_FROM).then(std::time::Instant::now);
        match mapped_part(mapped, message, data) {
            Some(from) => self.lending.copy(Side::In, to, from, data.len())?,
            None => self.runtime.write_device(to, data)?,
        }
        if let Some(start) = start {
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
    pub(super) fn deliver(&self, from: u32, bytes: &[u8], mapped: Option<u64>) -> Result<bool> {
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
                let at = mapped_part(mapped, bytes, data);
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
                let letter = Letter {
                    context,
                    source,
                    tag,
                    data: Payload::Bytes(data.to_vec()),
                };
                self.post(from, target, letter)
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
                self.post(from, target, letter)
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

    /// Puts a message from process `from` into the inbox of its target,
    /// world rank `target` (checked to be this process's).
    fn post(&self, from: u32, target: u32, letter: Letter) -> Result<()> {
        let dev = self.local_rank(from, target)?;
        self.activate_remote()?;
        self.inbox
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .push(dev, letter);
        Ok(())
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
