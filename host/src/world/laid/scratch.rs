//! The target host's scratch for typed pieces, the placements still
//! running from it, and the clock of their traces.

use super::SCRATCH;
use crate::backend::{Device, StreamQueue};
use crate::error::Result;
use crate::transport::Received;
use crate::world::World;

/// The target's scratch: two halves of [`SCRATCH`] bytes of pinned host
/// memory that the GPU maps. The host copies a piece's data into one half
/// and queues its placement from there on the scratch's stream (one DMA
/// a byte; through device memory it took a copy from pageable memory
/// besides, 18 µs of a 64 KiB piece's 30 on an H200), then receives the
/// next piece into the other half while the copy runs. A gathered piece
/// goes out the same way, waited for.
pub(in crate::world) struct Scratch {
    host: *mut u8,
    /// Its address for the GPU's copies.
    addr: u64,
    /// Where placements are queued.
    stream: Box<dyn StreamQueue>,
    /// The half the next piece goes to.
    next: usize,
    /// Whether a placement from each half, and from lent memory, may still
    /// be running.
    queued: [bool; 3],
    /// Received messages in lent memory that queued placements read.
    held: Vec<Received>,
}

/// At most this many received pieces are held for their placements (lent
/// memory is a bounded pool); past that, the placements are waited for.
const HOLD: usize = 4;

// SAFETY: the memory and the stream are the world's, used under its mutex.
unsafe impl Send for Scratch {}

impl Scratch {
    /// The next piece's half, once no placement from it runs.
    pub(super) fn take_half(&mut self) -> Result<usize> {
        let h = self.next;
        if self.queued[h] {
            // The stream is in order: this waits for the other half's
            // placement too, which by then has mostly finished (a mark
            // for each half measured no faster, 2026-11-29).
            self.drain()?;
        }
        self.next = 1 - h;
        Ok(h)
    }

    /// Half `h`'s bytes.
    pub(super) fn bytes(&mut self, h: usize) -> &mut [u8] {
        // SAFETY: half `h` (0 or 1) of the `2 * SCRATCH` bytes from
        // `alloc_mapped`, borrowed mutably through the world's mutex; the
        // callers take it when no copy into or out of it runs.
        unsafe { std::slice::from_raw_parts_mut(self.host.add(h % 2 * SCRATCH), SCRATCH) }
    }

    /// Half `h`'s address for the GPU's copies.
    pub(super) fn addr(&self, h: usize) -> u64 {
        self.addr + (h % 2 * SCRATCH) as u64
    }

    /// Marks half `h` (`None`: lent memory) as the source of placements
    /// queued on [`stream`](Self::stream).
    pub(super) fn mark_queued(&mut self, h: Option<usize>) {
        self.queued[h.map_or(2, |h| h % 2)] = true;
    }

    /// Whether another received piece may be held without waiting for
    /// the placements.
    pub(super) fn may_hold(&self) -> bool {
        self.held.len() < HOLD
    }

    /// Keeps `message` until the placements queued so far have finished.
    pub(super) fn hold(&mut self, message: Received) {
        if self.queued == [false; 3] {
            return; // Already finished: `message` goes back now.
        }
        self.held.push(message);
    }

    /// Whether placements may still be running.
    pub(in crate::world) fn running(&self) -> bool {
        self.queued != [false; 3]
    }

    /// The stream placements are queued on.
    pub(super) fn stream(&self) -> &dyn StreamQueue {
        &*self.stream
    }

    /// Waits until every queued placement has finished.
    pub(super) fn drain(&mut self) -> Result<()> {
        if self.running() {
            self.queued = [false; 3];
            self.stream.synchronize()?;
        }
        // Back to the pool, once nothing reads them.
        self.held.clear();
        Ok(())
    }

    /// Frees it on `device`, once its placements are done.
    pub(in crate::world) fn free(mut self, device: &dyn Device) {
        let _ = self.drain();
        device.free_mapped(self.host, self.addr, 2 * SCRATCH);
    }
}

impl World {
    /// Runs `f` with the receive thread's scratch, made on first use.
    pub(super) fn with_scratch<R>(&self, f: impl FnOnce(&mut Scratch) -> Result<R>) -> Result<R> {
        let mut scratch = self.laid_scratch.lock().unwrap_or_else(|e| e.into_inner());
        if scratch.is_none() {
            let device = &self.runtime.device;
            let stream = device.stream()?;
            let (host, addr) = device.alloc_mapped(2 * SCRATCH)?;
            *scratch = Some(Scratch {
                host,
                addr,
                stream,
                next: 0,
                queued: [false; 3],
                held: Vec::new(),
            });
        }
        f(scratch.as_mut().expect("made above"))
    }

    /// Whether placements of typed pieces may still be running.
    pub(in crate::world) fn placements_running(&self) -> bool {
        let scratch = self.laid_scratch.lock().unwrap_or_else(|e| e.into_inner());
        scratch.as_ref().is_some_and(|s| s.running())
    }

    /// Waits for the typed pieces' placements still running: before any
    /// message but an unnotified piece is handled, so that nothing a later
    /// message does (a write, a notification, a read) overtakes them.
    pub(in crate::world) fn drain_placements(&self) -> Result<()> {
        let mut scratch = self.laid_scratch.lock().unwrap_or_else(|e| e.into_inner());
        match scratch.as_mut() {
            Some(s) => s.drain(),
            None => Ok(()),
        }
    }
}
