//! The accesses this process's host moves for its ranks: puts staged in
//! pieces, gets asked of the target's host, and their completion.

use super::inbox::Payload;
use super::lending::Side;
use super::message::Message;
use super::setup::peer_error;
use super::World;
use crate::error::Result;
use crate::transport::Lent;
use dcuda_device::abi::{Route, Transfer, MAILBOX_WINDOW, NO_WINDOW, PEER_EAGER};
use std::sync::atomic::{AtomicU32, Ordering};

/// Accesses larger than this are sent in pieces of this size, so that the
/// staging copy of one piece overlaps the network transfer of the last.
pub(crate) const CHUNK: usize = 1 << 20;

/// Pieces of at least this many bytes are traced (`dcuda::route=trace`).
pub(super) const TRACED_FROM: usize = 64 << 10;

/// Microseconds since this process's first trace of a piece (to see the
/// gaps between pieces in `dcuda::route=trace` and `dcuda::laid=trace`).
pub(super) fn since_start() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
        * 1e6
}

/// Traces how long reading a large piece out of the GPU took (`start`:
/// taken for large pieces only).
fn trace_read(start: Option<std::time::Instant>, bytes: usize, lent: bool) {
    if let Some(start) = start {
        let us = start.elapsed().as_secs_f64() * 1e6;
        tracing::trace!(target: "dcuda::route", at_us = since_start(), bytes, lent, read_us = us, "piece read");
    }
}

/// `(start, length, last)` of the pieces a transfer of `bytes` is sent in
/// (one empty piece for none).
pub(super) fn pieces(bytes: u64) -> impl Iterator<Item = (u64, u64, bool)> {
    let chunk = CHUNK as u64;
    let n = bytes.div_ceil(chunk).max(1);
    (0..n).map(move |i| {
        let start = i * chunk;
        (start, (bytes - start).min(chunk), i + 1 == n)
    })
}

/// Room past a piece's data for the message's fields, so that encoding
/// appends them without moving the data.
const FIELDS_ROOM: usize = 128;

/// A buffer for a piece of `bytes` to be staged and sent: one used before
/// where there is one (no allocation, no zeroing, no page faults for each
/// piece), with room for the message's fields. Every byte is overwritten.
pub(super) fn staging(bytes: usize) -> Vec<u8> {
    let mut data = crate::transport::buffers::take(bytes + FIELDS_ROOM);
    data.truncate(bytes);
    data
}

impl World {
    pub(super) fn send_data(&self, to: u32, msg: Vec<u8>) -> Result<()> {
        self.sent[to as usize].fetch_add(1, Ordering::Relaxed);
        self.job.transport.send(to, self.data, msg)
    }

    /// Reads `bytes` at device address `local` and sends them to process
    /// `to` as the payload of `msg`, once `check` accepts them: from lent
    /// memory, which the GPU copies into directly, where the piece is large
    /// and a region is free, else from a heap buffer.
    pub(super) fn send_read(
        &self,
        to: u32,
        local: u64,
        bytes: usize,
        msg: impl FnOnce(Vec<u8>) -> Message<Vec<u8>>,
        check: impl FnOnce(&[u8]) -> Result<()>,
    ) -> Result<()> {
        let start = (bytes >= TRACED_FROM).then(std::time::Instant::now);
        if let Some(mut buf) = self.lending.take(bytes, FIELDS_ROOM) {
            self.lending.copy(Side::Out, buf.addr(), local, bytes)?;
            trace_read(start, bytes, true);
            check(buf.bytes())?;
            // An empty payload's encoding is what follows the payload.
            buf.append(&msg(Vec::new()).encode())?;
            self.sent[to as usize].fetch_add(1, Ordering::Relaxed);
            return self.job.transport.send_lent(to, self.data, Box::new(buf));
        }
        let mut data = staging(bytes);
        if bytes > 0 {
            self.runtime.read_device(local, &mut data)?;
        }
        trace_read(start, bytes, false);
        check(&data)?;
        self.send_data(to, msg(data).encode())
    }

    /// The process of a target world rank named by a local rank's command.
    pub(super) fn target_process(&self, rank: u32, target: u32) -> Result<u32> {
        self.process_of(target).ok_or_else(|| {
            peer_error(
                "command",
                format!(
                    "device rank {rank} addressed world rank {target}, but the world has {} ranks",
                    self.size()
                ),
            )
        })
    }

