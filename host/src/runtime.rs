//! The runtime: one device, chosen at start.

use crate::backend::emu::EmuDevice;
use crate::backend::gpu::GpuDevice;
use crate::backend::{Backend, BackendChoice, Device};
use crate::error::{Error, Result};
use crate::transport::{Job, TransportChoice};
use std::sync::Arc;

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
    pub(crate) device: Arc<dyn Device>,
    info: DeviceInfo,
    chosen: String,
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
    transport: Option<TransportChoice>,
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
    /// co-residency limit (default 4096, or
    /// `DCUDA_EMULATOR_THREADS`).
    pub fn emulator_threads(mut self, threads: usize) -> Self {
        self.emulator_threads = Some(threads.max(1));
        self
    }

    /// The most ranks the emulator runs at once, one OS thread each: what
    /// "as many ranks as fit" means there (default 64, or
    /// `DCUDA_EMULATOR_RANKS`).
    pub fn emulator_ranks(mut self, ranks: usize) -> Self {
        self.emulator_ranks = Some(ranks.max(1));
        self
    }

    /// The transport between the processes of a job (overrides
    /// `DCUDA_TRANSPORT`): by name, or an instance of your own.
    pub fn transport(mut self, choice: TransportChoice) -> Self {
        self.transport = Some(choice);
        self
    }

    /// Do not print the backend choice.
    pub fn quiet(mut self) -> Self {
        self.quiet = true;
        self
    }

    /// Opens the device. In a job, a failure here is recorded: the job is
    /// aborted at exit, and the other processes are told why.
    pub fn build(self) -> Result<Runtime> {
        crate::transport::noted(self.open())
    }

    fn open(self) -> Result<Runtime> {
        let (choice, source) = match self.backend {
            Some(c) => (c, "by the program"),
            None => match BackendChoice::from_env()? {
                Some(c) => (c, "by DCUDA_BACKEND"),
                None => (BackendChoice::Auto, "automatically"),
            },
        };
        let job = crate::transport::job(self.transport)?;
        let ordinal = match self.device {
            Some(d) => d,
            None => match crate::config::DEVICE.number(false)? {
                Some(d) => d,
                None => default_ordinal(job.as_ref(), GpuDevice::visible())?,
            },
        };
        let emulator_threads = match self.emulator_threads {
            Some(t) => t,
            None => crate::config::EMULATOR_THREADS
                .number(true)?
                .unwrap_or(EmuDevice::DEFAULT_THREADS)
                .max(1),
        };
        let emulator_ranks = match self.emulator_ranks {
            Some(r) => r,
            None => crate::config::EMULATOR_RANKS
                .number(true)?
                .unwrap_or(EmuDevice::DEFAULT_RANKS)
                .max(1),
        };
        let emulator_ipc = crate::config::EMULATOR_IPC.switch()?.unwrap_or(false);
        let emulator = || -> Arc<dyn Device> {
            Arc::new(EmuDevice::new(
                emulator_threads,
                emulator_ranks,
                emulator_ipc,
            ))
        };
        let gpu = |gpu: GpuDevice| with_nvshmem(job.as_ref(), gpu);
        let (device, why): (Arc<dyn Device>, String) = match choice {
            BackendChoice::Gpu => (gpu(GpuDevice::open(ordinal)?)?, String::new()),
            BackendChoice::Emulator => (emulator(), String::new()),
            BackendChoice::Auto => match GpuDevice::open(ordinal) {
                Ok(g) => (gpu(g)?, String::new()),
                Err(e) => match no_gpu_reason(&e) {
                    Some(reason) => (emulator(), format!(" ({reason})")),
                    // A GPU is there but cannot be used: say so, rather
                    // than quietly run on the CPU.
                    None => {
                        return Err(Error::GpuUnusable {
                            source: Box::new(e),
                        })
                    }
                },
            },
        };
        if job.as_ref().is_some_and(|j| j.nvshmem) && device.info().backend != crate::Backend::Gpu {
            tracing::warn!(target: "dcuda", "DCUDA_TRANSPORT=nvshmem needs a GPU: on the emulator window accesses between processes go through MPI");
        }
        let info = device.info();
        if !self.quiet {
            let detail = match info.compute_capability {
                Some(cc) => format!(
                    "device {}: {} (sm_{cc}, {} SMs)",
                    info.ordinal, info.name, info.multiprocessors
                ),
                None => info.name.clone(),
            };
            tracing::info!(
                target: "dcuda",
                "{} backend, {detail}, chosen {source}{why}",
                info.backend
            );
        }
        if let Some(j) = &job {
            if !self.quiet {
                tracing::info!(
                    target: "dcuda",
                    "process {} of {} (node {} of {}; {} of {} on its host), transport {}",
                    j.process(),
                    j.processes(),
                    j.node(),
                    j.nodes(),
                    j.local_index,
                    j.local_count,
                    j.transport.describe()
                );
            }
        }
        Ok(Runtime {
            device,
            info,
            chosen: format!("{source}{why}"),
            job,
        })
    }
}

/// The GPU, with NVSHMEM under it where the job asked for it
/// (`DCUDA_TRANSPORT=nvshmem`) and every process has it.
fn with_nvshmem(job: Option<&Job>, gpu: GpuDevice) -> Result<Arc<dyn Device>> {
    match job {
        Some(j) if j.nvshmem => Ok(match crate::nvshmem::open(j, gpu)? {
            Ok(symmetric) => Arc::new(symmetric),
            Err(gpu) => Arc::new(gpu),
        }),
        _ => Ok(Arc::new(gpu)),
    }
}

