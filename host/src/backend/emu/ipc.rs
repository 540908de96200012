//! IPC between emulator processes of one host, as CUDA IPC joins the GPUs
//! of a node: with `DCUDA_EMULATOR_IPC=1` every emulated device allocation
//! is a shared memory file (`memfd_create`), and another process maps it
//! through `/proc/<pid>/fd/<fd>`. The emulated kernels' loads, stores and
//! atomics then reach the other process's memory as a GPU's reach a
//! peer's over NVLink, so the direct route between processes (windows,
//! notifications, the plans' peer copies) runs on the emulator too.
//!
//! A handle is the exporting process's id, the file's descriptor there and
//! the allocation's length. Linux only.

use super::EmuDevice;
use crate::backend::PeerAccess;
use crate::error::{Error, Result};
use std::collections::BTreeMap;
use std::sync::Mutex;

/// Allocations of this process that peers can map: base → (fd, length).
static EXPORTABLE: Mutex<BTreeMap<u64, (i32, usize)>> = Mutex::new(BTreeMap::new());
/// Other processes' allocations mapped here: base → length.
static OPENED: Mutex<BTreeMap<u64, usize>> = Mutex::new(BTreeMap::new());

const MAGIC: &[u8; 8] = b"dcudaemu";

fn os_error(call: &'static str, bytes: usize) -> Error {
    Error::Alloc {
        call,
        bytes,
        reason: std::io::Error::last_os_error().to_string(),
    }
}

/// Maps `len` bytes of `fd`, shared, read and write.
fn map(fd: i32, len: usize, call: &'static str) -> Result<u64> {
    // SAFETY: a fresh mapping of a file at least `len` long.
    let p = unsafe {
        libc::mmap(
            std::ptr::null_mut(),
            len,
            libc::PROT_READ | libc::PROT_WRITE,
            libc::MAP_SHARED,
            fd,
            0,
        )
    };
    if p == libc::MAP_FAILED {
        return Err(os_error(call, len));
    }
    Ok(p as usize as u64)
}

/// A zeroed allocation of `bytes` that peers can map (page aligned).
pub(super) fn alloc(bytes: usize) -> Result<u64> {
    let len = bytes.max(1);
    // SAFETY: a name with its terminator; the flags are valid.
    let fd = unsafe { libc::memfd_create(c"dcuda-emulator".as_ptr(), libc::MFD_CLOEXEC) };
    if fd < 0 {
        return Err(os_error("alloc (memfd_create)", bytes));
    }
    // SAFETY: our descriptor.
    if unsafe { libc::ftruncate(fd, len as libc::off_t) } != 0 {
        let e = os_error("alloc (ftruncate)", bytes);
        // SAFETY: our descriptor, closed once.
        unsafe { libc::close(fd) };
        return Err(e);
    }
    let base = map(fd, len, "alloc (mmap)").inspect_err(|_| {
        // SAFETY: our descriptor, closed once.
        unsafe { libc::close(fd) };
    })?;
    lock(&EXPORTABLE).insert(base, (fd, len));
    Ok(base)
}

/// Frees what [`alloc`] returned (nothing for any other address).
pub(super) fn free(addr: u64) {
    let Some((fd, len)) = lock(&EXPORTABLE).remove(&addr) else {
        return;
    };
    // SAFETY: the mapping and descriptor made by `alloc`, released once.
    unsafe {
        libc::munmap(addr as usize as *mut libc::c_void, len);
        libc::close(fd);
    }
}

