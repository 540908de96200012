//! The backends that run kernels: a GPU through the CUDA driver, or the
//! CPU emulator. Each implements [`Device`] (memory, copies, modules) and
//! the module and launch traits beside it; the rest of the runtime holds a
//! `dyn Device` and never asks which one it has. A module or launch is made
//! by its device, so a GPU module can never meet the emulator.

pub(crate) mod emu;
pub(crate) mod gpu;

use crate::error::Result;
use crate::module::{LoadOptions, Ptx};
use crate::runtime::DeviceInfo;
use std::ffi::c_void;
use std::fmt;

/// A device that runs kernels.
pub(crate) trait Device: Send + Sync {
    /// What it is.
    fn info(&self) -> DeviceInfo;
    /// `bytes` of zeroed device memory; its device address.
    fn alloc(&self, bytes: usize) -> Result<u64>;
    /// Frees what [`alloc`](Self::alloc) returned.
    fn free(&self, addr: u64, bytes: usize);
    /// `bytes` of zeroed pinned host memory mapped into the device:
    /// `(host pointer, device address)`.
    fn alloc_mapped(&self, bytes: usize) -> Result<(*mut u8, u64)>;
    /// Frees what [`alloc_mapped`](Self::alloc_mapped) returned.
    fn free_mapped(&self, host: *mut u8, addr: u64, bytes: usize);
    /// Copies `src` to device address `addr`; returns once it is there
    /// (also while a kernel runs).
    fn write(&self, addr: u64, src: &[u8]) -> Result<()>;
    /// Copies from device address `addr` into `dst`.
    fn read(&self, addr: u64, dst: &mut [u8]) -> Result<()>;
    /// Copies `bytes` between two device addresses and waits.
    fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<()>;
    /// Copies `rows` rows of `width` bytes between device addresses, the
    /// rows `src_pitch` and `dst_pitch` bytes apart, and waits. The GPU
    /// does it in one call (a copy engine walks the rows).
    fn copy_2d(
        &self,
        dst: u64,
        dst_pitch: usize,
        src: u64,
        src_pitch: usize,
        width: usize,
        rows: usize,
    ) -> Result<()> {
        for r in 0..rows {
            self.copy(
                dst + (r * dst_pitch) as u64,
                src + (r * src_pitch) as u64,
                width,
            )?;
        }
        Ok(())
    }
    /// Copies `planes` planes of `rows` rows of `width` bytes between
    /// device addresses (row `r` of plane `p` at `addr + p·plane +
    /// r·pitch` on each side) and waits: a 2D copy a plane here; the GPU
    /// does it in one call where each side's planes are a whole number of
    /// its rows apart.
    fn copy_3d(&self, dst: Planes, src: Planes, (width, rows, planes): Extent3) -> Result<()> {
        copy_by_planes(self, dst, src, (width, rows, planes))
    }
    /// Copies rows of `width` bytes, `pitch` bytes apart from device
    /// address `src` on, into `dst` back to back (`dst.len() / width` rows).
    fn read_2d(&self, src: u64, pitch: usize, width: usize, dst: &mut [u8]) -> Result<()> {
        for (r, row) in dst.chunks_mut(width.max(1)).enumerate() {
            self.read(src + (r * pitch) as u64, row)?;
        }
        Ok(())
    }
    /// Copies `src`, rows of `width` bytes back to back, to rows `pitch`
    /// bytes apart from device address `dst` on.
    fn write_2d(&self, dst: u64, pitch: usize, width: usize, src: &[u8]) -> Result<()> {
        for (r, row) in src.chunks(width.max(1)).enumerate() {
            self.write(dst + (r * pitch) as u64, row)?;
        }
        Ok(())
    }
    /// Raises a `u32` flag in device memory that a running kernel polls.
    fn raise_flag(&self, addr: u64) -> Result<()>;
    /// Waits until all work submitted to the device has finished.
    fn synchronize(&self) -> Result<()>;
    /// Loads a module: its architecture, whether it loaded build-time SASS
    /// (else the PTX, compiled now), and the loaded module.
    fn load(&self, ptx: &Ptx, options: &LoadOptions) -> Result<(u32, bool, Box<dyn LoadedModule>)>;
    /// What another process's device may map of this one's (GPU only).
    fn peers(&self) -> Option<&dyn PeerAccess>;
    /// A new stream: an ordered queue of launches and copies.
    fn stream(&self) -> Result<Box<dyn StreamQueue>>;
    /// This process's NVSHMEM symmetric heap, where every allocation comes
    /// from (`DCUDA_TRANSPORT=nvshmem` on a GPU).
    fn symmetric(&self) -> Option<crate::nvshmem::Symmetric> {
        None
    }
}

