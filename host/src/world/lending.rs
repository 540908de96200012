//! Pinned host memory lent to the transport for the host route's large
//! pieces. The origin's host copies a piece from the GPU straight into it
//! and sends it from there; the target's host receives a piece into it and
//! copies it to the GPU from there. Through heap buffers each side paid a
//! staging copy besides the DMA: a contiguous MiB took 100–145 µs to read
//! and 135–160 µs to write on an H200, where a DMA takes 27
//! (`bench/results/2026-11-29-lent-pieces-h200x2/`).

use crate::backend::{Device, StreamQueue};
use crate::error::{Error, Result};
use crate::transport::Lent;
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

/// Pieces of at least this many bytes go through lent memory; smaller ones
/// are cheaper to copy than to hand over.
pub(super) const LEND_FROM: usize = 64 << 10;
/// Lent regions are made in multiples of this.
const ROUND: usize = 64 << 10;
/// At most this many regions are made; past that, pieces take heap
/// buffers (as many as the pieces in flight of a few streams).
const MOST: usize = 32;

/// Which of the host's threads copies: each has its own stream.
#[derive(Clone, Copy)]
pub(super) enum Side {
    /// The progress thread, reading pieces out of the GPU.
    Out = 0,
    /// The receive thread, writing pieces into it.
    In = 1,
}

/// A region of pinned host memory that the GPU maps.
struct Region {
    host: *mut u8,
    addr: u64,
    bytes: usize,
}

// SAFETY: the memory is owned by the region, used by one holder at a time.
unsafe impl Send for Region {}

/// The world's lent memory: regions made on demand during the run, kept
/// until its end (freeing pinned memory waits for the GPU to be idle,
/// which the running kernel never is).
pub(super) struct Lending {
    device: Arc<dyn Device>,
    spare: Mutex<Vec<Region>>,
    made: AtomicUsize,
    streams: [Mutex<Option<Box<dyn StreamQueue>>>; 2],
    /// Set where the world ended with regions still lent: then none is
    /// freed, since the last may come back during a later run.
    leak: AtomicBool,
    /// Set once pinned memory could not be had.
    cannot_make: AtomicBool,
}

impl Lending {
    pub(super) fn new(device: Arc<dyn Device>) -> Arc<Lending> {
        Arc::new(Lending {
            device,
            spare: Mutex::new(Vec::new()),
            made: AtomicUsize::new(0),
            streams: Default::default(),
            leak: AtomicBool::new(false),
            cannot_make: AtomicBool::new(false),
        })
    }

    /// Memory for a message of `len` bytes with `room` more to append,
    /// or `None` where `len` is short, every region is lent or no pinned
    /// memory can be had (said once, as a warning).
    pub(super) fn take(self: &Arc<Self>, len: usize, room: usize) -> Option<PinnedBuf> {
        if len < LEND_FROM {
            return None;
        }
        let need = len + room;
        let mut spare = self.spare.lock().unwrap_or_else(|e| e.into_inner());
        let best = (0..spare.len())
            .filter(|&i| spare[i].bytes >= need)
            .min_by_key(|&i| spare[i].bytes);
        let region = match best {
            Some(i) => spare.swap_remove(i),
            None => {
                drop(spare);
                if self.cannot_make.load(Ordering::Relaxed) {
                    return None;
                }
                if self.made.fetch_add(1, Ordering::Relaxed) >= MOST {
                    self.made.fetch_sub(1, Ordering::Relaxed);
                    return None;
                }
                let bytes = need.div_ceil(ROUND) * ROUND;
                match self.device.alloc_mapped(bytes) {
                    Ok((host, addr)) => Region { host, addr, bytes },
                    Err(e) => {
                        // The heap path still works, only slower: say so
                        // once, and make no more.
                        self.made.fetch_sub(1, Ordering::Relaxed);
                        if !self.cannot_make.swap(true, Ordering::Relaxed) {
                            tracing::warn!(target: "dcuda", "the host route stages large pieces through heap buffers from now on: {e}");
                        }
                        return None;
                    }
                }
            }
        };
        Some(PinnedBuf {
            region: Some(region),
            len,
            home: self.clone(),
        })
    }

    /// [`take`](Self::take) for a message of exactly `len` bytes, as the
    /// transport asks when it receives.
    pub(super) fn lend(self: &Arc<Self>, len: usize) -> Option<Box<dyn Lent>> {
        self.take(len, 0).map(|b| Box::new(b) as Box<dyn Lent>)
    }

    /// Copies `bytes` between device addresses (device memory or mapped
    /// host memory) on `side`'s stream, and waits for it.
    pub(super) fn copy(&self, side: Side, dst: u64, src: u64, bytes: usize) -> Result<()> {
        let mut stream = self.streams[side as usize]
            .lock()
            .unwrap_or_else(|e| e.into_inner());
        if stream.is_none() {
            *stream = Some(self.device.stream()?);
        }
        let stream = stream.as_ref().expect("made above");
        stream.copy(dst, src, bytes)?;
        stream.synchronize()
    }

    /// Regions lent out now.
    pub(super) fn lent(&self) -> usize {
        let spare = self.spare.lock().unwrap_or_else(|e| e.into_inner()).len();
        self.made.load(Ordering::Relaxed) - spare
    }

    /// Keeps every region for the process's life (see [`Lending::leak`]).
    pub(super) fn leak(&self) {
        self.leak.store(true, Ordering::Relaxed);
    }
}

impl Drop for Lending {
    fn drop(&mut self) {
        if self.leak.load(Ordering::Relaxed) {
            return;
        }
        let spare = self.spare.get_mut().unwrap_or_else(|e| e.into_inner());
        for r in spare.drain(..) {
            self.device.free_mapped(r.host, r.addr, r.bytes);
        }
    }
}

/// One message's lent memory: `len` bytes of a region, given back when
/// dropped.
pub(super) struct PinnedBuf {
    region: Option<Region>,
    len: usize,
    home: Arc<Lending>,
}

impl PinnedBuf {
    fn region(&self) -> &Region {
        self.region.as_ref().expect("held until dropped")
    }

    /// The bytes' address for the GPU's copies.
    pub(super) fn addr(&self) -> u64 {
        self.region().addr
    }

    /// Appends `tail` after the bytes.
    pub(super) fn append(&mut self, tail: &[u8]) -> Result<()> {
        let r = self.region();
        if self.len + tail.len() > r.bytes {
            return Err(Error::OutOfRange {
                call: "appending to a lent buffer",
                range: self.len..self.len + tail.len(),
                len: r.bytes,
            });
        }
        // SAFETY: inside the region (checked above); the region is this
        // buffer's alone.
        unsafe { std::ptr::copy_nonoverlapping(tail.as_ptr(), r.host.add(self.len), tail.len()) };
        self.len += tail.len();
        Ok(())
    }
}

impl Lent for PinnedBuf {
    fn bytes(&self) -> &[u8] {
        // SAFETY: the first `len` bytes of the region, which this buffer
        // holds alone; `len` never passes the region's length.
        unsafe { std::slice::from_raw_parts(self.region().host, self.len) }
    }

    fn bytes_mut(&mut self) -> &mut [u8] {
        // SAFETY: as in `bytes`, borrowed mutably through `self`.
        unsafe { std::slice::from_raw_parts_mut(self.region().host, self.len) }
    }

    fn mapped(&self) -> Option<u64> {
        Some(self.addr())
    }
}

impl Drop for PinnedBuf {
    fn drop(&mut self) {
        if let Some(r) = self.region.take() {
            self.home
                .spare
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .push(r);
        }
    }
}

#[cfg(test)]
mod tests;
