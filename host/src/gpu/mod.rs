//! The GPU backend: the CUDA driver API through cudarc, with `libcuda`
//! loaded at run time so that one binary also runs where there is none.

use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::runtime::DeviceInfo;
use cudarc::driver::{result, sys};
use std::ffi::{c_void, CString};
use std::mem::MaybeUninit;

/// One GPU and its primary context.
pub(crate) struct GpuDevice {
    ordinal: usize,
    device: sys::CUdevice,
    context: sys::CUcontext,
    name: String,
    compute_capability: u32,
    multiprocessors: u32,
    cooperative: bool,
    /// Set when a kernel faulted: the context is unusable from then on.
    lost: std::sync::Mutex<Option<(String, String)>>,
    /// A non-blocking stream for host-to-device copies while a kernel runs.
    copy_stream: sys::CUstream,
}

// SAFETY: a CUDA context may be used from any thread once made current; every
// entry point below binds it first.
unsafe impl Send for GpuDevice {}
unsafe impl Sync for GpuDevice {}

fn check(call: &'static str, r: sys::CUresult) -> Result<()> {
    r.result().map_err(|e| Error::cuda(call, e))
}

impl GpuDevice {
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
        // SAFETY: `device` is valid; released in Drop.
        let context = unsafe { result::primary_ctx::retain(device) }
            .map_err(|e| Error::cuda("cuDevicePrimaryCtxRetain", e))?;
        let attr = |a| -> Result<u32> {
            // SAFETY: `device` is valid.
            unsafe { result::device::get_attribute(device, a) }
                .map(|v| v as u32)
                .map_err(|e| Error::cuda("cuDeviceGetAttribute", e))
        };
        use sys::CUdevice_attribute::*;
        let gpu = GpuDevice {
            ordinal,
            device,
            context,
            name: result::device::get_name(device)
                .map_err(|e| Error::cuda("cuDeviceGetName", e))?,
            compute_capability: attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR)? * 10
                + attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR)?,
            multiprocessors: attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT)?,
            cooperative: attr(CU_DEVICE_ATTRIBUTE_COOPERATIVE_LAUNCH)? != 0,
            lost: std::sync::Mutex::new(None),
            copy_stream: std::ptr::null_mut(),
        };
        gpu.bind()?;
        let mut gpu = gpu;
        gpu.copy_stream = result::stream::create(result::stream::StreamKind::NonBlocking)
            .map_err(|e| Error::cuda("cuStreamCreate", e))?;
        Ok(gpu)
    }

    pub fn info(&self) -> DeviceInfo {
        DeviceInfo {
            backend: Backend::Gpu,
            name: self.name.clone(),
            ordinal: self.ordinal,
            compute_capability: Some(self.compute_capability),
            multiprocessors: self.multiprocessors,
        }
    }

    pub fn compute_capability(&self) -> u32 {
        self.compute_capability
    }

    /// Records that `kernel` faulted: CUDA errors after a kernel fault are
    /// sticky, so every later call fails; they then say why.
    pub fn mark_lost(&self, kernel: &str, cause: &Error) {
        let mut lost = self.lost.lock().unwrap_or_else(|e| e.into_inner());
        lost.get_or_insert_with(|| (kernel.to_string(), cause.to_string()));
    }

    /// Makes the context current on the calling thread.
    fn bind(&self) -> Result<()> {
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

    pub fn synchronize(&self) -> Result<()> {
        self.bind()?;
        result::ctx::synchronize().map_err(|e| Error::cuda("cuCtxSynchronize", e))
    }

    pub fn alloc(&self, bytes: usize) -> Result<u64> {
        self.bind()?;
        // SAFETY: plain allocation, zeroed before use.
        unsafe {
            let addr = result::malloc_sync(bytes.max(1)).map_err(|e| Error::Alloc {
                call: "cuMemAlloc",
                bytes,
                reason: Error::cuda("cuMemAlloc", e).to_string(),
            })?;
            check("cuMemsetD8", sys::cuMemsetD8_v2(addr, 0, bytes.max(1)))?;
            Ok(addr)
        }
    }

    pub fn free(&self, addr: u64) {
        if self.bind().is_ok() {
            // SAFETY: `addr` came from `alloc`. A failure here has no caller to report to.
            let _ = unsafe { result::free_sync(addr) };
        }
    }

    /// Copies host memory to the device and returns once the data is
    /// there. (`cuMemcpyHtoD` from pageable memory may return before the
    /// DMA lands; a signal written after it could overtake the data.)
    pub fn copy_to_device(&self, addr: u64, src: *const u8, bytes: usize) -> Result<()> {
        self.bind()?;
        // SAFETY: the caller passes a device range of `bytes` and a host
        // slice of as many; the stream is ours and synchronised before return.
        unsafe {
            check(
                "cuMemcpyHtoDAsync",
                sys::cuMemcpyHtoDAsync_v2(addr, src as *const c_void, bytes, self.copy_stream),
            )?;
            check(
                "cuStreamSynchronize",
                sys::cuStreamSynchronize(self.copy_stream),
            )
        }
    }

    pub fn copy_to_host(&self, dst: *mut u8, addr: u64, bytes: usize) -> Result<()> {
        self.bind()?;
        // SAFETY: as in copy_to_device.
        check("cuMemcpyDtoH", unsafe {
            sys::cuMemcpyDtoH_v2(dst as *mut c_void, addr, bytes)
        })
    }

    pub fn copy_device_to_device(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        self.bind()?;
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

    /// The device's PCI bus id (`domain:bus:device.function`).
    pub fn pci_bus_id(&self) -> Result<String> {
        let mut buf = [0 as std::ffi::c_char; 32];
        // SAFETY: the buffer holds the id and its terminator.
        check("cuDeviceGetPCIBusId", unsafe {
            sys::cuDeviceGetPCIBusId(buf.as_mut_ptr(), buf.len() as i32, self.device)
        })?;
        // SAFETY: the driver wrote a terminated string.
        Ok(unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned())
    }

    /// Whether this device can map the memory of the device at `pci_bus_id`.
    pub fn can_access_peer(&self, pci_bus_id: &str) -> Result<bool> {
        self.bind()?;
        let id = std::ffi::CString::new(pci_bus_id).unwrap_or_default();
        let mut peer = MaybeUninit::uninit();
        let mut can = 0;
        // SAFETY: plain queries.
        unsafe {
            check(
                "cuDeviceGetByPCIBusId",
                sys::cuDeviceGetByPCIBusId(peer.as_mut_ptr(), id.as_ptr()),
            )?;
            let peer = peer.assume_init();
            if peer == self.device {
                return Ok(false);
            }
            check(
                "cuDeviceCanAccessPeer",
                sys::cuDeviceCanAccessPeer(&mut can, self.device, peer),
            )?;
        }
        Ok(can != 0)
    }

    /// An IPC handle for the allocation holding `addr`, and `addr`'s
    /// offset in it; fails for memory that is not from `cuMemAlloc`.
    pub fn ipc_export(&self, addr: u64) -> Result<([u8; 64], u64)> {
        self.bind()?;
        let (mut base, mut size) = (0u64, 0usize);
        let mut handle = MaybeUninit::<sys::CUipcMemHandle>::uninit();
        // SAFETY: plain queries on a device address.
        unsafe {
            check(
                "cuMemGetAddressRange",
                sys::cuMemGetAddressRange_v2(&mut base, &mut size, addr),
            )?;
            check(
                "cuIpcGetMemHandle",
                sys::cuIpcGetMemHandle(handle.as_mut_ptr(), base),
            )?;
            let handle = handle.assume_init();
            Ok((
                std::mem::transmute::<[std::ffi::c_char; 64], [u8; 64]>(handle.reserved),
                addr - base,
            ))
        }
    }

    /// Maps another process's allocation; returns its address here.
    pub fn ipc_open(&self, handle: &[u8; 64]) -> Result<u64> {
        self.bind()?;
        let mut raw = MaybeUninit::<sys::CUipcMemHandle>::zeroed();
        let mut addr = 0u64;
        // SAFETY: the handle came from cuIpcGetMemHandle in another process.
        unsafe {
            std::ptr::copy_nonoverlapping(handle.as_ptr(), raw.as_mut_ptr() as *mut u8, 64);
            check(
                "cuIpcOpenMemHandle",
                sys::cuIpcOpenMemHandle_v2(
                    &mut addr,
                    raw.assume_init(),
                    sys::CUipcMem_flags::CU_IPC_MEM_LAZY_ENABLE_PEER_ACCESS as u32,
                ),
            )?;
        }
        Ok(addr)
    }

    /// Unmaps what [`ipc_open`](Self::ipc_open) mapped.
    pub fn ipc_close(&self, addr: u64) {
        if self.bind().is_ok() {
            // SAFETY: `addr` came from ipc_open. Nobody to report a failure to.
            let _ = unsafe { sys::cuIpcCloseMemHandle(addr) };
        }
    }

    /// Pinned host memory mapped into the device: (host pointer, device address).
    pub fn alloc_mapped(&self, bytes: usize) -> Result<(*mut u8, u64)> {
        self.bind()?;
        let flags = sys::CU_MEMHOSTALLOC_DEVICEMAP | sys::CU_MEMHOSTALLOC_PORTABLE;
        // SAFETY: the allocation is zeroed before it is handed out.
        unsafe {
            let host = result::malloc_host(bytes.max(1), flags).map_err(|e| Error::Alloc {
                call: "cuMemHostAlloc",
                bytes,
                reason: Error::cuda("cuMemHostAlloc", e).to_string(),
            })? as *mut u8;
            std::ptr::write_bytes(host, 0, bytes.max(1));
            let mut addr = MaybeUninit::uninit();
            check(
                "cuMemHostGetDevicePointer",
                sys::cuMemHostGetDevicePointer_v2(addr.as_mut_ptr(), host as *mut c_void, 0),
            )?;
            Ok((host, addr.assume_init()))
        }
    }

    pub fn free_mapped(&self, host: *mut u8) {
        if self.bind().is_ok() {
            // SAFETY: `host` came from `alloc_mapped`.
            let _ = unsafe { result::free_host(host as *mut c_void) };
        }
    }

    /// Loads PTX; on failure returns the JIT compiler's log.
    pub fn load_module(&self, name: &str, arch: u32, ptx: &str) -> Result<GpuModule> {
        self.bind()?;
        let image = CString::new(ptx).map_err(|_| Error::PtxLoad {
            module: name.into(),
            arch,
            code: "invalid PTX".into(),
            log: "the PTX text contains a NUL byte".into(),
        })?;
        let mut log = vec![0u8; 16 * 1024];
        let mut options = [
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER,
            sys::CUjit_option::CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES,
        ];
        let mut values = [log.as_mut_ptr() as *mut c_void, log.len() as *mut c_void];
        let mut module = MaybeUninit::uninit();
        // SAFETY: the option arrays and log buffer outlive the call.
        let r = unsafe {
            sys::cuModuleLoadDataEx(
                module.as_mut_ptr(),
                image.as_ptr() as *const c_void,
                options.len() as u32,
                options.as_mut_ptr(),
                values.as_mut_ptr(),
            )
        };
        match r.result() {
            // SAFETY: initialised on success.
            Ok(()) => Ok(GpuModule {
                module: unsafe { module.assume_init() },
            }),
            Err(e) => {
                let end = log.iter().position(|&b| b == 0).unwrap_or(log.len());
                let Error::Cuda { code, .. } = Error::cuda("cuModuleLoadDataEx", e) else {
                    unreachable!()
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

    pub fn function(&self, module: &GpuModule, kernel: &str) -> Result<sys::CUfunction> {
        self.bind()?;
        let cname = CString::new(kernel).expect("kernel names have no NUL");
        // SAFETY: the module is loaded.
        unsafe { result::module::get_function(module.module, cname) }
            .map_err(|e| Error::cuda("cuModuleGetFunction", e))
    }

    /// Blocks of `block_threads` threads that fit on the GPU at once.
    pub fn max_coresident_blocks(
        &self,
        f: sys::CUfunction,
        block_threads: u32,
        shared_bytes: u32,
    ) -> Result<u32> {
        self.bind()?;
        // SAFETY: `f` is a loaded function.
        let per_sm = unsafe {
            result::occupancy::max_active_block_per_multiprocessor(
                f,
                block_threads as i32,
                shared_bytes as usize,
            )
        }
        .map_err(|e| Error::cuda("cuOccupancyMaxActiveBlocksPerMultiprocessor", e))?;
        Ok(per_sm.max(0) as u32 * self.multiprocessors)
    }

    pub fn supports_cooperative_launch(&self) -> bool {
        self.cooperative
    }

    /// Launches `f` on a stream of its own, so that synchronous copies and
    /// other launches never wait behind a persistent kernel.
    ///
    /// # Safety
    /// `params` must match the kernel's parameters.
    pub unsafe fn launch(
        &self,
        f: sys::CUfunction,
        grid: (u32, u32, u32),
        block: (u32, u32, u32),
        shared_bytes: u32,
        cooperative: bool,
        params: &mut [*mut c_void],
    ) -> Result<GpuLaunch> {
        self.bind()?;
        let stream = result::stream::create(result::stream::StreamKind::NonBlocking)
            .map_err(|e| Error::cuda("cuStreamCreate", e))?;
        let launched = if cooperative {
            result::launch_cooperative_kernel(f, grid, block, shared_bytes, stream, params)
                .map_err(|e| Error::cuda("cuLaunchCooperativeKernel", e))
        } else {
            result::launch_kernel(f, grid, block, shared_bytes, stream, params)
                .map_err(|e| Error::cuda("cuLaunchKernel", e))
        };
        if let Err(e) = launched {
            let _ = result::stream::destroy(stream);
            return Err(e);
        }
        Ok(GpuLaunch { stream })
    }

    pub fn wait(&self, launch: &mut GpuLaunch) -> Result<()> {
        self.bind()?;
        // SAFETY: the stream is ours until destroyed here.
        let r = unsafe { result::stream::synchronize(launch.stream) };
        unsafe {
            let _ = result::stream::destroy(launch.stream);
        }
        r.map_err(|e| Error::cuda("cuStreamSynchronize", e))
    }

    pub fn is_finished(&self, launch: &GpuLaunch) -> Result<bool> {
        self.bind()?;
        // SAFETY: the stream is live.
        match unsafe { sys::cuStreamQuery(launch.stream) } {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            other => check("cuStreamQuery", other).map(|_| true),
        }
    }

    pub fn unload(&self, module: &GpuModule) {
        if self.bind().is_ok() {
            // SAFETY: loaded by us, unloaded once.
            let _ = unsafe { result::module::unload(module.module) };
        }
    }
}

impl Drop for GpuDevice {
    fn drop(&mut self) {
        if self.bind().is_ok() {
            // SAFETY: created in open(); nothing uses it any more.
            let _ = unsafe { result::stream::destroy(self.copy_stream) };
        }
        // SAFETY: retained in open().
        let _ = unsafe { result::primary_ctx::release(self.device) };
    }
}

/// A loaded PTX module.
pub(crate) struct GpuModule {
    module: sys::CUmodule,
}

// SAFETY: module handles are context-wide.
unsafe impl Send for GpuModule {}
unsafe impl Sync for GpuModule {}

/// A kernel running on its own stream.
pub(crate) struct GpuLaunch {
    stream: sys::CUstream,
}

// SAFETY: streams may be synchronised from any thread.
unsafe impl Send for GpuLaunch {}
