//! Streams on a GPU: launches and copies queued in order, run
//! asynchronously; failures surface at the next synchronisation.

use super::{check, GpuContext};
use crate::backend::{Extent3, Planes, Running, StreamQueue};
use crate::error::{Error, Result};
use cudarc::driver::{result, sys};
use std::ffi::c_void;
use std::sync::Arc;

/// A non-blocking CUDA stream of the device's context.
pub(crate) struct GpuStream {
    ctx: Arc<GpuContext>,
    stream: sys::CUstream,
}

// SAFETY: a stream may be used from any thread with its context bound,
// which every method does first.
unsafe impl Send for GpuStream {}

impl GpuStream {
    pub(crate) fn new(ctx: Arc<GpuContext>) -> Result<GpuStream> {
        ctx.bind()?;
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)
            .map_err(|e| Error::cuda("cuStreamCreate", e))?;
        Ok(GpuStream { ctx, stream })
    }
}

impl StreamQueue for GpuStream {
    fn raw(&self) -> Option<u64> {
        Some(self.stream as u64)
    }

    fn launched(&self, _kernel: &str, _launch: Box<dyn Running>) -> Result<()> {
        // A launch on a borrowed stream has nothing to wait for itself: its
        // failure is the stream's next synchronisation's.
        Ok(())
    }

    fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: the caller passes two ranges of `bytes` (device memory or
        // mapped host memory: unified addressing tells them apart) that
        // live until the stream is synchronised.
        check("cuMemcpyAsync", unsafe {
            sys::cuMemcpyAsync(dst, src, bytes, self.stream)
        })
    }

    fn read(&self, addr: u64, dst: &mut [u8]) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: a device range of `dst.len()` bytes; `dst` lives until the
        // synchronisation below.
        check("cuMemcpyDtoHAsync", unsafe {
            sys::cuMemcpyDtoHAsync_v2(
                dst.as_mut_ptr() as *mut c_void,
                addr,
                dst.len(),
                self.stream,
            )
        })?;
        self.synchronize()
    }

    fn write(&self, addr: u64, src: &[u8]) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: as in read.
        check("cuMemcpyHtoDAsync", unsafe {
            sys::cuMemcpyHtoDAsync_v2(addr, src.as_ptr() as *const c_void, src.len(), self.stream)
        })?;
        self.synchronize()
    }

    fn synchronize(&self) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: the stream is ours until dropped.
        let r = check("cuStreamSynchronize", unsafe {
            sys::cuStreamSynchronize(self.stream)
        });
        if let Err(e) = &r {
            self.ctx.mark_lost("a kernel on a stream", &e.to_string());
        }
        r
    }

    fn wait_for(&self, other: &dyn StreamQueue) -> Result<()> {
        let Some(other) = other.raw() else {
            return Err(Error::InvalidArgument {
                call: "Stream::wait_for",
                reason: "the other stream is not a CUDA stream".into(),
            });
        };
        self.ctx.bind()?;
        // An event recorded on the other stream, waited for by this one;
        // CUDA keeps it until the wait is done, so it can go at once.
        let flags = sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32;
        let mut event: sys::CUevent = std::ptr::null_mut();
        // SAFETY: both streams belong to this context (checked by the
        // caller) and live across the calls; the event is ours.
        unsafe {
            check("cuEventCreate", sys::cuEventCreate(&mut event, flags))?;
            let r = check(
                "cuEventRecord",
                sys::cuEventRecord(event, other as sys::CUstream),
            )
            .and_then(|_| {
                check(
                    "cuStreamWaitEvent",
                    sys::cuStreamWaitEvent(self.stream, event, 0),
                )
            });
            let _ = sys::cuEventDestroy_v2(event);
            r
        }
    }

    fn copy_3d(&self, dst: Planes, src: Planes, (width, rows, planes): Extent3) -> Result<bool> {
        // One plane is a stack of one: its plane is its rows.
        let one = |p: Planes| match planes {
            1 => Planes {
                plane: p.pitch * rows,
                ..p
            },
            _ => p,
        };
        let (dst, src) = (one(dst), one(src));
        let Some(c) = super::copies::memcpy_3d_desc(dst, src, (width, rows, planes)) else {
            return Ok(false);
        };
        self.ctx.bind()?;
        // SAFETY: the caller describes device ranges it checked, which
        // live until the stream is synchronised. A copy the driver refuses
        // (a pitch past its limit) is not queued.
        let queued = unsafe { sys::cuMemcpy3DAsync_v2(&c, self.stream) };
        Ok(queued == sys::cudaError_enum::CUDA_SUCCESS)
    }
}

impl Drop for GpuStream {
    fn drop(&mut self) {
        if self.ctx.bind().is_ok() {
            // SAFETY: ours; queued work finishes before CUDA frees it.
            unsafe {
                let _ = sys::cuStreamSynchronize(self.stream);
                let _ = result::stream::destroy(self.stream);
            }
        }
    }
}
