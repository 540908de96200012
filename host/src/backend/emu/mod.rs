//! The CPU emulator backend: "device memory" is host memory, and a launch
//! runs the kernel compiled for the host: a raw kernel's every GPU thread as
//! an OS thread, a rank kernel's every rank as an OS thread whose GPU
//! threads are coroutines (see `dcuda_device::arch::emu` and `lanes`).
//!
//! Blocks of a normal launch run in waves of as many as fit in the
//! emulator's thread limit, as a GPU runs blocks that do not fit
//! co-resident later; a cooperative launch runs all blocks at once and is
//! rejected if they do not fit, as on a GPU.

mod ipc;

use super::{Body, Device, Extent3, LoadedModule, PeerAccess, Planes, Running, Shape, StreamQueue};
use crate::backend::Backend;
use crate::error::{Error, Result};
use crate::module::{LoadOptions, Ptx};
use crate::runtime::DeviceInfo;
use dcuda_device::arch::emu::{self as ctx, Aborted, BlockContext, LaunchContext, ThreadContext};
use dcuda_device::Dim3;
use std::alloc::Layout;
use std::ffi::c_void;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::thread::JoinHandle;

/// Alignment of emulated device allocations, as `cudaMalloc` gives.
const ALIGN: usize = 256;
/// Stack of each emulated thread; kernels use little stack.
const THREAD_STACK: usize = 256 * 1024;

#[derive(Clone, Copy)]
pub(crate) struct EmuDevice {
    max_threads: usize,
    max_ranks: usize,
    /// Allocations other emulator processes of the host can map
    /// (`DCUDA_EMULATOR_IPC`, [`ipc`]).
    ipc: bool,
}

/// An aborted run ends its emulated threads by unwinding with [`Aborted`]:
/// that is no panic to print. Every other panic goes to the previous hook.
fn quiet_aborts() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if !info.payload().is::<Aborted>() {
                previous(info)
            }
        }));
    });
}

impl EmuDevice {
    /// The default co-residency limit in threads.
    pub const DEFAULT_THREADS: usize = 4096;
    /// The default number of ranks a rank kernel gets, each an OS thread.
    pub const DEFAULT_RANKS: usize = 64;

    pub fn new(max_threads: usize, max_ranks: usize, ipc: bool) -> Self {
        quiet_aborts();
        EmuDevice {
            max_threads,
            max_ranks,
            ipc,
        }
    }

    fn max_coresident_blocks(&self, block_threads: u32) -> u32 {
        (self.max_threads / block_threads.max(1) as usize) as u32
    }

    /// One OS thread runs a whole rank; at most `max_ranks` at once.
    fn max_coresident_ranks(&self) -> u32 {
        self.max_ranks.min(self.max_threads) as u32
    }

    fn layout(bytes: usize, call: &'static str) -> Result<Layout> {
        Layout::from_size_align(bytes.max(1), ALIGN).map_err(|e| Error::Alloc {
            call,
            bytes,
            reason: e.to_string(),
        })
    }
}

impl Device for EmuDevice {
    fn info(&self) -> DeviceInfo {
        DeviceInfo {
            backend: Backend::Emulator,
            name: format!(
                "{} threads, {} ranks at once",
                self.max_threads,
                self.max_coresident_ranks()
            ),
            ordinal: 0,
            compute_capability: None,
            multiprocessors: std::thread::available_parallelism()
                .map(|n| n.get() as u32)
                .unwrap_or(1),
        }
    }

    fn alloc(&self, bytes: usize) -> Result<u64> {
        if self.ipc {
            return ipc::alloc(bytes);
        }
        let layout = Self::layout(bytes, "alloc")?;
        // SAFETY: non-zero size.
        let p = unsafe { std::alloc::alloc_zeroed(layout) };
        if p.is_null() {
            return Err(Error::Alloc {
                call: "alloc",
                bytes,
                reason: "out of host memory".into(),
            });
        }
        Ok(p as usize as u64)
    }

    fn free(&self, addr: u64, bytes: usize) {
        if self.ipc {
            // Every allocation came from `ipc::alloc`: never hand one to
            // the global allocator.
            ipc::free(addr);
            return;
        }
        if let Ok(layout) = Self::layout(bytes, "free") {
            // SAFETY: allocated by `alloc` with this layout.
            unsafe { std::alloc::dealloc(addr as usize as *mut u8, layout) }
        }
    }