    /// Marks one more access of device rank `rank` complete.
    pub(super) fn complete(&self, rank: u32) {
        // SAFETY: `host_done` has one counter per rank, for the whole run;
        // the caller checked `rank`.
        unsafe { AtomicU32::from_ptr((self.host_done as *mut u32).add(rank as usize)) }
            .fetch_add(1, Ordering::Release);
    }

    /// A put (or notification, `bytes == 0`) from device rank `rank`:
    /// stages the source in pieces and sends them; the source may be
    /// reused once all are staged. With `inline`, `t.local` holds the data
    /// itself (at most 8 bytes).
    pub fn put(&self, rank: u32, t: &Transfer, tag: Option<u32>, inline: bool) -> Result<()> {
        let to = self.target_process(rank, t.target)?;
        let source = self.first() + rank;
        for (done, piece, last) in pieces(t.bytes) {
            let msg = |data| Message::Put {
                source,
                target: t.target,
                window: t.window,
                offset: t.offset + done,
                tag: if last { tag } else { None },
                data,
            };
            if inline {
                let mut data = staging(piece as usize);
                data.copy_from_slice(&t.local.to_le_bytes()[..piece as usize]);
                self.send_data(to, msg(data).encode())?;
            } else {
                self.send_read(to, t.local + done, piece as usize, msg, |_| Ok(()))?;
            }
        }
        // The leaders' mailbox words are the library's own traffic, which
        // no flush of the rank waits for.
        if t.window != MAILBOX_WINDOW {
            self.complete(rank);
        }
        Ok(())
    }

    /// A notification without data from device rank `rank`.
    pub fn notify(&self, rank: u32, target: u32, tag: u32) -> Result<()> {
        let t = Transfer {
            target,
            window: NO_WINDOW,
            ..Transfer::default()
        };
        self.put(rank, &t, Some(tag), false)
    }

    /// A two-sided message from device rank `rank` (see
    /// [`Request::Send`](dcuda_device::abi::Request::Send)): sent whole to
    /// the target's host; the rank may reuse its buffer once it is read.
    pub fn send_message(&self, rank: u32, t: &Transfer, tag: u32) -> Result<()> {
        let to = self.target_process(rank, t.target)?;
        if t.bytes > PEER_EAGER as u64 && self.route(to) == Route::Direct {
            if let Some(mapped) = self.send_mapped(rank, t, tag, to)? {
                // The sender's buffer is read when the receiver takes it:
                // its send completes with the receiver's `Taken`.
                return self.send_data(to, mapped.encode());
            }
        }
        let mut data = vec![0u8; t.bytes as usize];
        if !data.is_empty() {
            self.runtime.read_device(t.local, &mut data)?;
        }
        let msg = Message::Send {
            target: t.target,
            context: t.window,
            source: t.offset as u32,
            tag,
            data,
        };
        self.send_data(to, msg.encode())?;
        self.complete(rank);
        Ok(())
    }

    /// A long message to a mapped GPU that leaves its payload where it is:
    /// `None` where the sender's buffer cannot be shared (not in device
    /// memory of its own allocation), and the payload travels.
    fn send_mapped(
        &self,
        rank: u32,
        t: &Transfer,
        tag: u32,
        to: u32,
    ) -> Result<Option<Message<Vec<u8>>>> {
        let Some(peers) = self.runtime.device.peers() else {
            return Ok(None);
        };
        let (handle, offset) = match peers.ipc_export(t.local) {
            Ok(h) => h,
            Err(e) => {
                tracing::debug!(target: "dcuda::messages", rank, "a message's buffer cannot be shared with process {to} ({e}): its payload goes through the hosts");
                return Ok(None);
            }
        };
        Ok(Some(Message::SendMapped {
            target: t.target,
            context: t.window,
            source: t.offset as u32,
            tag,
            bytes: t.bytes,
            rank,
            handle,
            offset,
        }))
    }

    /// How this process reaches process `p`.
    fn route(&self, p: u32) -> Route {
        let routes = self.routes.lock().unwrap_or_else(|e| e.into_inner());
        routes.get(p as usize).copied().unwrap_or(Route::Host)
    }