/// The handle of the allocation holding `addr`, and `addr`'s offset in it.
pub(super) fn export(addr: u64) -> Result<([u8; 64], u64)> {
    let all = lock(&EXPORTABLE);
    let found = all.range(..=addr).next_back();
    let Some((&base, &(fd, len))) = found.filter(|(&b, &(_, l))| addr < b + l as u64) else {
        return Err(Error::InvalidArgument {
            call: "ipc_export",
            reason: format!(
                "address {addr:#x} is in no emulated allocation that peers can map (DCUDA_EMULATOR_IPC=1 makes every allocation mappable)"
            ),
        });
    };
    let mut h = [0u8; 64];
    h[..8].copy_from_slice(MAGIC);
    h[8..12].copy_from_slice(&std::process::id().to_le_bytes());
    h[12..16].copy_from_slice(&fd.to_le_bytes());
    h[16..24].copy_from_slice(&(len as u64).to_le_bytes());
    Ok((h, addr - base))
}

/// Maps another emulator process's allocation: its base here and length.
pub(super) fn open(handle: &[u8; 64]) -> Result<(u64, u64)> {
    let word = |r: std::ops::Range<usize>| -> [u8; 8] {
        let mut w = [0u8; 8];
        w[..r.len()].copy_from_slice(&handle[r]);
        w
    };
    if &handle[..8] != MAGIC {
        return Err(Error::InvalidArgument {
            call: "ipc_open",
            reason: "the handle is not an emulator process's".into(),
        });
    }
    let pid = u32::from_le_bytes(word(8..12)[..4].try_into().unwrap_or_default());
    let fd = i32::from_le_bytes(word(12..16)[..4].try_into().unwrap_or_default());
    let len = u64::from_le_bytes(word(16..24)) as usize;
    let path = std::ffi::CString::new(format!("/proc/{pid}/fd/{fd}")).unwrap_or_default();
    // SAFETY: a terminated path.
    let ours = unsafe { libc::open(path.as_ptr(), libc::O_RDWR | libc::O_CLOEXEC) };
    if ours < 0 {
        return Err(os_error("ipc_open (open /proc/PID/fd)", len));
    }
    // The file's own length, not the handle's word: a mapping past the
    // file's end would fault on access rather than fail here.
    // SAFETY: `stat` is plain data, all zeros valid.
    let mut stat: libc::stat = unsafe { std::mem::zeroed() };
    // SAFETY: a plain query on our descriptor.
    let queried = unsafe { libc::fstat(ours, &mut stat) } == 0;
    if !queried || (stat.st_size as u64) < len as u64 {
        // SAFETY: our descriptor, closed once.
        unsafe { libc::close(ours) };
        return Err(Error::InvalidArgument {
            call: "ipc_open",
            reason: format!(
                "the handle names {len} bytes of process {pid}'s allocation, which has {}",
                stat.st_size
            ),
        });
    }
    let base = map(ours, len, "ipc_open (mmap)");
    // SAFETY: our descriptor; the mapping keeps the file.
    unsafe { libc::close(ours) };
    let base = base?;
    lock(&OPENED).insert(base, len);
    Ok((base, len as u64))
}

/// Unmaps what [`open`] mapped.
pub(super) fn close(base: u64) {
    if let Some(len) = lock(&OPENED).remove(&base) {
        // SAFETY: the mapping made by `open`, released once.
        unsafe { libc::munmap(base as usize as *mut libc::c_void, len) };
    }
}

/// This process's emulated device, as a bus id its peers compare.
pub(super) fn bus_id() -> String {
    format!("emulator:{}", std::process::id())
}

/// Emulator processes of one host map each other's allocations (with
/// `DCUDA_EMULATOR_IPC=1`) as CUDA IPC maps a node's GPUs.
impl PeerAccess for EmuDevice {
    fn pci_bus_id(&self) -> Result<String> {
        Ok(bus_id())
    }

    fn can_access_peer(&self, pci_bus_id: &str) -> Result<bool> {
        Ok(pci_bus_id.starts_with("emulator:") && pci_bus_id != bus_id())
    }

    fn ipc_export(&self, addr: u64) -> Result<([u8; 64], u64)> {
        export(addr)
    }

    fn ipc_open(&self, handle: &[u8; 64]) -> Result<(u64, u64)> {
        open(handle)
    }

    fn ipc_close(&self, addr: u64) {
        close(addr)
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}
