//! NVSHMEM under the runtime (`DCUDA_TRANSPORT=nvshmem`): the host library
//! loaded at run time and started over the job's transport ([`library`]),
//! every device allocation of the process a part of its symmetric heap
//! ([`heap`], [`device`]), so that the world can give window entries of
//! processes that do not map each other the NVSHMEM route: their ranks
//! then move window accesses and their notifications themselves
//! (`dcuda_device`'s `runtime/symmetric.rs`). MPI still carries
//! everything else.

mod device;
mod heap;
mod library;

use crate::backend::gpu::GpuDevice;
use crate::error::Result;
use crate::transport::{all_gather, Job, SETUP_CHANNEL};
pub(crate) use device::SymmetricDevice;
use library::Nvshmem;

/// Where this process's symmetric heap is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Symmetric {
    /// Its base address here.
    pub base: u64,
    /// Its length (the same in every process).
    pub len: u64,
    /// This process's processing element.
    pub pe: u32,
}

impl Symmetric {
    /// The offset of `bytes` bytes at `addr` in the heap, if they lie in it.
    pub fn offset_of(&self, addr: u64, bytes: u64) -> Option<u64> {
        let offset = addr.checked_sub(self.base)?;
        (offset.checked_add(bytes)? <= self.len).then_some(offset)
    }
}

/// Default heap size, MiB: under NVSHMEM's default symmetric size (1 GiB).
const DEFAULT_HEAP_MIB: usize = 768;

/// Starts NVSHMEM in this process of `job` (every process calls it) and
/// puts `gpu`'s allocations in its symmetric heap. `Ok(Err(gpu))` when some
/// process could not load the library: every process then says so and goes
/// on with MPI alone, together. Errors after that are the job's.
pub(crate) fn open(
    job: &Job,
    gpu: GpuDevice,
) -> Result<std::result::Result<SymmetricDevice, GpuDevice>> {
    let heap = crate::config::NVSHMEM_HEAP_MIB
        .number(true)?
        .unwrap_or(DEFAULT_HEAP_MIB) as u64
        * (1 << 20);
    let loaded = Nvshmem::load();
    let mine = match &loaded {
        Ok(_) => Vec::new(),
        Err(e) => e.to_string().into_bytes(),
    };
    let all = all_gather(&*job.transport, SETUP_CHANNEL, mine)?;
    let missing: Vec<String> = all
        .iter()
        .enumerate()
        .filter(|(_, why)| !why.is_empty())
        .map(|(p, why)| format!("process {p}: {}", String::from_utf8_lossy(why)))
        .collect();
    let lib = match loaded {
        Ok(lib) if missing.is_empty() => lib,
        _ => {
            tracing::warn!(target: "dcuda", "DCUDA_TRANSPORT=nvshmem, but NVSHMEM is missing ({}): window accesses between processes go through MPI", missing.join("; "));
            return Ok(Err(gpu));
        }
    };
    gpu.bind()?;
    lib.init(job)?;
    let device = SymmetricDevice::new(gpu, lib, job.process(), heap)?;
    tracing::debug!(target: "dcuda", "NVSHMEM started: PE {}, a heap of {heap} bytes", job.process());
    Ok(Ok(device))
}
