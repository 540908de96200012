//! A GPU whose memory comes from NVSHMEM's symmetric heap: the GPU backend
//! for everything, except that allocations are parts of the heap (so that
//! any window or counter array of the process can be reached through
//! NVSHMEM) and that every module is set up for NVSHMEM when loaded.

use super::heap::Parts;
use super::library::Nvshmem;
use super::Symmetric;
use crate::backend::gpu::GpuDevice;
use crate::backend::{Body, Device, LoadedModule, PeerAccess, Running, Shape, StreamQueue};
use crate::error::{Error, Result};
use crate::module::{LoadOptions, Ptx};
use crate::runtime::DeviceInfo;
use std::ffi::c_void;
use std::sync::{Arc, Mutex};

/// The GPU, the library and the heap.
pub(crate) struct SymmetricDevice {
    gpu: GpuDevice,
    lib: Arc<Nvshmem>,
    base: u64,
    pe: u32,
    parts: Mutex<Parts>,
}

impl SymmetricDevice {
    /// Takes a heap of `bytes` (collective: every process of the job, the
    /// same size) for `gpu`'s allocations.
    pub fn new(gpu: GpuDevice, lib: Nvshmem, pe: u32, bytes: u64) -> Result<SymmetricDevice> {
        gpu.bind()?;
        let base = lib.malloc(bytes as usize)?;
        Ok(SymmetricDevice {
            gpu,
            lib: Arc::new(lib),
            base,
            pe,
            parts: Mutex::new(Parts::new(bytes)),
        })
    }
}

impl Drop for SymmetricDevice {
    /// Ends NVSHMEM before the GPU's context goes: a process leaving its
    /// program normally meets the others in `nvshmemx_hostlib_finalize`
    /// (collective). After a failure the job is being torn down, and a
    /// finalize would wait for processes that left: it is skipped.
    fn drop(&mut self) {
        if crate::transport::departure::failure().is_none() && self.gpu.bind().is_ok() {
            self.lib.finalize();
        }
    }
}

impl Device for SymmetricDevice {
    fn info(&self) -> DeviceInfo {
        self.gpu.info()
    }

    fn alloc(&self, bytes: usize) -> Result<u64> {
        let mut parts = self.parts.lock().unwrap_or_else(|e| e.into_inner());
        let Some(offset) = parts.take(bytes as u64) else {
            return Err(Error::Alloc {
                call: "nvshmem heap",
                bytes,
                reason: format!(
                    "NVSHMEM's symmetric heap of this process has {} of {} bytes in use; raise DCUDA_NVSHMEM_HEAP_MIB (and NVSHMEM_SYMMETRIC_SIZE above it)",
                    parts.in_use(),
                    parts.len()
                ),
            });
        };
        drop(parts);
        let addr = self.base + offset;
        self.gpu.zero(addr, bytes.max(1))?;
        Ok(addr)
    }

    fn free(&self, addr: u64, _bytes: usize) {
        let mut parts = self.parts.lock().unwrap_or_else(|e| e.into_inner());
        parts.give_back(addr.wrapping_sub(self.base));
    }

    fn alloc_mapped(&self, bytes: usize) -> Result<(*mut u8, u64)> {
        self.gpu.alloc_mapped(bytes)
    }

    fn free_mapped(&self, host: *mut u8, addr: u64, bytes: usize) {
        self.gpu.free_mapped(host, addr, bytes)
    }

    fn write(&self, addr: u64, src: &[u8]) -> Result<()> {
        self.gpu.write(addr, src)
    }

    fn read(&self, addr: u64, dst: &mut [u8]) -> Result<()> {
        self.gpu.read(addr, dst)
    }

    fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        self.gpu.copy(dst, src, bytes)
    }

    fn copy_2d(
        &self,
        dst: u64,
        dst_pitch: usize,
        src: u64,
        src_pitch: usize,
        width: usize,
        rows: usize,
    ) -> Result<()> {
        self.gpu
            .copy_2d(dst, dst_pitch, src, src_pitch, width, rows)
    }

    fn read_2d(&self, src: u64, pitch: usize, width: usize, dst: &mut [u8]) -> Result<()> {
        self.gpu.read_2d(src, pitch, width, dst)
    }

    fn write_2d(&self, dst: u64, pitch: usize, width: usize, src: &[u8]) -> Result<()> {
        self.gpu.write_2d(dst, pitch, width, src)
    }

    fn raise_flag(&self, addr: u64) -> Result<()> {
        self.gpu.raise_flag(addr)
    }

    fn synchronize(&self) -> Result<()> {
        self.gpu.synchronize()
    }

    fn load(&self, ptx: &Ptx, options: &LoadOptions) -> Result<(u32, bool, Box<dyn LoadedModule>)> {
        let (arch, sass, module) = self.gpu.load(ptx, options)?;
        let raw = module.raw_module().unwrap_or(0);
        self.gpu.bind()?;
        self.lib.module_init(raw).map_err(|e| Error::Nvshmem {
            call: "nvshmemx_cumodule_init",
            reason: format!("module {} ({e}): under DCUDA_TRANSPORT=nvshmem every module must be built with DCUDA_NVSHMEM_BC set to NVSHMEM's libnvshmem_device.bc", ptx.name()),
        })?;
        let module = SymmetricModule {
            inner: module,
            lib: self.lib.clone(),
            raw,
        };
        Ok((arch, sass, Box::new(module)))
    }

    fn peers(&self) -> Option<&dyn PeerAccess> {
        self.gpu.peers()
    }

    fn stream(&self) -> Result<Box<dyn StreamQueue>> {
        self.gpu.stream()
    }

    fn symmetric(&self) -> Option<Symmetric> {
        let parts = self.parts.lock().unwrap_or_else(|e| e.into_inner());
        Some(Symmetric {
            base: self.base,
            len: parts.len(),
            pe: self.pe,
        })
    }
}

/// A module set up for NVSHMEM, finalised before it is unloaded.
struct SymmetricModule {
    inner: Box<dyn LoadedModule>,
    lib: Arc<Nvshmem>,
    raw: u64,
}

impl Drop for SymmetricModule {
    fn drop(&mut self) {
        self.lib.module_finalize(self.raw);
    }
}

impl LoadedModule for SymmetricModule {
    fn max_blocks(&self, kernel: &str, threads: u32, shared_bytes: u32) -> Result<u32> {
        self.inner.max_blocks(kernel, threads, shared_bytes)
    }

    fn max_ranks(&self, kernel: &str, threads: u32) -> Result<u32> {
        self.inner.max_ranks(kernel, threads)
    }

    fn fit_hint(&self, kernel: &str, threads: u32) -> Option<String> {
        self.inner.fit_hint(kernel, threads)
    }

    fn raw_module(&self) -> Option<u64> {
        Some(self.raw)
    }

    unsafe fn launch(
        &self,
        kernel: &str,
        shape: Shape,
        params: &mut [*mut c_void],
        body: Body,
    ) -> Result<Box<dyn Running>> {
        self.inner.launch(kernel, shape, params, body)
    }
}
