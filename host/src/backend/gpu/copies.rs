//! The GPU's 2D and 3D copies: descriptors and the calls that run them
//! and wait.

use super::{check, GpuDevice};
use crate::backend::{copy_by_planes, Extent3, Planes};
use crate::error::{Error, Result};
use cudarc::driver::{result, sys};
use std::ffi::c_void;

/// One side of a 2D copy: an address the GPU reaches (device memory, or
/// mapped pinned host memory), or host memory, with its pitch.
pub(super) enum Side {
    Device(u64, usize),
    Host(*mut c_void, usize),
}

/// A 2D copy of `rows` rows of `width` bytes from `src` to `dst`.
pub(super) fn copy_2d_desc(src: Side, dst: Side, width: usize, rows: usize) -> sys::CUDA_MEMCPY2D {
    use sys::CUmemorytype::{CU_MEMORYTYPE_HOST, CU_MEMORYTYPE_UNIFIED};
    // Unified: the driver tells device memory from mapped host memory.
    let parts = |side: Side| match side {
        Side::Device(addr, pitch) => (CU_MEMORYTYPE_UNIFIED, std::ptr::null_mut(), addr, pitch),
        Side::Host(ptr, pitch) => (CU_MEMORYTYPE_HOST, ptr, 0, pitch),
    };
    let (src_type, src_host, src_device, src_pitch) = parts(src);
    let (dst_type, dst_host, dst_device, dst_pitch) = parts(dst);
    sys::CUDA_MEMCPY2D {
        srcXInBytes: 0,
        srcY: 0,
        srcMemoryType: src_type,
        srcHost: src_host,
        srcDevice: src_device,
        srcArray: std::ptr::null_mut(),
        srcPitch: src_pitch,
        dstXInBytes: 0,
        dstY: 0,
        dstMemoryType: dst_type,
        dstHost: dst_host,
        dstDevice: dst_device,
        dstArray: std::ptr::null_mut(),
        dstPitch: dst_pitch,
        WidthInBytes: width,
        Height: rows,
    }
}

impl GpuDevice {
    /// Runs a 2D copy and waits. `cuMemcpy2D` may refuse pitches it does
    /// not like (not from `cuMemAllocPitch`); the unaligned variant takes
    /// any.
    pub(super) fn memcpy_2d(&self, c: &sys::CUDA_MEMCPY2D) -> Result<()> {
        if c.Height == 0 || c.WidthInBytes == 0 {
            return Ok(());
        }
        self.ctx.bind()?;
        // SAFETY: the callers describe device ranges they checked and host
        // slices they borrow for the call; the copy is done on return.
        unsafe {
            if sys::cuMemcpy2D_v2(c) != sys::cudaError_enum::CUDA_SUCCESS {
                check("cuMemcpy2DUnaligned", sys::cuMemcpy2DUnaligned_v2(c))?;
            }
            // As in `copy`: the legacy stream, which our launches do not wait for.
            result::stream::synchronize(std::ptr::null_mut())
                .map_err(|e| Error::cuda("cuStreamSynchronize", e))
        }
    }

    /// Runs a 3D copy between addresses the GPU reaches (device memory or
    /// mapped pinned host memory) in one `cuMemcpy3D` where
    /// each side's planes lie a whole number of its rows apart (a
    /// sub-block's planes in a 3D array, or packed), else a 2D copy a
    /// plane; waits. The driver refuses pitches past its limit: then
    /// also a 2D copy a plane.
    pub(super) fn memcpy_3d(
        &self,
        dst: Planes,
        src: Planes,
        (width, rows, planes): Extent3,
    ) -> Result<()> {
        let desc = (planes > 1)
            .then(|| memcpy_3d_desc(dst, src, (width, rows, planes)))
            .flatten();
        let Some(c) = desc else {
            return copy_by_planes(self, dst, src, (width, rows, planes));
        };
        self.ctx.bind()?;
        // SAFETY: the callers describe device ranges they checked; the
        // copy is done on return.
        let done = unsafe { sys::cuMemcpy3D_v2(&c) };
        if done != sys::cudaError_enum::CUDA_SUCCESS {
            return copy_by_planes(self, dst, src, (width, rows, planes));
        }
        // As in `copy`: the legacy stream, which our launches do not wait for.
        unsafe { result::stream::synchronize(std::ptr::null_mut()) }
            .map_err(|e| Error::cuda("cuStreamSynchronize", e))
    }
}

/// The one `cuMemcpy3D` of a copy of planes where each side's planes lie
/// a whole number of its rows apart (a sub-block's planes in a 3D array,
/// or packed); `None` otherwise, or where there is nothing to copy.
pub(super) fn memcpy_3d_desc(
    dst: Planes,
    src: Planes,
    (width, rows, planes): Extent3,
) -> Option<sys::CUDA_MEMCPY3D> {
    let stacked =
        |s: &Planes| s.pitch > 0 && s.plane.is_multiple_of(s.pitch) && s.plane / s.pitch >= rows;
    if planes == 0 || width == 0 || rows == 0 || !stacked(&dst) || !stacked(&src) {
        return None;
    }
    // Unified: either side may be mapped host memory (the world's scratch).
    let unified = sys::CUmemorytype::CU_MEMORYTYPE_UNIFIED;
    Some(sys::CUDA_MEMCPY3D {
        srcXInBytes: 0,
        srcY: 0,
        srcZ: 0,
        srcLOD: 0,
        srcMemoryType: unified,
        srcHost: std::ptr::null(),
        srcDevice: src.addr,
        srcArray: std::ptr::null_mut(),
        reserved0: std::ptr::null_mut(),
        srcPitch: src.pitch,
        srcHeight: src.plane / src.pitch,
        dstXInBytes: 0,
        dstY: 0,
        dstZ: 0,
        dstLOD: 0,
        dstMemoryType: unified,
        dstHost: std::ptr::null_mut(),
        dstDevice: dst.addr,
        dstArray: std::ptr::null_mut(),
        reserved1: std::ptr::null_mut(),
        dstPitch: dst.pitch,
        dstHeight: dst.plane / dst.pitch,
        WidthInBytes: width,
        Height: rows,
        Depth: planes,
    })
}
