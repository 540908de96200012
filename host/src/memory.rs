//! Device buffers and pinned, device-mapped host buffers.

use crate::error::{Error, Result};
use crate::runtime::Runtime;
use dcuda_device::{DeviceCopy, DeviceSlice};
use std::marker::PhantomData;

fn bytes_of<T>(len: usize, call: &'static str) -> Result<usize> {
    len.checked_mul(std::mem::size_of::<T>())
        .ok_or(Error::Alloc {
            call,
            bytes: usize::MAX,
            reason: format!(
                "{len} elements of {} bytes overflow",
                std::mem::size_of::<T>()
            ),
        })
}

/// An array in device memory (in host memory on the emulator).
pub struct DeviceBuffer<T: DeviceCopy> {
    rt: Runtime,
    addr: u64,
    len: usize,
    _marker: PhantomData<T>,
}

impl Runtime {
    /// A zeroed device array of `len` elements. On a GPU, while a rank
    /// kernel of this process runs on it, this waits for the run's end
    /// (as do the drops of device buffers, mapped buffers and modules):
    /// the driver's allocation would stall the run's host thread.
    pub fn alloc<T: DeviceCopy>(&self, len: usize) -> Result<DeviceBuffer<T>> {
        let bytes = bytes_of::<T>(len, "alloc")?;
        let addr = {
            let _turn = self.idle_turn();
            self.device.alloc(bytes)?
        };
        Ok(DeviceBuffer {
            rt: self.clone(),
            addr,
            len,
            _marker: PhantomData,
        })
    }

    /// A device array holding a copy of `data`.
    pub fn upload<T: DeviceCopy>(&self, data: &[T]) -> Result<DeviceBuffer<T>> {
        let mut buf = self.alloc(data.len())?;
        buf.copy_from(data)?;
        Ok(buf)
    }

    /// A zeroed array of pinned host memory mapped into the device's
    /// address space: the device reads and writes it over the bus while a
    /// kernel runs, and the host sees those accesses without a copy. Waits
    /// for a running rank kernel of this process to end, as
    /// [`alloc`](Self::alloc) does.
    pub fn alloc_mapped<T: DeviceCopy>(&self, len: usize) -> Result<MappedBuffer<T>> {
        let bytes = bytes_of::<T>(len, "alloc_mapped")?;
        let (host, addr) = {
            let _turn = self.idle_turn();
            self.device.alloc_mapped(bytes)?
        };
        Ok(MappedBuffer {
            rt: self.clone(),
            host: host as *mut T,
            addr,
            len,
        })
    }
}

impl<T: DeviceCopy> DeviceBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub(crate) fn addr(&self) -> u64 {
        self.addr
    }

    pub(crate) fn runtime(&self) -> &Runtime {
        &self.rt
    }

    /// The buffer as a [`DeviceSlice`], for a kernel's arguments: the
    /// memory calls of a rank kernel take these. The slice does not keep the
    /// buffer alive; a launch's safety contract says the buffer must
    /// outlive the launch.
    pub fn slice(&self) -> DeviceSlice<T> {
        // SAFETY: the allocation holds `len` elements of T, aligned (256).
        unsafe { DeviceSlice::from_raw_parts(self.addr as usize as *mut T, self.len) }
    }

    /// The device address, to pass to a kernel. Never dereference it on the host.
    pub fn as_ptr(&self) -> *const T {
        self.addr as usize as *const T
    }

    /// The device address, to pass to a kernel. Never dereference it on the host.
    pub fn as_mut_ptr(&mut self) -> *mut T {
        self.addr as usize as *mut T
    }

    fn check_len(&self, call: &'static str, actual: usize) -> Result<()> {
        if actual == self.len {
            Ok(())
        } else {
            Err(Error::LengthMismatch {
                call,
                expected: self.len,
                actual,
            })
        }
    }

    /// Copies `data` (of the same length) into the buffer.
    pub fn copy_from(&mut self, data: &[T]) -> Result<()> {
        self.check_len("DeviceBuffer::copy_from", data.len())?;
        self.rt.device.write(self.addr, as_bytes(data))
    }

    /// Copies the buffer into `out` (of the same length).
    pub fn copy_to(&self, out: &mut [T]) -> Result<()> {
        self.check_len("DeviceBuffer::copy_to", out.len())?;
        self.rt.device.read(self.addr, as_bytes_mut(out))
    }

    /// Copies `src` (of the same length) into this buffer on the device,
    /// and waits for the copy.
    pub fn copy_from_buffer(&mut self, src: &DeviceBuffer<T>) -> Result<()> {
        self.check_len("DeviceBuffer::copy_from_buffer", src.len)?;
        let bytes = self.len * std::mem::size_of::<T>();
        self.rt.device.copy(self.addr, src.addr, bytes)
    }

    /// The buffer's contents.
    pub fn download(&self) -> Result<Vec<T>> {
        let mut out = Vec::with_capacity(self.len);
        // SAFETY: DeviceCopy types are valid for any bit pattern the copy writes.
        unsafe {
            self.copy_to(std::slice::from_raw_parts_mut(out.as_mut_ptr(), self.len))?;
            out.set_len(self.len);
        }
        Ok(out)
    }
}