    fn alloc_mapped(&self, bytes: usize) -> Result<(*mut u8, u64)> {
        let a = self.alloc(bytes)?;
        Ok((a as usize as *mut u8, a))
    }

    fn free_mapped(&self, _host: *mut u8, addr: u64, bytes: usize) {
        self.free(addr, bytes)
    }

    // Emulated device memory is host memory; the callers checked the ranges.
    fn write(&self, addr: u64, src: &[u8]) -> Result<()> {
        // SAFETY: see above; a kernel may read it concurrently, as on a GPU.
        unsafe { std::ptr::copy(src.as_ptr(), addr as usize as *mut u8, src.len()) };
        Ok(())
    }

    fn read(&self, addr: u64, dst: &mut [u8]) -> Result<()> {
        // SAFETY: as in write.
        unsafe { std::ptr::copy(addr as usize as *const u8, dst.as_mut_ptr(), dst.len()) };
        Ok(())
    }

    fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        // SAFETY: as in write.
        unsafe { std::ptr::copy(src as usize as *const u8, dst as usize as *mut u8, bytes) };
        Ok(())
    }

    fn raise_flag(&self, addr: u64) -> Result<()> {
        // SAFETY: a u32 flag in emulated device memory, polled atomically.
        unsafe { AtomicU32::from_ptr(addr as usize as *mut u32).store(1, Ordering::Release) };
        Ok(())
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    /// The kernels run from the host build; the PTX only tells which
    /// kernels the module has.
    fn load(
        &self,
        ptx: &Ptx,
        _options: &LoadOptions,
    ) -> Result<(u32, bool, Box<dyn LoadedModule>)> {
        let arch = ptx.select(None)?.arch;
        Ok((arch, false, Box::new(*self)))
    }

    fn peers(&self) -> Option<&dyn PeerAccess> {
        self.ipc.then_some(self as &dyn PeerAccess)
    }

    fn stream(&self) -> Result<Box<dyn StreamQueue>> {
        Ok(Box::new(EmuStream(*self)))
    }
}

/// A stream in the emulator: each launch and copy runs as it is queued,
/// one of the orders a stream allows.
struct EmuStream(EmuDevice);

impl StreamQueue for EmuStream {
    fn raw(&self) -> Option<u64> {
        None
    }

    fn launched(&self, kernel: &str, mut launch: Box<dyn Running>) -> Result<()> {
        launch.wait().map_err(|message| Error::KernelFault {
            kernel: kernel.into(),
            message,
        })
    }

    fn copy(&self, dst: u64, src: u64, bytes: usize) -> Result<()> {
        self.0.copy(dst, src, bytes)
    }

    fn read(&self, addr: u64, dst: &mut [u8]) -> Result<()> {
        self.0.read(addr, dst)
    }

    fn write(&self, addr: u64, src: &[u8]) -> Result<()> {
        self.0.write(addr, src)
    }

    fn synchronize(&self) -> Result<()> {
        Ok(())
    }

    fn wait_for(&self, _other: &dyn StreamQueue) -> Result<()> {
        // The other stream's work ran as it was queued: it is done.
        Ok(())
    }

    fn copy_3d(&self, dst: Planes, src: Planes, extent: Extent3) -> Result<bool> {
        // Taken as queued (it runs now), so that the callers' bookkeeping
        // of queued copies runs here as on a GPU.
        self.0.copy_3d(dst, src, extent)?;
        Ok(true)
    }
}

impl LoadedModule for EmuDevice {
    fn max_blocks(&self, _kernel: &str, threads: u32, _shared_bytes: u32) -> Result<u32> {
        Ok(self.max_coresident_blocks(threads))
    }

    fn max_ranks(&self, _kernel: &str, threads: u32) -> Result<u32> {
        // Each thread of a rank is a coroutine with a mapped stack and a
        // guard page: two memory maps, of Linux's default 65530 a process.
        const LANES: u32 = 16384;
        Ok(self.max_coresident_ranks().min(LANES / threads.max(1)))
    }