/// An ordered queue of launches and copies (a CUDA stream). The GPU runs
/// them asynchronously; the emulator runs each as it is queued, which is
/// one of the orders a stream allows.
pub(crate) trait StreamQueue: Send {
    /// The CUDA stream that launches go to, where there is one.
    fn raw(&self) -> Option<u64>;
    /// Takes a launch started on [`raw`](Self::raw): the GPU reports its
    /// failure at the next synchronisation, the emulator waits for it now.
    fn launched(&self, kernel: &str, launch: Box<dyn Running>) -> Result<()>;
    /// Queues a copy of `bytes` between two device addresses (of device
    /// memory or of mapped host memory).
    fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<()>;
    /// Queues a copy from device address `addr` into `dst` and waits for
    /// the queue.
    fn read(&self, addr: u64, dst: &mut [u8]) -> Result<()>;
    /// Queues a copy of `src` to device address `addr` and waits for the
    /// queue.
    fn write(&self, addr: u64, src: &[u8]) -> Result<()>;
    /// Waits until everything queued has finished.
    fn synchronize(&self) -> Result<()>;
    /// Makes work queued later wait for everything queued on `other` so
    /// far, without waiting on the host.
    fn wait_for(&self, other: &dyn StreamQueue) -> Result<()>;
    /// Queues a copy of planes between device addresses (device memory or
    /// mapped host memory), as [`Device::copy_3d`] describes it, where the
    /// GPU takes it in one call; `false` where it does not (the planes not
    /// a whole number of rows apart, a pitch past the driver's limit), and
    /// then nothing is queued: the caller synchronises and copies with
    /// [`Device::copy_3d`]. The emulator copies at once and answers `true`,
    /// as it runs everything it is given.
    fn copy_3d(&self, _dst: Planes, _src: Planes, _extent: Extent3) -> Result<bool> {
        Ok(false)
    }
}

/// What one thread of a launch runs in the emulator (the GPU runs the PTX).
pub(crate) type Body = Box<dyn Fn() + Send + Sync>;

/// A launch's shape.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    /// Blocks in the grid.
    pub grid: dcuda_device::Dim3,
    /// Threads in a block.
    pub block: dcuda_device::Dim3,
    /// Dynamic shared memory per block.
    pub shared_bytes: u32,
    /// All blocks co-resident, or the launch fails.
    pub cooperative: bool,
    /// A rank kernel: in the emulator, one OS thread per block.
    pub ranks: bool,
    /// The stream to launch on (GPU); `None`: a stream of the launch's own.
    pub stream: Option<u64>,
}

/// A module loaded on its device.
pub(crate) trait LoadedModule: Send + Sync {
    /// Blocks of `threads` threads (and `shared_bytes` of dynamic shared
    /// memory) of `kernel` that fit at once.
    fn max_blocks(&self, kernel: &str, threads: u32, shared_bytes: u32) -> Result<u32>;
    /// Ranks of `threads` threads of `kernel` that fit at once.
    fn max_ranks(&self, kernel: &str, threads: u32) -> Result<u32>;
    /// Why ranks of `threads` threads of `kernel` fit as few times as they
    /// do (registers per thread), where the backend knows; for errors.
    fn fit_hint(&self, _kernel: &str, _threads: u32) -> Option<String> {
        None
    }
    /// The CUDA module handle (GPU only).
    fn raw_module(&self) -> Option<u64> {
        None
    }
    /// Starts `kernel`.
    ///
    /// # Safety
    /// `params` must match the kernel's parameters and stay valid for the
    /// call; the memory they point to must outlive the launch.
    unsafe fn launch(
        &self,
        kernel: &str,
        shape: Shape,
        params: &mut [*mut c_void],
        body: Body,
    ) -> Result<Box<dyn Running>>;
}

