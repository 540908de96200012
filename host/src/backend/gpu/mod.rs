//! The GPU backend: the CUDA driver API through cudarc, with `libcuda`
//! loaded at run time so that one binary also runs where there is none.

mod bounce;
mod copies;
mod ipc;
mod module;
mod stream;

use super::{Device, Extent3, LoadedModule, PeerAccess, Planes, StreamQueue};
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::module::{LoadOptions, Ptx};
use crate::runtime::DeviceInfo;
use copies::{copy_2d_desc, Side};
use cudarc::driver::{result, sys};
use std::ffi::c_void;
use std::sync::Arc;

pub(crate) fn check(call: &'static str, r: sys::CUresult) -> Result<()> {
    r.result().map_err(|e| Error::cuda(call, e))
}

/// One GPU's primary context, shared by the device, its modules and their
/// launches; released when the last of them goes.
pub(crate) struct GpuContext {
    device: sys::CUdevice,
    context: sys::CUcontext,
    multiprocessors: u32,
    cooperative: bool,
    /// Set when a kernel faulted: the context is unusable from then on.
    lost: std::sync::Mutex<Option<(String, String)>>,
}

// SAFETY: a CUDA context may be used from any thread once made current; every
// entry point binds it first.
unsafe impl Send for GpuContext {}
unsafe impl Sync for GpuContext {}

impl GpuContext {
    /// Makes the context current on the calling thread.
    pub(crate) fn bind(&self) -> Result<()> {
        if let Some((kernel, cause)) = self.lost.lock().unwrap_or_else(|e| e.into_inner()).as_ref()
        {
            return Err(Error::ContextLost {
                kernel: kernel.clone(),
                cause: cause.clone(),
            });
        }
        // SAFETY: the context is retained for our lifetime.
        unsafe { result::ctx::set_current(self.context) }
            .map_err(|e| Error::cuda("cuCtxSetCurrent", e))
    }

    /// Records that `kernel` faulted: CUDA errors after a kernel fault are
    /// sticky, so every later call fails; they then say why.
    pub(crate) fn mark_lost(&self, kernel: &str, cause: &str) {
        let mut lost = self.lost.lock().unwrap_or_else(|e| e.into_inner());
        lost.get_or_insert_with(|| (kernel.to_string(), cause.to_string()));
    }
}

impl Drop for GpuContext {
    fn drop(&mut self) {
        // SAFETY: retained in GpuDevice::open.
        let _ = unsafe { result::primary_ctx::release(self.device) };
    }
}

/// One GPU.
pub(crate) struct GpuDevice {
    ctx: Arc<GpuContext>,
    ordinal: usize,
    name: String,
    compute_capability: u32,
    /// A non-blocking stream for host-to-device copies while a kernel runs.
    copy_stream: sys::CUstream,
    /// Other GPUs of this process's node opened here by PCI bus id, for
    /// copies through their own context (`PeerAccess::owner`).
    owners: std::sync::Mutex<std::collections::HashMap<String, Arc<dyn Device>>>,
    /// Pinned buffers that long copies to and from pageable memory take.
    bounces: bounce::Bounces,
}

// SAFETY: as for GpuContext; the stream is only used with the context bound.
unsafe impl Send for GpuDevice {}
unsafe impl Sync for GpuDevice {}

impl GpuDevice {
    /// Zeroes `bytes` of this GPU's memory at `addr` and waits. On the copy
    /// stream: a plain cuMemsetD8 runs on the legacy stream, which the
    /// (non-blocking) copy stream does not wait for, so an upload right
    /// after could land first and be zeroed (seen on an H100 once another
    /// process had used it).
    pub(crate) fn zero(&self, addr: u64, bytes: usize) -> Result<()> {
        self.ctx.bind()?;
        let stream = self.copy_stream;
        // SAFETY: device memory of this context that the caller owns.
        unsafe {
            check(
                "cuMemsetD8Async",
                sys::cuMemsetD8Async(addr, 0, bytes, stream),
            )?;
            check("cuStreamSynchronize", sys::cuStreamSynchronize(stream))
        }
    }

    /// Makes this GPU's context current on the calling thread.
    pub(crate) fn bind(&self) -> Result<()> {
        self.ctx.bind()
    }