    /// Device rank `rank` receives the payload this host holds as number
    /// `t.offset` into `t.local`: its bytes, or a copy from the mapped GPU
    /// that holds it, whose sender is then told.
    pub fn fetch(&self, rank: u32, t: &Transfer) -> Result<()> {
        let held = self
            .inbox
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take(rank, t.offset);
        let payload = held.filter(|d| match d {
            Payload::Bytes(b) => b.len() as u64 == t.bytes,
            Payload::Mapped(m) => m.bytes == t.bytes,
        });
        match payload {
            Some(Payload::Bytes(data)) => self.runtime.write_device(t.local, &data)?,
            Some(Payload::Mapped(m)) => {
                let range = (m.offset, m.bytes);
                let src = self.map(m.process, &m.handle, range, "a message's payload")?;
                self.runtime.device.copy(t.local, src, t.bytes as usize)?;
                self.send_data(m.process, Message::Taken { rank: m.rank }.encode())?;
                tracing::debug!(target: "dcuda::messages", rank, "copied a message of {} bytes out of process {}'s GPU memory", t.bytes, m.process);
            }
            None => return Err(peer_error("command", format!("device rank {rank} fetched {} bytes of message payload {}, which this host does not hold", t.bytes, t.offset))),
        }
        self.complete(rank);
        Ok(())
    }

    /// Messages from other processes that arrived for this process's
    /// ranks and were not received.
    pub fn unreceived(&self) -> usize {
        self.inbox
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .unreceived()
    }

    /// A get by device rank `rank`: asks the target's host for the data.
    pub fn get(&self, rank: u32, t: &Transfer, tag: Option<u32>) -> Result<()> {
        self.expect_reply(rank, t.local, t.bytes)?;
        let msg = Message::Get {
            source: self.first() + rank,
            target: t.target,
            window: t.window,
            offset: t.offset,
            bytes: t.bytes,
            local: t.local,
            tag,
        };
        self.send_data(self.target_process(rank, t.target)?, msg.encode())
    }
}

impl World {
    /// Records a get of device rank `rank` of `bytes` into `local`, whose
    /// replies may then land there.
    pub(super) fn expect_reply(&self, rank: u32, local: u64, bytes: u64) -> Result<()> {
        let end = local.checked_add(bytes).ok_or_else(|| {
            peer_error(
                "command",
                format!(
                    "device rank {rank} asked for a get of {bytes} bytes into {local:#x}, which wraps around"
                ),
            )
        })?;
        self.gets
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .entry(rank)
            .or_default()
            .push((local, end));
        Ok(())
    }
}

/// The index of the range of `pending` that holds `bytes` at `local`.
fn inside(pending: &[(u64, u64)], local: u64, bytes: u64) -> Option<usize> {
    let end = local.checked_add(bytes)?;
    pending.iter().position(|&(s, e)| local >= s && end <= e)
}

impl World {
    /// Checks a get reply's piece for device rank `rank` against the gets
    /// in flight; `last`: the get is complete and leaves the list.
    pub(super) fn accept_reply(
        &self,
        from: u32,
        rank: u32,
        local: u64,
        bytes: u64,
        last: bool,
    ) -> Result<()> {
        let mut gets = self.gets.lock().unwrap_or_else(|e| e.into_inner());
        let pending = gets.entry(rank).or_default();
        let Some(i) = inside(pending, local, bytes) else {
            return Err(peer_error("receive", format!("process {from} replied with {bytes} bytes for {local:#x} of device rank {rank}, which asked for no such get")));
        };
        if last {
            pending.remove(i);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn replies_land_only_inside_a_get_in_flight() {
        let pending = [(0x1000, 0x1100), (0x2000, 0x2010)];
        assert_eq!(inside(&pending, 0x1000, 0x100), Some(0));
        assert_eq!(inside(&pending, 0x2008, 8), Some(1));
        assert_eq!(inside(&pending, 0x10ff, 2), None, "past the end");
        assert_eq!(inside(&pending, 0xfff, 1), None, "before the start");
        assert_eq!(inside(&pending, u64::MAX, 2), None, "wrapping");
        assert_eq!(inside(&[], 0x1000, 0), None, "no get in flight");
    }

    #[test]
    fn pieces_cover_the_transfer_once() {
        assert_eq!(pieces(0).collect::<Vec<_>>(), vec![(0, 0, true)]);
        assert_eq!(pieces(5).collect::<Vec<_>>(), vec![(0, 5, true)]);
        let c = CHUNK as u64;
        assert_eq!(
            pieces(2 * c + 3).collect::<Vec<_>>(),
            vec![(0, c, false), (c, c, false), (2 * c, 3, true)]
        );
        assert_eq!(pieces(c).collect::<Vec<_>>(), vec![(0, c, true)]);
    }
}