impl<T: DeviceCopy> Drop for DeviceBuffer<T> {
    fn drop(&mut self) {
        let _turn = self.rt.idle_turn();
        self.rt
            .device
            .free(self.addr, self.len * std::mem::size_of::<T>())
    }
}

/// `data` as bytes (DeviceCopy types have no padding).
pub(crate) fn as_bytes<T: DeviceCopy>(data: &[T]) -> &[u8] {
    // SAFETY: plain data without padding, viewed as its bytes.
    unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data)) }
}

/// `data` as writable bytes (every bit pattern is a valid `DeviceCopy`).
pub(crate) fn as_bytes_mut<T: DeviceCopy>(data: &mut [T]) -> &mut [u8] {
    // SAFETY: as in `as_bytes`; any bytes written make valid elements.
    unsafe {
        std::slice::from_raw_parts_mut(data.as_mut_ptr() as *mut u8, std::mem::size_of_val(data))
    }
}

/// Pinned host memory mapped into the device (see [`Runtime::alloc_mapped`]).
///
/// The host accesses it while kernels run, so every access is volatile or
/// atomic; use [`load_acquire`](MappedBuffer::load_acquire) and
/// [`store_release`](MappedBuffer::store_release) to pair with the device's
/// system-scoped release stores and acquire loads.
pub struct MappedBuffer<T: DeviceCopy> {
    rt: Runtime,
    host: *mut T,
    addr: u64,
    len: usize,
}

// SAFETY: the memory is shared with the device anyway; all accesses are
// volatile or atomic.
unsafe impl<T: DeviceCopy> Send for MappedBuffer<T> {}
unsafe impl<T: DeviceCopy> Sync for MappedBuffer<T> {}

impl<T: DeviceCopy> MappedBuffer<T> {
    /// Number of elements.
    pub fn len(&self) -> usize {
        self.len
    }

    /// Whether the buffer has no elements.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The host address. Dereference it only while no device work reads
    /// or writes the elements (no kernel that uses the buffer is running
    /// and the streams that copy to or from it are synchronised): then it
    /// is ordinary pinned memory, which MPI and the copy engines use at
    /// full speed.
    pub fn host_ptr(&self) -> *mut T {
        self.host
    }

    pub(crate) fn runtime(&self) -> &Runtime {
        &self.rt
    }

    /// The device address, to pass to a kernel.
    pub fn device_ptr(&self) -> *mut T {
        self.addr as usize as *mut T
    }

    fn slot(&self, call: &str, index: usize) -> *mut T {
        assert!(
            index < self.len,
            "dcuda: MappedBuffer::{call}: index {index} out of bounds for length {}",
            self.len
        );
        // SAFETY: in bounds.
        unsafe { self.host.add(index) }
    }

    /// Reads element `index` (volatile).
    pub fn read(&self, index: usize) -> T {
        // SAFETY: in bounds and aligned.
        unsafe { self.slot("read", index).read_volatile() }
    }

    /// Writes element `index` (volatile).
    pub fn write(&self, index: usize, value: T) {
        // SAFETY: in bounds and aligned.
        unsafe { self.slot("write", index).write_volatile(value) }
    }

    /// A snapshot of all elements.
    pub fn to_vec(&self) -> Vec<T> {
        (0..self.len).map(|i| self.read(i)).collect()
    }
}

macro_rules! mapped_atomics {
    ($($t:ty => $atomic:ty),*) => {$(
        impl MappedBuffer<$t> {
            /// Acquire load of element `index`: pairs with the device's
            /// `store_release(.., Scope::System)`.
            pub fn load_acquire(&self, index: usize) -> $t {
                // SAFETY: in bounds and aligned for the atomic type.
                unsafe { <$atomic>::from_ptr(self.slot("load_acquire", index)).load(std::sync::atomic::Ordering::Acquire) }
            }

            /// Release store of element `index`: pairs with the device's
            /// `load_acquire(.., Scope::System)`.
            pub fn store_release(&self, index: usize, value: $t) {
                // SAFETY: in bounds and aligned for the atomic type.
                unsafe { <$atomic>::from_ptr(self.slot("store_release", index)).store(value, std::sync::atomic::Ordering::Release) }
            }
        }
    )*};
}
mapped_atomics!(u32 => std::sync::atomic::AtomicU32, u64 => std::sync::atomic::AtomicU64);

impl<T: DeviceCopy> Drop for MappedBuffer<T> {
    fn drop(&mut self) {
        let _turn = self.rt.idle_turn();
        let bytes = self.len * std::mem::size_of::<T>();
        self.rt
            .device
            .free_mapped(self.host as *mut u8, self.addr, bytes)
    }
}