/// A running launch.
pub(crate) trait Running: Send {
    /// Whether it has ended (a failed one has ended too).
    fn is_finished(&self) -> bool;
    /// Waits for the end; the fault, if the kernel failed.
    fn wait(&mut self) -> std::result::Result<(), String>;
}

/// What a GPU lets peers of its node map: CUDA IPC.
pub(crate) trait PeerAccess {
    /// The device's PCI bus id.
    fn pci_bus_id(&self) -> Result<String>;
    /// Whether this device can map the memory of the one at `pci_bus_id`.
    fn can_access_peer(&self, pci_bus_id: &str) -> Result<bool>;
    /// An IPC handle of the allocation holding `addr`, and `addr`'s offset.
    fn ipc_export(&self, addr: u64) -> Result<([u8; 64], u64)>;
    /// Maps another process's allocation: its address here and its length
    /// in bytes (as this process's driver or the kernel reports it, not as
    /// the other process said), so that offsets from the other process can
    /// be checked against it.
    fn ipc_open(&self, handle: &[u8; 64]) -> Result<(u64, u64)>;
    /// Unmaps what [`ipc_open`](Self::ipc_open) mapped.
    fn ipc_close(&self, addr: u64);
    /// The GPU at `pci_bus_id` opened in this process (its primary
    /// context), where this process sees it and it is not this device:
    /// copies into its memory through it take its own copy engine and link.
    fn owner(&self, _pci_bus_id: &str) -> Result<Option<std::sync::Arc<dyn Device>>> {
        Ok(None)
    }
}

/// The backend a [`Runtime`](crate::Runtime) runs on.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// A CUDA GPU, through the driver API.
    Gpu,
    /// The CPU emulator: kernels compiled for the host, one OS thread per
    /// emulated GPU thread.
    Emulator,
}

impl fmt::Display for Backend {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Backend::Gpu => "GPU",
            Backend::Emulator => "CPU emulator",
        })
    }
}

/// What the user asked for.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum BackendChoice {
    /// The GPU when a driver and a device are present, else the emulator.
    #[default]
    Auto,
    /// The GPU; an error if there is none.
    Gpu,
    /// The CPU emulator.
    Emulator,
}

impl BackendChoice {
    /// The environment variable that chooses the backend.
    pub const ENV: &'static str = "DCUDA_BACKEND";

    /// Reads [`Self::ENV`]: `auto`, `gpu` or `emulator` (also `cuda`;
    /// `emu`, `cpu`).
    pub fn from_env() -> Result<Option<BackendChoice>> {
        let choices = ["auto", "gpu", "cuda", "emulator", "emu", "cpu"];
        Ok(crate::config::BACKEND.choice(&choices)?.map(|c| match c {
            "auto" => BackendChoice::Auto,
            "gpu" | "cuda" => BackendChoice::Gpu,
            _ => BackendChoice::Emulator,
        }))
    }
}

/// One side of [`Device::copy_3d`]: planes `plane` bytes apart, each of
/// rows `pitch` bytes apart, from device address `addr`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Planes {
    /// The first row of the first plane.
    pub addr: u64,
    /// Bytes from one row to the next.
    pub pitch: usize,
    /// Bytes from one plane to the next.
    pub plane: usize,
}

/// A 3D copy's `(width in bytes, rows, planes)`.
pub(crate) type Extent3 = (usize, usize, usize);

/// [`Device::copy_3d`] as a 2D copy a plane.
pub(crate) fn copy_by_planes<D: Device + ?Sized>(
    device: &D,
    dst: Planes,
    src: Planes,
    (width, rows, planes): Extent3,
) -> Result<()> {
    for p in 0..planes {
        let (d, s) = (
            dst.addr + (p * dst.plane) as u64,
            src.addr + (p * src.plane) as u64,
        );
        device.copy_2d(d, dst.pitch, s, src.pitch, width, rows)?;
    }
    Ok(())
}
