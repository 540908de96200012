//! PTX modules: the PTX of a kernel crate, loaded on a device.
//!
//! The checks here and in [`crate::launch`] (architecture choice, kernel
//! names, launch shape, co-residency) are shared by both backends, so a
//! program that is rejected on the GPU is rejected the same way on the
//! emulator.

use crate::backend::LoadedModule;
use crate::error::{Error, Result};
use crate::runtime::Runtime;
use dcuda_device::kernel::{Kernel, KernelArgs, RankArgs, RankKernel};
use std::borrow::Cow;
use std::mem::ManuallyDrop;

/// PTX for one kernel crate, one text per architecture, each with the
/// machine code (SASS) that `ptxas` made of it at build time where the
/// build asked for it (`DCUDA_SASS=1`, see `dcuda-builder`).
#[derive(Clone, Debug)]
pub struct Ptx {
    name: String,
    variants: Vec<Variant>,
}

#[derive(Clone, Debug)]
struct Variant {
    arch: u32,
    text: Cow<'static, str>,
    /// A cubin for exactly `arch`; empty: none.
    sass: &'static [u8],
}

/// The variant a device loads: its architecture, its PTX and, where it
/// has SASS the device runs, that.
pub(crate) struct Selected<'a> {
    pub arch: u32,
    pub text: &'a str,
    pub sass: Option<&'static [u8]>,
}

impl Ptx {
    /// PTX (and SASS, where not empty) embedded by
    /// [`include_ptx!`](crate::include_ptx).
    pub fn embedded(
        name: &'static str,
        variants: &'static [(u32, &'static str, &'static [u8])],
    ) -> Ptx {
        Ptx {
            name: name.into(),
            variants: variants
                .iter()
                .map(|&(arch, t, sass)| Variant {
                    arch,
                    text: Cow::Borrowed(t),
                    sass,
                })
                .collect(),
        }
    }

    /// PTX text for architecture `sm_{arch}` from elsewhere (a file, a test).
    pub fn from_text(name: impl Into<String>, arch: u32, text: impl Into<String>) -> Ptx {
        Ptx {
            name: name.into(),
            variants: vec![Variant {
                arch,
                text: Cow::Owned(text.into()),
                sass: &[],
            }],
        }
    }

    /// The module's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// The architectures it holds PTX for, as `major*10+minor`.
    pub fn archs(&self) -> Vec<u32> {
        self.variants.iter().map(|v| v.arch).collect()
    }

    /// The PTX text for `sm_{arch}`.
    pub fn text(&self, arch: u32) -> Option<&str> {
        self.variants
            .iter()
            .find(|v| v.arch == arch)
            .map(|v| &*v.text)
    }

    /// Whether it holds SASS for `sm_{arch}`.
    pub fn has_sass(&self, arch: u32) -> bool {
        self.variants
            .iter()
            .any(|v| v.arch == arch && !v.sass.is_empty())
    }

    /// The newest variant a device of compute capability `cc` runs
    /// (`None`: any, the emulator), with its SASS if the device runs that:
    /// a cubin runs on its own major version at its minor or later.
    pub(crate) fn select(&self, cc: Option<u32>) -> Result<Selected<'_>> {
        self.variants
            .iter()
            .filter(|v| cc.is_none_or(|cc| v.arch <= cc))
            .max_by_key(|v| v.arch)
            .map(|v| Selected {
                arch: v.arch,
                text: &v.text,
                sass: cc
                    .filter(|cc| cc / 10 == v.arch / 10 && !v.sass.is_empty())
                    .map(|_| v.sass),
            })
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

/// A loaded PTX module.
pub struct Module {
    rt: Runtime,
    name: String,
    arch: u32,
    sass: bool,
    kernels: Vec<String>,
    pub(crate) inner: ManuallyDrop<Box<dyn LoadedModule>>,
}

impl Drop for Module {
    fn drop(&mut self) {
        let _turn = self.rt.idle_turn();
        // SAFETY: dropped once, here, and never used again.
        unsafe { ManuallyDrop::drop(&mut self.inner) }
    }
}

/// Where the GPU caches the global loads of a module that name no cache
/// operator (`CU_JIT_CACHE_MODE`, ptxas's `-dlcm`): what a plain
/// dereference of a device pointer in a kernel compiles to.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum LoadCaching {
    /// The compiler's default: in L1 and L2 (`.ca`).
    #[default]
    L1AndL2,
    /// In L2 only (`.cg`): L1 is left to local memory, where a rank
    /// kernel at a register cap keeps part of its state, and to lines
    /// asked for by hand (`prefetch_l1`). For kernels that stream data
    /// they read once or reuse from L2 anyway.
    L2Only,
}

