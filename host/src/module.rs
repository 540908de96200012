//! PTX modules, launch configurations and running launches.
//!
//! The checks here (architecture choice, kernel names, launch shape,
//! co-residency) are shared by both backends, so a program that is rejected
//! on the GPU is rejected the same way on the emulator.

use crate::emu::EmuLaunch;
use crate::error::{Error, Result};
use crate::gpu::{GpuLaunch, GpuModule};
use crate::runtime::{Device, Runtime};
use dcuda_device::kernel::{Kernel, KernelArgs, RankArgs, RankKernel};
use dcuda_device::rank::RankContext;
use dcuda_device::Dim3;
use std::borrow::Cow;

/// PTX for one kernel crate, one text per architecture.
#[derive(Clone, Debug)]
pub struct Ptx {
    name: String,
    variants: Vec<(u32, Cow<'static, str>)>,
}

impl Ptx {
    /// PTX embedded by [`include_ptx!`](crate::include_ptx).
    pub fn embedded(name: &'static str, variants: &'static [(u32, &'static str)]) -> Ptx {
        Ptx {
            name: name.into(),
            variants: variants
                .iter()
                .map(|&(a, t)| (a, Cow::Borrowed(t)))
                .collect(),
        }
    }

    /// PTX text for architecture `sm_{arch}` from elsewhere (a file, a test).
    pub fn from_text(name: impl Into<String>, arch: u32, text: impl Into<String>) -> Ptx {
        Ptx {
            name: name.into(),
            variants: vec![(arch, Cow::Owned(text.into()))],
        }
    }

    /// The module's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The architectures it holds PTX for, as `major*10+minor`.
    pub fn archs(&self) -> Vec<u32> {
        self.variants.iter().map(|v| v.0).collect()
    }

    /// The PTX text for `sm_{arch}`.
    pub fn text(&self, arch: u32) -> Option<&str> {
        self.variants.iter().find(|v| v.0 == arch).map(|v| &*v.1)
    }

    /// The newest variant a device of compute capability `cc` runs
    /// (`None`: any, the emulator).
    fn select(&self, cc: Option<u32>) -> Result<(u32, &str)> {
        self.variants
            .iter()
            .filter(|(a, _)| cc.is_none_or(|cc| *a <= cc))
            .max_by_key(|(a, _)| *a)
            .map(|(a, t)| (*a, &**t))
            .ok_or_else(|| Error::PtxArch {
                module: self.name.clone(),
                available: self
                    .archs()
                    .iter()
                    .map(|a| format!("sm_{a}"))
                    .collect::<Vec<_>>()
                    .join(", "),
                device: cc.unwrap_or(0),
            })
    }
}

/// The kernel entry points a PTX text declares.
fn entry_names(ptx: &str) -> Vec<String> {
    ptx.lines()
        .filter_map(|l| l.split_once(".entry "))
        .filter_map(|(_, rest)| rest.split('(').next())
        .map(|name| name.trim().to_string())
        .collect()
}

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

enum ModuleInner {
    Gpu(GpuModule),
    Emulator,
}

/// A loaded PTX module.
pub struct Module {
    rt: Runtime,
    name: String,
    arch: u32,
    kernels: Vec<String>,
    inner: ModuleInner,
}

impl Runtime {
    /// Loads `ptx`: on a GPU, the newest variant the device runs; on the
    /// emulator the kernels run from the host build, and the PTX only tells
    /// which kernels the module has.
    pub fn load(&self, ptx: &Ptx) -> Result<Module> {
        let cc = match &*self.device {
            Device::Gpu(g) => Some(g.compute_capability()),
            Device::Emulator(_) => None,
        };
        let (arch, text) = ptx.select(cc)?;
        let inner = match &*self.device {
            Device::Gpu(g) => ModuleInner::Gpu(g.load_module(ptx.name(), arch, text)?),
            Device::Emulator(_) => ModuleInner::Emulator,
        };
        Ok(Module {
            rt: self.clone(),
            name: ptx.name().into(),
            arch,
            kernels: entry_names(text),
            inner,
        })
    }
}

impl Module {
    /// The module's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The architecture of the loaded PTX variant.
    pub fn arch(&self) -> u32 {
        self.arch
    }

    /// The kernels the module declares.
    pub fn kernels(&self) -> &[String] {
        &self.kernels
    }

    fn check_kernel(&self, kernel: &str) -> Result<()> {
        if self.kernels.iter().any(|k| k == kernel) {
            Ok(())
        } else {
            Err(Error::KernelNotFound {
                module: self.name.clone(),
                kernel: kernel.into(),
                available: self.kernels.join(", "),
            })
        }
    }

    /// How many blocks of `block_threads` threads (and `shared_mem_bytes` of
    /// dynamic shared memory) of `kernel` can be resident at once: the
    /// largest cooperative grid.
    pub fn max_coresident_blocks<A: KernelArgs>(
        &self,
        kernel: &Kernel<A>,
        block_threads: u32,
        shared_mem_bytes: u32,
    ) -> Result<u32> {
        self.check_kernel(kernel.name())?;
        match (&*self.rt.device, &self.inner) {
            (Device::Gpu(g), ModuleInner::Gpu(m)) => {
                let f = g.function(m, kernel.name())?;
                g.max_coresident_blocks(f, block_threads, shared_mem_bytes)
            }
            (Device::Emulator(e), _) => Ok(e.max_coresident_blocks(block_threads)),
            _ => unreachable!("a module belongs to its runtime's backend"),
        }
    }

    /// How many ranks of `threads_per_rank` threads can be co-resident: the
    /// most a rank launch may have (GPU: occupancy times multiprocessors;
    /// emulator: its thread limit, one OS thread per rank).
    pub fn max_ranks<A: RankArgs>(
        &self,
        kernel: &RankKernel<A>,
        threads_per_rank: u32,
    ) -> Result<u32> {
        self.check_kernel(kernel.name())?;
        match (&*self.rt.device, &self.inner) {
            (Device::Gpu(g), ModuleInner::Gpu(m)) => {
                let f = g.function(m, kernel.name())?;
                g.max_coresident_blocks(f, threads_per_rank, 0)
            }
            (Device::Emulator(e), _) => Ok(e.max_coresident_ranks()),
            _ => unreachable!("a module belongs to its runtime's backend"),
        }
    }

    /// The runtime the module was loaded into.
    pub fn runtime(&self) -> &Runtime {
        &self.rt
    }

    /// Launches `ranks` ranks of a rank kernel cooperatively with the
    /// runtime context and argument copies at the given device addresses.
    pub(crate) unsafe fn launch_rank_kernel<A: RankArgs>(
        &self,
        kernel: &RankKernel<A>,
        ranks: u32,
        threads: u32,
        context: u64,
        args_addr: u64,
        args: A,
    ) -> Result<Launch> {
        let name = kernel.name();
        self.check_kernel(name)?;
        let inner = match (&*self.rt.device, &self.inner) {
            (Device::Gpu(g), ModuleInner::Gpu(m)) => {
                let f = g.function(m, name)?;
                let (mut context, mut args_ptr) = (context, args_addr);
                let mut params = [
                    &mut context as *mut u64 as *mut std::ffi::c_void,
                    &mut args_ptr as *mut u64 as *mut std::ffi::c_void,
                ];
                LaunchInner::Gpu(g.launch(
                    f,
                    (ranks, 1, 1),
                    (threads, 1, 1),
                    0,
                    true,
                    &mut params,
                )?)
            }
            (Device::Emulator(e), _) => LaunchInner::Emulator(e.launch_ranks(
                kernel.emulate(),
                args,
                ranks,
                threads,
                context as usize as *const RankContext,
            )),
            _ => unreachable!("a module belongs to its runtime's backend"),
        };
        Ok(Launch {
            rt: self.rt.clone(),
            kernel: name.into(),
            inner: Some(inner),
        })
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
        mut args: A,
    ) -> Result<Launch> {
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
        let inner = match (&*self.rt.device, &self.inner) {
            (Device::Gpu(g), ModuleInner::Gpu(m)) => {
                if config.cooperative && !g.supports_cooperative_launch() {
                    return Err(Error::InvalidLaunch {
                        kernel: name.into(),
                        reason: "the device does not support cooperative launches".into(),
                    });
                }
                let f = g.function(m, name)?;
                let dim = |d: Dim3| (d.x, d.y, d.z);
                let mut params = args.param_ptrs();
                LaunchInner::Gpu(g.launch(
                    f,
                    dim(config.grid),
                    dim(config.block),
                    config.shared_mem_bytes,
                    config.cooperative,
                    &mut params,
                )?)
            }
            (Device::Emulator(e), _) => LaunchInner::Emulator(e.launch(
                kernel.emulate(),
                args,
                config.grid,
                config.block,
                config.cooperative,
            )),
            _ => unreachable!("a module belongs to its runtime's backend"),
        };
        Ok(Launch {
            rt: self.rt.clone(),
            kernel: name.into(),
            inner: Some(inner),
        })
    }
}

impl Drop for Module {
    fn drop(&mut self) {
        if let (Device::Gpu(g), ModuleInner::Gpu(m)) = (&*self.rt.device, &self.inner) {
            g.unload(m);
        }
    }
}

enum LaunchInner {
    Gpu(GpuLaunch),
    Emulator(EmuLaunch),
}

/// A running kernel. Dropping it waits for the kernel to finish.
#[must_use = "a launch runs until waited for; dropping it waits"]
pub struct Launch {
    rt: Runtime,
    kernel: String,
    inner: Option<LaunchInner>,
}

impl Launch {
    /// The kernel's name.
    pub fn kernel(&self) -> &str {
        &self.kernel
    }

    /// Whether the kernel has finished.
    pub fn is_finished(&self) -> Result<bool> {
        match (&*self.rt.device, &self.inner) {
            (_, None) => Ok(true),
            // A failed kernel has finished too; `wait` reports the failure.
            (Device::Gpu(g), Some(LaunchInner::Gpu(l))) => Ok(g.is_finished(l).unwrap_or(true)),
            (_, Some(LaunchInner::Emulator(l))) => Ok(l.is_finished()),
            _ => unreachable!("a launch belongs to its runtime's backend"),
        }
    }

    /// Waits for the kernel; a fault in it (a device panic) is an error.
    pub fn wait(mut self) -> Result<()> {
        self.finish()
    }

    fn finish(&mut self) -> Result<()> {
        let fault = |message: String| Error::KernelFault {
            kernel: self.kernel.clone(),
            message,
        };
        match (&*self.rt.device, self.inner.take()) {
            (_, None) => Ok(()),
            (Device::Gpu(g), Some(LaunchInner::Gpu(mut l))) => g.wait(&mut l).map_err(|e| {
                g.mark_lost(&self.kernel, &e);
                fault(e.to_string())
            }),
            (_, Some(LaunchInner::Emulator(mut l))) => l.wait().map_err(fault),
            _ => unreachable!("a launch belongs to its runtime's backend"),
        }
    }
}

impl Drop for Launch {
    fn drop(&mut self) {
        // The kernel may still use buffers the caller is about to free.
        let _ = self.finish();
    }
}
