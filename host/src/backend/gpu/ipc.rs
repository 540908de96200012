//! CUDA IPC between the processes of a node: what the direct route maps.

use super::{check, GpuDevice};
use crate::backend::{Device, PeerAccess};
use crate::error::{Error, Result};
use cudarc::driver::{result, sys};
use std::mem::MaybeUninit;
use std::sync::Arc;

impl PeerAccess for GpuDevice {
    fn pci_bus_id(&self) -> Result<String> {
        let mut buf = [0 as std::ffi::c_char; 32];
        // SAFETY: the buffer holds the id and its terminator.
        check("cuDeviceGetPCIBusId", unsafe {
            sys::cuDeviceGetPCIBusId(buf.as_mut_ptr(), buf.len() as i32, self.ctx.device)
        })?;
        // SAFETY: the driver wrote a terminated string.
        Ok(unsafe { std::ffi::CStr::from_ptr(buf.as_ptr()) }
            .to_string_lossy()
            .into_owned())
    }

    fn can_access_peer(&self, pci_bus_id: &str) -> Result<bool> {
        self.ctx.bind()?;
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
            if peer == self.ctx.device {
                return Ok(false);
            }
            check(
                "cuDeviceCanAccessPeer",
                sys::cuDeviceCanAccessPeer(&mut can, self.ctx.device, peer),
            )?;
        }
        Ok(can != 0)
    }

    /// Fails for memory that is not from `cuMemAlloc`.
    fn ipc_export(&self, addr: u64) -> Result<([u8; 64], u64)> {
        self.ctx.bind()?;
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
            Ok((bytemuck::cast(handle.reserved), addr - base))
        }
    }

    fn ipc_open(&self, handle: &[u8; 64]) -> Result<(u64, u64)> {
        self.ctx.bind()?;
        let mut raw = MaybeUninit::<sys::CUipcMemHandle>::zeroed();
        let (mut addr, mut base, mut size) = (0u64, 0u64, 0usize);
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
            // The mapping's length as this driver sees it.
            let range = check(
                "cuMemGetAddressRange",
                sys::cuMemGetAddressRange_v2(&mut base, &mut size, addr),
            );
            if let Err(e) = range {
                let _ = sys::cuIpcCloseMemHandle(addr);
                return Err(e);
            }
        }
        Ok((addr, (base + size as u64).saturating_sub(addr)))
    }

    fn owner(&self, pci_bus_id: &str) -> Result<Option<Arc<dyn Device>>> {
        let id = std::ffi::CString::new(pci_bus_id).unwrap_or_default();
        let mut dev = MaybeUninit::uninit();
        // SAFETY: a plain query; a GPU this process does not see is an error.
        if unsafe { sys::cuDeviceGetByPCIBusId(dev.as_mut_ptr(), id.as_ptr()) }
            != sys::CUresult::CUDA_SUCCESS
        {
            return Ok(None);
        }
        // SAFETY: written by the successful call.
        let dev = unsafe { dev.assume_init() };
        if dev == self.ctx.device {
            return Ok(None);
        }
        let mut owners = self.owners.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(d) = owners.get(pci_bus_id) {
            return Ok(Some(d.clone()));
        }
        let count = result::device::get_count().map_err(|e| Error::cuda("cuDeviceGetCount", e))?;
        let Some(ordinal) = (0..count).find(|&i| result::device::get(i).is_ok_and(|d| d == dev))
        else {
            return Ok(None);
        };
        let opened: Arc<dyn Device> = Arc::new(GpuDevice::open(ordinal as usize)?);
        owners.insert(pci_bus_id.to_string(), opened.clone());
        self.ctx.bind()?;
        Ok(Some(opened))
    }

    fn ipc_close(&self, addr: u64) {
        if self.ctx.bind().is_ok() {
            // SAFETY: `addr` came from ipc_open. Nobody to report a failure to.
            let _ = unsafe { sys::cuIpcCloseMemHandle(addr) };
        }
    }
}
