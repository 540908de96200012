//! Launches: configurations, checks, and running kernels.

use crate::backend::{Running, Shape};
use crate::error::{Error, Result};
use crate::module::Module;
use dcuda_device::abi::RankContext;
use dcuda_device::kernel::{Kernel, KernelArgs, RankArgs, RankKernel};
use dcuda_device::Dim3;

/// How to launch a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LaunchConfig {
    /// Blocks in the grid.
    pub grid: Dim3,
    /// Threads in a block.
    pub block: Dim3,
    /// Dynamic shared memory per block in bytes.
    pub shared_mem_bytes: u32,
    /// Launch cooperatively: all blocks are co-resident, or the launch is
    /// rejected. Needed by kernels whose blocks wait on each other.
    pub cooperative: bool,
}

impl LaunchConfig {
    /// A one-dimensional grid of `blocks` blocks of `threads` threads.
    pub fn linear(blocks: u32, threads: u32) -> Self {
        LaunchConfig {
            grid: Dim3::x(blocks),
            block: Dim3::x(threads),
            shared_mem_bytes: 0,
            cooperative: false,
        }
    }

    /// The same configuration, launched cooperatively.
    pub fn cooperative(mut self) -> Self {
        self.cooperative = true;
        self
    }

    fn validate(&self, kernel: &str) -> Result<()> {
        let bad = |reason: String| {
            Err(Error::InvalidLaunch {
                kernel: kernel.into(),
                reason,
            })
        };
        let (g, b) = (self.grid, self.block);
        if g.volume() == 0 || b.volume() == 0 {
            return bad(format!(
                "grid ({},{},{}) and block ({},{},{}) must have no zero dimension",
                g.x, g.y, g.z, b.x, b.y, b.z
            ));
        }
        if b.volume() > 1024 {
            return bad(format!(
                "a block has at most 1024 threads, got {}",
                b.volume()
            ));
        }
        if b.z > 64 || g.y > 65535 || g.z > 65535 || g.x > i32::MAX as u32 {
            return bad(format!(
                "grid ({},{},{}) or block ({},{},{}) exceeds CUDA's per-dimension limits",
                g.x, g.y, g.z, b.x, b.y, b.z
            ));
        }
        Ok(())
    }
}

/// Kernel arguments are raw pointers and plain values that every emulated
/// thread reads; the launch contract makes sharing them sound.
#[derive(Clone, Copy)]
struct AssertSend<T>(T);
// SAFETY: see above.
unsafe impl<T> Send for AssertSend<T> {}
unsafe impl<T> Sync for AssertSend<T> {}

impl Module {
    /// Launches `ranks` ranks of a rank kernel cooperatively with the
    /// runtime context and argument copies at the given device addresses.
    pub(crate) unsafe fn launch_rank_kernel<A: RankArgs>(
        &self,
        kernel: &RankKernel<A>,
        ranks: u32,
        threads: u32,
        (context, args_addr): (u64, u64),
        args: A,
    ) -> Result<Launch> {
        let name = kernel.name();
        self.check_kernel(name)?;
        let (mut context_param, mut args_param) = (context, args_addr);
        let mut params = [
            &mut context_param as *mut u64 as *mut std::ffi::c_void,
            &mut args_param as *mut u64 as *mut std::ffi::c_void,
        ];
        let emulate = kernel.emulate();
        let shared = AssertSend((args, context as usize as *const RankContext));
        let body = Box::new(move || {
            let shared = &shared;
            emulate(shared.0 .1, &shared.0 .0)
        });
        let shape = Shape {
            grid: Dim3::x(ranks),
            block: Dim3::x(threads),
            shared_bytes: 0,
            cooperative: true,
            ranks: true,
            stream: None,
        };
        let running = self.inner.launch(name, shape, &mut params, body)?;
        Ok(Launch::new(name, running))
    }

    /// Launches `kernel` with `args`; returns at once. The launch is
    /// awaited by [`Launch::wait`], or when the handle is dropped.
    ///
    /// # Safety
    /// The kernel dereferences the pointers in `args`: they must be device
    /// addresses (of [`DeviceBuffer`](crate::DeviceBuffer)s or
    /// [`MappedBuffer`](crate::MappedBuffer)s) valid for every access the
    /// kernel makes, and outlive the launch.
    pub unsafe fn launch<A: KernelArgs>(
        &self,
        kernel: &Kernel<A>,
        config: LaunchConfig,
        args: A,
    ) -> Result<Launch> {
        let running = self.start_plain(kernel, config, args, None)?;
        Ok(Launch::new(kernel.name(), running))
    }

    /// Checks a launch and starts it, on `stream` or a stream of its own.
    pub(crate) unsafe fn start_plain<A: KernelArgs>(
        &self,
        kernel: &Kernel<A>,
        config: LaunchConfig,
        mut args: A,
        stream: Option<u64>,
    ) -> Result<Box<dyn Running>> {
        let name = kernel.name();
        self.check_kernel(name)?;
        config.validate(name)?;
        let blocks = config.grid.volume();
        if config.cooperative {
            let max = self.max_coresident_blocks(
                kernel,
                config.block.volume() as u32,
                config.shared_mem_bytes,
            )?;
            if blocks > max as u64 {
                return Err(Error::InvalidLaunch {
                    kernel: name.into(),
                    reason: format!(
                        "cooperative launch of {blocks} blocks of {} threads, but at most {max} can be co-resident",
                        config.block.volume()
                    ),
                });
            }
        }
        let emulate = kernel.emulate();
        let shared = AssertSend(args);
        let body = Box::new(move || {
            let shared = &shared;
            emulate(shared.0)
        });
        let shape = Shape {
            grid: config.grid,
            block: config.block,
            shared_bytes: config.shared_mem_bytes,
            cooperative: config.cooperative,
            ranks: false,
            stream,
        };
        let mut params = args.param_ptrs();
        self.inner.launch(name, shape, params.as_mut_slice(), body)
    }
}

/// A running kernel. Dropping it waits for the kernel to finish.
#[must_use = "a launch runs until waited for; dropping it waits"]
pub struct Launch {
    kernel: String,
    running: Option<Box<dyn Running>>,
}

impl Launch {
    fn new(kernel: &str, running: Box<dyn Running>) -> Launch {
        Launch {
            kernel: kernel.into(),
            running: Some(running),
        }
    }

    /// The kernel's name.
    pub fn kernel(&self) -> &str {
        &self.kernel
    }

    /// Whether the kernel has finished; a fault in it (a device panic, a
    /// trap) is an error as soon as it is seen, so that a run reports it
    /// before anything else (a job's end-of-run sync) rather than after.
    pub fn is_finished(&mut self) -> Result<bool> {
        if self.running.as_ref().is_none_or(|r| r.is_finished()) {
            self.finish()?;
            return Ok(true);
        }
        Ok(false)
    }

    /// Waits for the kernel; a fault in it (a device panic) is an error.
    pub fn wait(mut self) -> Result<()> {
        self.finish()
    }

    fn finish(&mut self) -> Result<()> {
        match self.running.take() {
            None => Ok(()),
            Some(mut r) => r.wait().map_err(|message| Error::KernelFault {
                kernel: self.kernel.clone(),
                message,
            }),
        }
    }
}

impl Drop for Launch {
    fn drop(&mut self) {
        // The kernel may still use buffers the caller is about to free.
        let _ = self.finish();
    }
}