    /// Raw kernels: one OS thread per GPU thread. Rank kernels: one OS
    /// thread per rank, all at once, running the rank's threads as
    /// coroutines.
    unsafe fn launch(
        &self,
        _kernel: &str,
        shape: Shape,
        _params: &mut [*mut c_void],
        body: Body,
    ) -> Result<Box<dyn Running>> {
        let grid = Grid {
            grid: shape.grid,
            block: shape.block,
            os_threads: if shape.ranks { Dim3::x(1) } else { shape.block },
            ranks: shape.ranks,
        };
        let max_threads = self.max_threads;
        let cooperative = shape.cooperative || shape.ranks;
        let handle = std::thread::Builder::new()
            .name("dcuda-emu-grid".into())
            .spawn(move || run_grid(&*body, grid, cooperative, max_threads))
            .map_err(|e| e.to_string());
        Ok(Box::new(EmuLaunch {
            handle: Some(handle),
        }))
    }
}

/// What a launch looks like to the emulator.
#[derive(Clone, Copy)]
struct Grid {
    grid: Dim3,
    /// The block as the kernel sees it (`%ntid`).
    block: Dim3,
    /// OS threads per block: the block for raw kernels, one for a rank.
    os_threads: Dim3,
    /// Rank kernel: threads start in uniform code (no thread index).
    ranks: bool,
}

fn indices(d: Dim3) -> impl Iterator<Item = Dim3> {
    (0..d.z).flat_map(move |z| (0..d.y).flat_map(move |y| (0..d.x).map(move |x| Dim3 { x, y, z })))
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s.to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "panic with a non-string payload".into()
    }
}

fn run_grid(
    body: &(dyn Fn() + Sync),
    shape: Grid,
    cooperative: bool,
    max_threads: usize,
) -> Result<(), String> {
    let per_block = shape.os_threads.volume() as usize;
    let blocks: Vec<Dim3> = indices(shape.grid).collect();
    let wave = if cooperative {
        blocks.len()
    } else {
        (max_threads / per_block).max(1)
    };
    let launch = LaunchContext::new();
    let failure: Mutex<Option<String>> = Mutex::new(None);
    let fail = |msg: String| {
        let mut f = failure.lock().unwrap_or_else(|e| e.into_inner());
        f.get_or_insert(msg);
        launch.abort();
    };
    for chunk in blocks.chunks(wave) {
        std::thread::scope(|s| {
            for &block_idx in chunk {
                let block_ctx = BlockContext::new(per_block);
                for thread_idx in indices(shape.os_threads) {
                    let tc = ThreadContext {
                        thread_idx: (!shape.ranks).then_some(thread_idx),
                        block_idx,
                        block_dim: shape.block,
                        grid_dim: shape.grid,
                        block: block_ctx.clone(),
                        launch: launch.clone(),
                    };
                    let fail = &fail;
                    let spawned = std::thread::Builder::new()
                        .stack_size(THREAD_STACK)
                        .spawn_scoped(s, move || {
                            let r = catch_unwind(AssertUnwindSafe(|| ctx::enter(tc, body)));
                            if let Err(payload) = r {
                                if !payload.is::<Aborted>() {
                                    let who = if shape.ranks {
                                        format!("rank {}", block_idx.x)
                                    } else {
                                        format!(
                                            "block ({},{},{}) thread ({},{},{})",
                                            block_idx.x,
                                            block_idx.y,
                                            block_idx.z,
                                            thread_idx.x,
                                            thread_idx.y,
                                            thread_idx.z
                                        )
                                    };
                                    fail(format!("{who} panicked: {}", panic_message(&*payload)));
                                }
                            }
                        });
                    if let Err(e) = spawned {
                        fail(format!("the emulator could not start a thread: {e}"));
                        return;
                    }
                }
            }
        });
        if launch.is_aborted() {
            break;
        }
    }
    match failure.into_inner().unwrap_or_else(|e| e.into_inner()) {
        Some(msg) => Err(msg),
        None => Ok(()),
    }
}

/// A grid running on the emulator.
struct EmuLaunch {
    handle: Option<std::result::Result<JoinHandle<Result<(), String>>, String>>,
}

impl Running for EmuLaunch {
    fn wait(&mut self) -> Result<(), String> {
        match self.handle.take() {
            None => Ok(()),
            Some(Err(e)) => Err(format!("the emulator could not start the grid: {e}")),
            Some(Ok(h)) => h.join().unwrap_or_else(|p| Err(panic_message(&*p))),
        }
    }

    fn is_finished(&self) -> bool {
        match &self.handle {
            Some(Ok(h)) => h.is_finished(),
            _ => true,
        }
    }
}
