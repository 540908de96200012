//! The runtime: one device, chosen at start.

use crate::backend::{Backend, BackendChoice};
use crate::emu::EmuDevice;
use crate::error::{Error, Result};
use crate::gpu::GpuDevice;
use crate::network::Job;
use std::sync::Arc;

/// The device behind a runtime; every operation dispatches on it.
pub(crate) enum Device {
    Gpu(GpuDevice),
    Emulator(EmuDevice),
}

/// What the runtime runs on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceInfo {
    /// The backend.
    pub backend: Backend,
    /// The device's name.
    pub name: String,
    /// Device ordinal (0 for the emulator).
    pub ordinal: usize,
    /// Compute capability as `major*10+minor` (`None` for the emulator).
    pub compute_capability: Option<u32>,
    /// Streaming multiprocessors (emulator: the host's cores).
    pub multiprocessors: u32,
}

/// A dcuda runtime bound to one device. Cheap to clone.
#[derive(Clone)]
pub struct Runtime {
    pub(crate) device: Arc<Device>,
    info: DeviceInfo,
    job: Option<Job>,
}

/// Configures a [`Runtime`].
///
/// Precedence: an explicit [`backend`](Self::backend) call, then
/// `DCUDA_BACKEND`, then automatic choice. Likewise for the device ordinal
/// and `DCUDA_DEVICE`.
#[derive(Clone, Debug, Default)]
pub struct RuntimeBuilder {
    backend: Option<BackendChoice>,
    device: Option<usize>,
    emulator_threads: Option<usize>,
    emulator_ranks: Option<usize>,
    quiet: bool,
}

impl RuntimeBuilder {
    /// Forces a backend (overrides `DCUDA_BACKEND`).
    pub fn backend(mut self, choice: BackendChoice) -> Self {
        self.backend = Some(choice);
        self
    }

    /// Selects the GPU by ordinal (overrides `DCUDA_DEVICE`; default 0).
    pub fn device(mut self, ordinal: usize) -> Self {
        self.device = Some(ordinal);
        self
    }

    /// The most OS threads the emulator runs at once: the emulator's
    /// co-residency limit (default [`EmuDevice::DEFAULT_THREADS`], or
    /// `DCUDA_EMULATOR_THREADS`).
    pub fn emulator_threads(mut self, threads: usize) -> Self {
        self.emulator_threads = Some(threads.max(1));
        self
    }

    /// The most ranks the emulator runs at once, one OS thread each: what
    /// "as many ranks as fit" means there (default
    /// [`EmuDevice::DEFAULT_RANKS`], or `DCUDA_EMULATOR_RANKS`).
    pub fn emulator_ranks(mut self, ranks: usize) -> Self {
        self.emulator_ranks = Some(ranks.max(1));
        self
    }

    /// Do not print the backend choice.
    pub fn quiet(mut self) -> Self {
        self.quiet = true;
        self
    }

    /// Opens the device.
    pub fn build(self) -> Result<Runtime> {
        let (choice, source) = match self.backend {
            Some(c) => (c, "by the program"),
            None => match BackendChoice::from_env()? {
                Some(c) => (c, "by DCUDA_BACKEND"),
                None => (BackendChoice::Auto, "automatically"),
            },
        };
        let job = crate::network::job()?;
        // One process per GPU: the node-local index picks it.
        let local = job.as_ref().map_or(0, |j| j.local_index as usize);
        let ordinal = match self.device {
            Some(d) => d,
            None => env_usize("DCUDA_DEVICE", "a device ordinal (0, 1, ...)")?.unwrap_or(local),
        };
        let emulator_threads = match self.emulator_threads {
            Some(t) => t,
            None => env_usize("DCUDA_EMULATOR_THREADS", "a thread count")?
                .unwrap_or(EmuDevice::DEFAULT_THREADS)
                .max(1),
        };
        let emulator_ranks = match self.emulator_ranks {
            Some(r) => r,
            None => env_usize("DCUDA_EMULATOR_RANKS", "a rank count")?
                .unwrap_or(EmuDevice::DEFAULT_RANKS)
                .max(1),
        };
        let emulator = || Device::Emulator(EmuDevice::new(emulator_threads, emulator_ranks));
        let (device, why) = match choice {
            BackendChoice::Gpu => (Device::Gpu(GpuDevice::open(ordinal)?), String::new()),
            BackendChoice::Emulator => (emulator(), String::new()),
            BackendChoice::Auto => match GpuDevice::open(ordinal) {
                Ok(gpu) => (Device::Gpu(gpu), String::new()),
                Err(e) => (emulator(), format!(" ({})", no_gpu_reason(&e))),
            },
        };
        let info = match &device {
            Device::Gpu(g) => g.info(),
            Device::Emulator(e) => e.info(),
        };
        if !self.quiet {
            let detail = match info.compute_capability {
                Some(cc) => format!(
                    "device {}: {} (sm_{cc}, {} SMs)",
                    info.ordinal, info.name, info.multiprocessors
                ),
                None => info.name.clone(),
            };
            eprintln!(
                "dcuda: {} backend, {detail}, chosen {source}{why}",
                info.backend
            );
        }
        if let Some(j) = &job {
            if !self.quiet {
                eprintln!(
                    "dcuda: process {} of {} (node {} of {}, {} of {} on it), network {}",
                    j.process(),
                    j.processes(),
                    j.node(),
                    j.nodes(),
                    j.local_index,
                    j.local_count,
                    j.net.name()
                );
            }
        }
        Ok(Runtime {
            device: Arc::new(device),
            info,
            job,
        })
    }
}

