//! Large copies between device memory and pageable host memory through
//! pinned buffers. The driver copies pageable memory through its own
//! staging at a fraction of the link's speed (a MiB took 134 µs into
//! pageable memory against 27 µs into pinned memory on an H200,
//! `bench/results/2026-11-28-host-route-h200x2`), so a long copy goes in
//! chunks through the two halves of a pinned buffer: the DMA of one chunk
//! runs while the host copies the last one out (or the next one in).

use super::{check, GpuDevice};
use crate::error::Result;
use cudarc::driver::sys;
use std::ffi::c_void;
use std::sync::Mutex;

/// Copies of at least this many bytes take a bounce (a 64 KiB copy took
/// 20 µs into pageable memory, 9 + 2 µs through pinned memory).
pub(super) const BOUNCE_FROM: usize = 32 << 10;
/// Bytes of one half of a bounce.
const CHUNK: usize = 256 << 10;
/// At most this many bounces are kept (one for each host thread that
/// copies at a time).
const KEEP: usize = 4;

/// Two halves of `CHUNK` bytes of pinned host memory.
struct Bounce(*mut u8);

// SAFETY: the buffer is only touched by the thread that took it from the pool.
unsafe impl Send for Bounce {}

impl Bounce {
    fn half(&self, i: usize) -> *mut u8 {
        // SAFETY: two halves of CHUNK bytes.
        unsafe { self.0.add((i % 2) * CHUNK) }
    }
}

/// The bounces not in use, freed with the device.
#[derive(Default)]
pub(super) struct Bounces(Mutex<Vec<Bounce>>);

impl GpuDevice {
    fn take_bounce(&self) -> Result<Bounce> {
        let spare = self
            .bounces
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .pop();
        if let Some(b) = spare {
            return Ok(b);
        }
        let mut p: *mut c_void = std::ptr::null_mut();
        // SAFETY: allocates pinned memory in the bound context.
        check("cuMemHostAlloc", unsafe {
            sys::cuMemHostAlloc(&mut p, 2 * CHUNK, 0)
        })?;
        Ok(Bounce(p as *mut u8))
    }

    fn give_bounce(&self, b: Bounce) {
        let mut spare = self.bounces.0.lock().unwrap_or_else(|e| e.into_inner());
        if spare.len() < KEEP {
            spare.push(b);
        } else {
            drop(spare);
            // SAFETY: from cuMemHostAlloc, not used any more.
            let _ = unsafe { sys::cuMemFreeHost(b.0 as *mut c_void) };
        }
    }

    /// Frees the spare bounces (the context is bound).
    pub(super) fn free_bounces(&self) {
        for b in self
            .bounces
            .0
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .drain(..)
        {
            // SAFETY: from cuMemHostAlloc, not used any more.
            let _ = unsafe { sys::cuMemFreeHost(b.0 as *mut c_void) };
        }
    }

    /// Reads `dst.len()` bytes at device address `addr` through a bounce
    /// (the context is bound): the DMA of chunk `i + 1` runs while the
    /// host copies chunk `i` out.
    pub(super) fn read_bounced(&self, addr: u64, dst: &mut [u8]) -> Result<()> {
        let b = self.take_bounce()?;
        let (total, n) = (dst.len(), dst.len().div_ceil(CHUNK));
        let fetch = |i: usize| {
            let len = (total - i * CHUNK).min(CHUNK);
            let from = addr + (i * CHUNK) as u64;
            // SAFETY: a device range inside the caller's; a half holds CHUNK bytes.
            check("cuMemcpyDtoHAsync", unsafe {
                sys::cuMemcpyDtoHAsync_v2(b.half(i) as *mut c_void, from, len, self.copy_stream)
            })
        };
        let done = (|| {
            fetch(0)?;
            for (i, chunk) in dst.chunks_mut(CHUNK).enumerate() {
                self.wait_copies()?;
                if i + 1 < n {
                    fetch(i + 1)?;
                }
                // SAFETY: the half holds this chunk, fetched and waited for.
                unsafe {
                    std::ptr::copy_nonoverlapping(b.half(i), chunk.as_mut_ptr(), chunk.len())
                };
            }
            Ok(())
        })();
        self.settle(b, done)
    }

    /// Writes `src` to device address `addr` through a bounce (the
    /// context is bound) and waits: the host copies chunk `i` in while
    /// the DMA of chunk `i - 1` runs.
    pub(super) fn write_bounced(&self, addr: u64, src: &[u8]) -> Result<()> {
        let b = self.take_bounce()?;
        let stream = self.copy_stream;
        let done = (|| {
            for (i, chunk) in src.chunks(CHUNK).enumerate() {
                // SAFETY: the half is free: its last DMA (chunk i - 2) was
                // waited for before chunk i - 1 was sent.
                unsafe { std::ptr::copy_nonoverlapping(chunk.as_ptr(), b.half(i), chunk.len()) };
                self.wait_copies()?;
                let to = addr + (i * CHUNK) as u64;
                // SAFETY: a device range inside the caller's; the half holds the chunk.
                check("cuMemcpyHtoDAsync", unsafe {
                    sys::cuMemcpyHtoDAsync_v2(to, b.half(i) as *const c_void, chunk.len(), stream)
                })?;
            }
            self.wait_copies()
        })();
        self.settle(b, done)
    }

    /// Gives `b` back once no copy of `done`'s call can still touch it:
    /// after a failure one may be in flight, so the stream is waited for
    /// first, and a bounce that cannot be waited for is never used again.
    fn settle(&self, b: Bounce, done: Result<()>) -> Result<()> {
        if done.is_ok() || self.wait_copies().is_ok() {
            self.give_bounce(b);
        }
        done
    }

    fn wait_copies(&self) -> Result<()> {
        // SAFETY: the device's own stream.
        check("cuStreamSynchronize", unsafe {
            sys::cuStreamSynchronize(self.copy_stream)
        })
    }
}