    /// Opens GPU `ordinal`: `NoDriver` or `NoDevice` when there is none.
    pub fn open(ordinal: usize) -> Result<Self> {
        // SAFETY: only tries to load the library.
        if !unsafe { sys::is_culib_present() } {
            return Err(Error::NoDriver);
        }
        result::init().map_err(|e| Error::cuda("cuInit", e))?;
        let count =
            result::device::get_count().map_err(|e| Error::cuda("cuDeviceGetCount", e))? as usize;
        if ordinal >= count {
            return Err(Error::NoDevice { ordinal, count });
        }
        let device =
            result::device::get(ordinal as i32).map_err(|e| Error::cuda("cuDeviceGet", e))?;
        // SAFETY: `device` is valid; released by GpuContext's Drop.
        let context = unsafe { result::primary_ctx::retain(device) }
            .map_err(|e| Error::cuda("cuDevicePrimaryCtxRetain", e))?;
        let attr = |a| -> Result<u32> {
            // SAFETY: `device` is valid.
            unsafe { result::device::get_attribute(device, a) }
                .map(|v| v as u32)
                .map_err(|e| Error::cuda("cuDeviceGetAttribute", e))
        };
        use sys::CUdevice_attribute::*;
        let ctx = Arc::new(GpuContext {
            device,
            context,
            multiprocessors: attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            cooperative: attr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)? != 0,
            lost: std::sync::Mutex::new(None),
        });
        ctx.bind()?;
        let copy_stream = result::stream::create(result::stream::StreamKind::NonBlocking)
            .map_err(|e| Error::cuda("cuStreamCreate", e))?;
        Ok(GpuDevice {
            ctx,
            ordinal,
            name: result::device::get_name(device)
                .map_err(|e| Error::cuda("cuDeviceGetName", e))?,
            compute_capability: attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)? * 10
                + attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            copy_stream,
            owners: Default::default(),
            bounces: Default::default(),
        })
    }

    /// GPUs the driver shows this process (after `CUDA_VISIBLE_DEVICES`);
    /// `None` when there is no driver.
    pub fn visible() -> Option<usize> {
        // SAFETY: only tries to load the library.
        if !unsafe { sys::is_culib_present() } {
            return None;
        }
        result::init().ok()?;
        result::device::get_count().ok().map(|n| n as usize)
    }
}

