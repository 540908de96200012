//! Modules and launches on a GPU: PTX or build-time SASS loaded with the
//! JIT's log on failure, occupancy, and launches on streams of their own.

use super::{check, GpuContext};
use crate::backend::{Body, LoadedModule, Running, Shape};
use crate::error::{Error, Result};
use crate::module::{LoadCaching, LoadOptions};
use cudarc::driver::{result, sys};
use std::ffi::{c_void, CString};
use std::mem::MaybeUninit;
use std::sync::Arc;

/// What a module is loaded from.
pub(crate) enum Image<'a> {
    /// PTX text, which the driver compiles now (or finds in its cache).
    Ptx(&'a str),
    /// A cubin that `ptxas` made at build time.
    Sass(&'static [u8]),
}

/// A loaded PTX module.
pub(crate) struct GpuModule {
    ctx: Arc<GpuContext>,
    module: sys::CUmodule,
}

// SAFETY: module handles are context-wide.
unsafe impl Send for GpuModule {}
unsafe impl Sync for GpuModule {}

impl GpuModule {
    /// Loads PTX; on failure returns the JIT compiler's log.
    pub fn load(
        ctx: Arc<GpuContext>,
        (name, arch, image): (&str, u32, Image),
        load: &LoadOptions,
    ) -> Result<GpuModule> {
        ctx.bind()?;
        let (text, mut aligned);
        let image: *const c_void = match image {
            Image::Ptx(ptx) => {
                text = CString::new(ptx).map_err(|_| Error::PtxLoad {
                    module: name.into(),
                    arch,
                    code: "invalid PTX".into(),
                    log: "the PTX text contains a NUL byte".into(),
                })?;
                text.as_ptr() as *const c_void
            }
            Image::Sass(cubin) => {
                // The driver reads the ELF header in place: 8-byte aligned.
                aligned = vec![0u64; cubin.len().div_ceil(8)];
                bytemuck::cast_slice_mut::<u64, u8>(&mut aligned)[..cubin.len()]
                    .copy_from_slice(cubin);
                aligned.as_ptr() as *const c_void
            }
        };
        let mut log = vec![0u8; 16 * 1024];
        let mut options = vec![
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        let mut values = vec![log.as_mut_ptr() as *mut c_void, log.len() as *mut c_void];
        if let Some(n) = load.max_registers {
            options.push(sys::CUjit_option::CU_JIT_MAX_REGISTERS);
            values.push(n as usize as *mut c_void);
        }
        if load.caching == LoadCaching::L2Only {
            options.push(sys::CUjit_option::CU_JIT_CACHE_MODE);
            values.push(sys::CUjit_cacheMode::CU_JIT_CACHE_OPTION_CG as usize as *mut c_void);
        }
        let mut module = MaybeUninit::uninit();
        // SAFETY: the option arrays and log buffer outlive the call.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                module.as_mut_ptr(),
                image,
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        match r.result() {
            // SAFETY: initialised on success.
            Ok(()) => Ok(GpuModule {
                ctx,
                module: unsafe { module.assume_init() },
            }),
            Err(e) => {
                let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
                let code = match Error::cuda("cuModuleLoadDataEx", e) {
                    Error::Cuda { code, .. } => code,
                    other => other.to_string(),
                };
                Err(Error::PtxLoad {
                    module: name.into(),
                    arch,
                    code,
                    log: String::from_utf8_lossy(&log[..end]).into_owned(),
                })
            }
        }
    }

    fn function(&self, kernel: &str) -> Result<sys::CUfunction> {
        self.ctx.bind()?;
        let cname = CString::new(kernel).map_err(|_| Error::KernelNotFound {
            module: String::new(),
            kernel: kernel.into(),
            available: String::new(),
        })?;
        // SAFETY: the module is loaded.
        unsafe { result::module::get_function(self.module, cname) }
            .map_err(|e| Error::cuda("cuModuleGetFunction", e))
    }
}

impl LoadedModule for GpuModule {
    fn raw_module(&self) -> Option<u64> {
        Some(self.module as u64)
    }

    fn max_blocks(&self, kernel: &str, threads: u32, shared_bytes: u32) -> Result<u32> {
        let f = self.function(kernel)?;
        // SAFETY: `f` is a loaded function.
        let per_sm = unsafe {
            result::occupancy::max_active_block_per_multiprocessor(
                f,
                threads as i32,
                shared_bytes as usize,
            )
        }
        .map_err(|e| Error::cuda("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))?;
        Ok(per_sm.max(0) as u32 * self.ctx.multiprocessors)
    }

    fn max_ranks(&self, kernel: &str, threads: u32) -> Result<u32> {
        self.max_blocks(kernel, threads, 0)
    }

    fn fit_hint(&self, kernel: &str, threads: u32) -> Option<String> {
        use sys::CUfunction_attribute_enum as A;
        let f = self.function(kernel).ok()?;
        // SAFETY: `f` is a loaded function.
        let attr = |a| unsafe { result::function::get_function_attribute(f, a) }.ok();
        let registers = attr(A::CU_FUNC_ATTRIBUTE_NUM_REGS)?;
        let block_limit = attr(A::CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK)?;
        Some(if threads as i32 > block_limit {
            // Registers per SM bound a block: ranks this large cannot run.
            format!(
                "the kernel uses {registers} registers per thread, so a rank has at most {block_limit} threads on this device"
            )
        } else {
            format!("the kernel uses {registers} registers per thread")
        })
    }

    /// On a stream of its own, so that synchronous copies and other
    /// launches never wait behind a persistent kernel.
    unsafe fn launch(
        &self,
        kernel: &str,
        shape: Shape,
        params: &mut [*mut c_void],
        _body: Body,
    ) -> Result<Box<dyn Running>> {
        if shape.cooperative && !self.ctx.cooperative {
            return Err(Error::InvalidLaunch {
                kernel: kernel.into(),
                reason: "the device does not support cooperative launches".into(),
            });
        }
        let f = self.function(kernel)?;
        let dim = |d: dcuda_device::Dim3| (d.x, d.y, d.z);
        let (grid, block) = (dim(shape.grid), dim(shape.block));
        // A stream the caller queues on, or one of the launch's own.
        let borrowed = shape.stream.map(|s| s as sys::CUstream);
        let stream = match borrowed {
            Some(s) => s,
            None => result::stream::create(result::stream::StreamKind::NonBlocking)
                .map_err(|e| Error::cuda("cuStreamCreate", e))?,
        };
        let launched = if shape.cooperative {
            result::launch_cooperative_kernel(f, grid, block, shape.shared_bytes, stream, params)
                .map_err(|e| Error::cuda("cuLaunchCooperativeKernel", e))
        } else {
            result::launch_kernel(f, grid, block, shape.shared_bytes, stream, params)
                .map_err(|e| Error::cuda("cuLaunchKernel", e))
        };
        if let Err(e) = launched {
            if borrowed.is_none() {
                let _ = result::stream::destroy(stream);
            }
            return Err(e);
        }
        Ok(Box::new(GpuLaunch {
            ctx: self.ctx.clone(),
            kernel: kernel.into(),
            // A borrowed stream is its owner's to wait for and destroy.
            stream: if borrowed.is_none() {
                Some(stream)
            } else {
                None
            },
        }))
    }
}

impl Drop for GpuModule {
    fn drop(&mut self) {
        if self.ctx.bind().is_ok() {
            // SAFETY: loaded by us, unloaded once.
            let _ = unsafe { result::module::unload(self.module) };
        }
    }
}

/// A kernel running on its own stream.
struct GpuLaunch {
    ctx: Arc<GpuContext>,
    kernel: String,
    stream: Option<sys::CUstream>,
}

// SAFETY: streams may be synchronised from any thread.
unsafe impl Send for GpuLaunch {}

impl Running for GpuLaunch {
    fn is_finished(&self) -> bool {
        let Some(stream) = self.stream else {
            return true;
        };
        if self.ctx.bind().is_err() {
            return true;
        }
        // SAFETY: the stream is live. A failed kernel has finished too;
        // `wait` reports the failure.
        !matches!(
            unsafe { sys::cuStreamQuery(stream) },
            sys::CUresult::CUDA_ERROR_NOT_READY
        )
    }

    fn wait(&mut self) -> std::result::Result<(), String> {
        let Some(stream) = self.stream.take() else {
            return Ok(());
        };
        self.ctx.bind().map_err(|e| e.to_string())?;
        // SAFETY: the stream is ours until destroyed here.
        let r = unsafe { check("cuStreamSynchronize", sys::cuStreamSynchronize(stream)) };
        unsafe {
            let _ = result::stream::destroy(stream);
        }
        r.map_err(|e| {
            self.ctx.mark_lost(&self.kernel, &e.to_string());
            e.to_string()
        })
    }
}
