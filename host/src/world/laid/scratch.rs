//! The target host's scratch for typed pieces, and the clock of their
//! traces.

use super::SCRATCH;
use crate::error::Result;
use crate::world::World;

/// The target's scratch: [`SCRATCH`] bytes of pinned host memory that
/// the GPU maps. The host copies a piece's data in and the GPU's copies
/// place it from there (one DMA a byte; through device memory it took a
/// copy from pageable memory besides, 18 µs of a 64 KiB piece's 30 on an
/// H200); a gathered piece goes out the same way.
pub(in crate::world) struct Scratch {
    host: *mut u8,
    /// Its address for the GPU's copies.
    pub(super) addr: u64,
}

// SAFETY: the memory is the world's, used under its mutex.
unsafe impl Send for Scratch {}

impl Scratch {
    pub(super) fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: SCRATCH bytes from `alloc_mapped`, borrowed mutably
        // through the world's mutex; GPU copies into it are waited for
        // before the host reads it.
        unsafe { std::slice::from_raw_parts_mut(self.host, SCRATCH) }
    }

    /// Frees it on `device`.
    pub(in crate::world) fn free(self, device: &dyn crate::backend::Device) {
        device.free_mapped(self.host, self.addr, SCRATCH);
    }
}

impl World {
    /// Runs `f` with the receive thread's scratch, made on first use.
    pub(super) fn with_scratch<R>(&self, f: impl FnOnce(&mut Scratch) -> Result<R>) -> Result<R> {
        let mut scratch = self.laid_scratch.lock().unwrap_or_else(|e| e.into_inner());
        if scratch.is_none() {
            let (host, addr) = self.runtime.device.alloc_mapped(SCRATCH)?;
            *scratch = Some(Scratch { host, addr });
        }
        f(scratch.as_mut().expect("made above"))
    }
}

/// Microseconds since this process's first trace of a piece (to see the
/// gaps between pieces in `dcuda::laid=trace`).
pub(super) fn since_start() -> f64 {
    static START: std::sync::OnceLock<std::time::Instant> = std::sync::OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
        * 1e6
}