impl Device for GpuDevice {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            backend: Backend::Gpu,
            name: self.name.clone(),
            ordinal: self.ordinal,
            compute_capability: Some(self.compute_capability),
            multiprocessors: self.ctx.multiprocessors,
        }
    }

    fn alloc(&self, bytes: usize) -> Result<u64> {
        self.ctx.bind()?;
        // SAFETY: plain allocation, zeroed before use.
        let addr = unsafe {
            result::malloc_sync(bytes.max(1)).map_err(|e| Error::Alloc {
                call: "cuMemAlloc",
                bytes,
                reason: Error::cuda("cuMemAlloc", e).to_string(),
            })?
        };
        self.zero(addr, bytes.max(1))?;
        Ok(addr)
    }

    fn free(&self, addr: u64, _bytes: usize) {
        if self.ctx.bind().is_ok() {
            // SAFETY: `addr` came from `alloc`. A failure here has no caller to report to.
            let _ = unsafe { result::free_sync(addr) };
        }
    }

    fn alloc_mapped(&self, bytes: usize) -> Result<(*mut u8, u64)> {
        self.ctx.bind()?;
        let flags = sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE;
        // SAFETY: the allocation is zeroed before it is handed out.
        unsafe {
            let host = result::malloc_host(bytes.max(1), flags).map_err(|e| Error::Alloc {
                call: "cuMemHostAlloc",
                bytes,
                reason: Error::cuda("cuMemHostAlloc", e).to_string(),
            })? as *mut u8;
            std::ptr::write_bytes(host, 0, bytes.max(1));
            let mut addr = 0u64;
            check(
                "cuMemHostGetDevicePointer",
                sys::cuMemHostGetDevicePointer_v2(&mut addr, host as *mut c_void, 0),
            )?;
            Ok((host, addr))
        }
    }

    fn free_mapped(&self, host: *mut u8, _addr: u64, _bytes: usize) {
        if self.ctx.bind().is_ok() {
            // SAFETY: `host` came from `alloc_mapped`.
            let _ = unsafe { result::free_host(host as *mut c_void) };
        }
    }

    /// Through a stream synchronised before returning: `cuMemcpyHtoD` from
    /// pageable memory may return before the DMA lands, and a signal
    /// written after it could overtake the data.
    fn write(&self, addr: u64, src: &[u8]) -> Result<()> {
        self.ctx.bind()?;
        if src.len() >= bounce::BOUNCE_FROM {
            return self.write_bounced(addr, src);
        }
        // SAFETY: the caller passes a device range of `src.len()` bytes; the
        // stream is ours and synchronised before return.
        unsafe {
            check(
                "cuMemcpyHtoDAsync",
                sys::cuMemcpyHtoDAsync_v2(
                    addr,
                    src.as_ptr() as *const c_void,
                    src.len(),
                    self.copy_stream,
                ),
            )?;
            check(
                "cuStreamSynchronize",
                sys::cuStreamSynchronize(self.copy_stream),
            )
        }
    }

    fn read(&self, addr: u64, dst: &mut [u8]) -> Result<()> {
        self.ctx.bind()?;
        if dst.len() >= bounce::BOUNCE_FROM {
            return self.read_bounced(addr, dst);
        }
        // SAFETY: as in write.
        check("cuMemcpyDtoH", unsafe {
            sys::cuMemcpyDtoH_v2(dst.as_mut_ptr() as *mut c_void, addr, dst.len())
        })
    }

    fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: the caller passes two device ranges of `bytes`.
        check("cuMemcpyDtoD", unsafe {
            sys::cuMemcpyDtoD_v2(dst, src, bytes)
        })?;
        // The copy runs on the legacy stream, which our launches (on
        // non-blocking streams) do not wait for, nor it for them.
        // SAFETY: the null stream always exists.
        unsafe { result::stream::synchronize(std::ptr::null_mut()) }
            .map_err(|e| Error::cuda("cuStreamSynchronize", e))
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
        self.memcpy_2d(&copy_2d_desc(
            Side::Device(src, src_pitch),
            Side::Device(dst, dst_pitch),
            width,
            rows,
        ))
    }

    fn copy_3d(&self, dst: Planes, src: Planes, extent: Extent3) -> Result<()> {
        self.memcpy_3d(dst, src, extent)
    }

    fn read_2d(&self, src: u64, pitch: usize, width: usize, dst: &mut [u8]) -> Result<()> {
        let rows = dst.len() / width.max(1);
        let dst = Side::Host(dst.as_mut_ptr() as *mut c_void, width);
        self.memcpy_2d(&copy_2d_desc(Side::Device(src, pitch), dst, width, rows))
    }

    fn write_2d(&self, dst: u64, pitch: usize, width: usize, src: &[u8]) -> Result<()> {
        let rows = src.len() / width.max(1);
        let src = Side::Host(src.as_ptr() as *mut c_void, width);
        self.memcpy_2d(&copy_2d_desc(src, Side::Device(dst, pitch), width, rows))
    }

    fn raise_flag(&self, addr: u64) -> Result<()> {
        self.write(addr, &1u32.to_le_bytes())
    }

    fn synchronize(&self) -> Result<()> {
        self.ctx.bind()?;
        result::ctx::synchronize().map_err(|e| Error::cuda("cuCtxSynchronize", e))
    }

    fn load(&self, ptx: &Ptx, options: &LoadOptions) -> Result<(u32, bool, Box<dyn LoadedModule>)> {
        let v = ptx.select(Some(self.compute_capability))?;
        // SASS cannot take JIT options: any compiles the PTX.
        let sass = v.sass.filter(|_| !options.compiles());
        let image = match sass {
            Some(cubin) => module::Image::Sass(cubin),
            None => module::Image::Ptx(v.text),
        };
        let module =
            module::GpuModule::load(self.ctx.clone(), (ptx.name(), v.arch, image), options)?;
        Ok((v.arch, sass.is_some(), Box::new(module)))
    }

    fn peers(&self) -> Option<&dyn PeerAccess> {
        Some(self)
    }

    fn stream(&self) -> Result<Box<dyn StreamQueue>> {
        Ok(Box::new(stream::GpuStream::new(self.ctx.clone())?))
    }
}

impl Drop for GpuDevice {
    fn drop(&mut self) {
        if self.ctx.bind().is_ok() {
            self.free_bounces();
            // SAFETY: created in open(); nothing uses it any more.
            let _ = unsafe { result::stream::destroy(self.copy_stream) };
        }
    }
}