/// How a module is compiled for the GPU when it is loaded. The emulator
/// has no registers or caches and ignores them.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LoadOptions {
    /// The most registers a thread of any kernel of the module may use
    /// (`CU_JIT_MAX_REGISTERS`); `None`: as many as the compiler likes.
    ///
    /// A rank kernel's registers are those of its busiest path, the
    /// runtime's collectives included, so it may use far more than its
    /// compute needs and fit few ranks of many threads at once. A cap
    /// lets more ranks fit; what does not fit in it spills to local
    /// memory, mostly on the runtime's slow paths.
    pub max_registers: Option<u32>,
    /// Where plain global loads are cached; see [`LoadCaching`].
    pub caching: LoadCaching,
}

impl LoadOptions {
    /// Caps the registers per thread (16 to 255).
    pub fn max_registers(mut self, n: u32) -> Self {
        self.max_registers = Some(n);
        self
    }

    /// Caches plain global loads as `caching` says.
    ///
    /// ```
    /// use dcuda::{LoadCaching, LoadOptions};
    /// // A streaming kernel that asks for its own lines in L1.
    /// let options = LoadOptions::default().caching(LoadCaching::L2Only);
    /// assert_eq!(options.caching, LoadCaching::L2Only);
    /// assert_eq!(LoadOptions::default().caching, LoadCaching::L1AndL2);
    /// ```
    pub fn caching(mut self, caching: LoadCaching) -> Self {
        self.caching = caching;
        self
    }

    /// Whether the options ask the driver to compile the PTX (SASS built
    /// ahead takes none of them).
    pub(crate) fn compiles(&self) -> bool {
        *self != Self::default()
    }

    fn validate(&self) -> Result<()> {
        match self.max_registers {
            Some(n) if !(16..=255).contains(&n) => Err(Error::InvalidArgument {
                call: "Runtime::load_with",
                reason: format!("max_registers must be from 16 to 255, got {n}"),
            }),
            _ => Ok(()),
        }
    }
}

impl Runtime {
    /// Loads `ptx`: on a GPU, the newest variant the device runs, from its
    /// build-time SASS where it has SASS the device runs (else the driver
    /// compiles the PTX, which for a large module takes a minute the first
    /// time; the driver caches the result); on the emulator the kernels
    /// run from the host build, and the PTX only tells which kernels the
    /// module has.
    pub fn load(&self, ptx: &Ptx) -> Result<Module> {
        self.load_with(ptx, &LoadOptions::default())
    }

    /// [`load`](Self::load) with options for the GPU's JIT compiler (a
    /// register cap or a caching other than the default compiles the PTX,
    /// even where there is SASS). Both wait
    /// for a running rank kernel of this process to end, as
    /// [`alloc`](Self::alloc) does.
    pub fn load_with(&self, ptx: &Ptx, options: &LoadOptions) -> Result<Module> {
        options.validate()?;
        let (arch, sass, inner) = {
            let _turn = self.idle_turn();
            self.device.load(ptx, options)?
        };
        let text = ptx.text(arch).unwrap_or_default();
        tracing::debug!(module = ptx.name(), arch, sass, "module loaded");
        Ok(Module {
            rt: self.clone(),
            name: ptx.name().into(),
            arch,
            sass,
            kernels: entry_names(text),
            inner: ManuallyDrop::new(inner),
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

    /// Whether the GPU loaded the SASS that `ptxas` made at build time
    /// (no compile at load); false where it compiled the PTX, and on the
    /// emulator.
    pub fn loaded_sass(&self) -> bool {
        self.sass
    }

    /// The kernels the module declares.
    pub fn kernels(&self) -> &[String] {
        &self.kernels
    }

    pub(crate) fn check_kernel(&self, kernel: &str) -> Result<()> {
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
        self.inner
            .max_blocks(kernel.name(), block_threads, shared_mem_bytes)
    }

    /// How many ranks of `threads_per_rank` threads can be co-resident: the
    /// most a rank launch may have (GPU: occupancy times multiprocessors;
    /// emulator: its rank limit, one OS thread per rank).
    pub fn max_ranks<A: RankArgs>(
        &self,
        kernel: &RankKernel<A>,
        threads_per_rank: u32,
    ) -> Result<u32> {
        self.check_kernel(kernel.name())?;
        self.inner.max_ranks(kernel.name(), threads_per_rank)
    }

    /// Why `kernel`'s ranks fit as few times as they do, for errors.
    pub(crate) fn fit_hint(&self, kernel: &str, threads_per_rank: u32) -> String {
        match self.inner.fit_hint(kernel, threads_per_rank) {
            Some(hint) => format!(" ({hint})"),
            None => String::new(),
        }
    }

    /// The runtime the module was loaded into.
    pub fn runtime(&self) -> &Runtime {
        &self.rt
    }
}