/// Why `auto` may fall back to the emulator: there is no GPU at all.
/// `None` when a GPU is there but failed to open.
fn no_gpu_reason(e: &Error) -> Option<&'static str> {
    match e {
        Error::NoDriver => Some("no CUDA driver found"),
        Error::NoDevice { count: 0, .. } => Some("no CUDA device found"),
        Error::Cuda { code, .. } if code == "CUDA_ERROR_NO_DEVICE" => Some("no CUDA device found"),
        _ => None,
    }
}

/// The GPU a process takes when none is named: the only one it sees (the
/// launcher gave each process its own, as `srun --gpus-per-task=1` does
/// through `CUDA_VISIBLE_DEVICES`), or its index among the processes of its
/// node.
pub(crate) fn default_ordinal(job: Option<&Job>, visible: Option<usize>) -> Result<usize> {
    let Some(job) = job else {
        return Ok(0);
    };
    let (local, count) = (job.local_index, job.local_count);
    match visible {
        None => Ok(local as usize),
        Some(1) => Ok(0),
        Some(n) if (local as usize) < n => Ok(local as usize),
        Some(n) => Err(Error::GpuPlacement {
            local,
            count,
            visible: n,
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

    /// How the backend was chosen, in words ("automatically (no CUDA
    /// driver found)", "by DCUDA_BACKEND").
    pub fn choice(&self) -> &str {
        &self.chosen
    }

    /// GPUs the CUDA driver shows this process (after
    /// `CUDA_VISIBLE_DEVICES`); `None` when there is no driver.
    pub fn visible_gpus() -> Option<usize> {
        GpuDevice::visible()
    }

    /// The device in use.
    pub fn device_info(&self) -> &DeviceInfo {
        &self.info
    }

    /// The GPU's turn for a driver call that waits for it to idle or
    /// serialises its streams (allocating, freeing, loading, unloading):
    /// held, the call comes after this process's running rank kernel (see
    /// `run::turn`).
    pub(crate) fn idle_turn(&self) -> crate::run::turn::Turn {
        crate::run::turn::Turn::for_idle_wait(&self.info)
    }

    /// Copies `bytes.len()` bytes from the device address `addr` (while a
    /// kernel may run).
    pub(crate) fn read_device(&self, addr: u64, bytes: &mut [u8]) -> Result<()> {
        self.device.read(addr, bytes)
    }

    /// Copies `bytes` to the device address `addr` (while a kernel may run).
    pub(crate) fn write_device(&self, addr: u64, bytes: &[u8]) -> Result<()> {
        self.device.write(addr, bytes)
    }

    /// The job of several processes this process belongs to, if any.
    pub fn job(&self) -> Option<&Job> {
        self.job.as_ref()
    }

    /// Whether NVSHMEM runs under this runtime (`DCUDA_TRANSPORT=nvshmem`
    /// on a GPU, with NVSHMEM found in every process): the device memory
    /// comes from its symmetric heap, and window accesses between processes
    /// that do not map each other take the NVSHMEM route.
    pub fn uses_nvshmem(&self) -> bool {
        self.device.symmetric().is_some()
    }

    /// Waits until all work submitted to the device has finished.
    pub fn synchronize(&self) -> Result<()> {
        self.device.synchronize()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::transport::Transport;

    struct Nobody(u32);
    impl Transport for Nobody {
        fn name(&self) -> &'static str {
            "test"
        }
        fn process(&self) -> u32 {
            self.0
        }
        fn processes(&self) -> u32 {
            4
        }
        fn send(&self, _: u32, _: u32, _: Vec<u8>) -> Result<()> {
            Ok(())
        }
        fn progress(&self) -> Result<usize> {
            Ok(0)
        }
        fn try_recv(&self, _: u32) -> Result<Option<(u32, Vec<u8>)>> {
            Ok(None)
        }
        fn abort(&self, m: &str) -> ! {
            panic!("{m}")
        }
    }

    fn job(local_index: u32, local_count: u32) -> Job {
        Job {
            transport: Arc::new(Nobody(local_index)),
            nodes: vec![0; local_count as usize],
            local_index,
            local_count,
            nvshmem: false,
        }
    }

    #[test]
    fn a_single_process_takes_gpu_zero() {
        assert_eq!(default_ordinal(None, Some(8)).unwrap(), 0);
    }

    #[test]
    fn processes_of_a_node_take_gpus_by_their_index() {
        assert_eq!(default_ordinal(Some(&job(2, 4)), Some(4)).unwrap(), 2);
        assert_eq!(default_ordinal(Some(&job(3, 4)), None).unwrap(), 3);
    }

    #[test]
    fn one_visible_gpu_per_process_is_that_gpu() {
        // srun --gpus-per-task=1: each process sees its own GPU as ordinal 0.
        assert_eq!(default_ordinal(Some(&job(1, 2)), Some(1)).unwrap(), 0);
    }

    #[test]
    fn too_few_visible_gpus_is_an_error_that_says_so() {
        let e = default_ordinal(Some(&job(2, 3)), Some(2))
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("number 2 of the 3 processes on its host")
                && e.contains("sees only 2 GPU(s)"),
            "{e}"
        );
    }
}