fn no_gpu_reason(e: &Error) -> String {
    match e {
        Error::NoDriver => "no CUDA driver found".into(),
        Error::NoDevice { .. } => "no CUDA device found".into(),
        other => format!("GPU unusable: {other}"),
    }
}

fn env_usize(var: &'static str, expected: &'static str) -> Result<Option<usize>> {
    match std::env::var(var) {
        Err(_) => Ok(None),
        Ok(v) if v.trim().is_empty() => Ok(None),
        Ok(v) => v.trim().parse().map(Some).map_err(|_| Error::InvalidEnv {
            var,
            value: v,
            expected,
        }),
    }
}

impl Runtime {
    /// A runtime with the default configuration (see [`RuntimeBuilder`]).
    pub fn new() -> Result<Runtime> {
        Self::builder().build()
    }

    /// A builder.
    pub fn builder() -> RuntimeBuilder {
        RuntimeBuilder::default()
    }

    /// The backend in use.
    pub fn backend(&self) -> Backend {
        self.info.backend
    }

    /// The device in use.
    pub fn device_info(&self) -> &DeviceInfo {
        &self.info
    }

    /// Copies `bytes.len()` bytes from the device address `addr` (while a
    /// kernel may run).
    pub(crate) fn read_device(&self, addr: u64, bytes: &mut [u8]) -> Result<()> {
        match &*self.device {
            Device::Gpu(g) => g.copy_to_host(bytes.as_mut_ptr(), addr, bytes.len()),
            // SAFETY: emulated device memory is host memory; the caller
            // checked the range.
            Device::Emulator(_) => unsafe {
                std::ptr::copy(addr as usize as *const u8, bytes.as_mut_ptr(), bytes.len());
                Ok(())
            },
        }
    }

    /// Copies `bytes` to the device address `addr` (while a kernel may run).
    pub(crate) fn write_device(&self, addr: u64, bytes: &[u8]) -> Result<()> {
        match &*self.device {
            Device::Gpu(g) => g.copy_to_device(addr, bytes.as_ptr(), bytes.len()),
            // SAFETY: as in read_device.
            Device::Emulator(_) => unsafe {
                std::ptr::copy(bytes.as_ptr(), addr as usize as *mut u8, bytes.len());
                Ok(())
            },
        }
    }

    /// The GPU, if this runtime runs on one.
    pub(crate) fn gpu(&self) -> Option<&GpuDevice> {
        match &*self.device {
            Device::Gpu(g) => Some(g),
            Device::Emulator(_) => None,
        }
    }

    /// The job of several processes this process belongs to, if any.
    pub fn job(&self) -> Option<&Job> {
        self.job.as_ref()
    }

    /// Waits until all work submitted to the device has finished.
    pub fn synchronize(&self) -> Result<()> {
        match &*self.device {
            Device::Gpu(g) => g.synchronize(),
            Device::Emulator(_) => Ok(()),
        }
    }
}
