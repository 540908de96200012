//! The buffers a plan reads and writes: a process's ranks' parts, in
//! device memory or in mapped host memory.

use crate::error::{Error, Result};
use crate::memory::{DeviceBuffer, MappedBuffer};
use crate::runtime::Runtime;
use dcuda_device::DeviceCopy;

/// A buffer holding a process's ranks' parts: [`DeviceBuffer`] or
/// [`MappedBuffer`]. Sealed: a plan reaches its memory only through the
/// buffer's own runtime, within its length.
pub trait Parts<T: DeviceCopy>: sealed::Sealed {
    /// Elements in the buffer.
    fn elements(&self) -> usize;
    #[doc(hidden)]
    fn base(&self) -> (u64, &Runtime);
}

mod sealed {
    pub trait Sealed {}
    impl<T: dcuda_device::DeviceCopy> Sealed for crate::memory::DeviceBuffer<T> {}
    impl<T: dcuda_device::DeviceCopy> Sealed for crate::memory::MappedBuffer<T> {}
}

impl<T: DeviceCopy> Parts<T> for DeviceBuffer<T> {
    fn elements(&self) -> usize {
        self.len()
    }
    fn base(&self) -> (u64, &Runtime) {
        (self.addr(), self.runtime())
    }
}

impl<T: DeviceCopy> Parts<T> for MappedBuffer<T> {
    fn elements(&self) -> usize {
        self.len()
    }
    fn base(&self) -> (u64, &Runtime) {
        (self.device_ptr() as u64, self.runtime())
    }
}

/// Where the ranks' data lie in their process's buffer: parts of `len`
/// elements, the process's rank `i` at `i * len`, its data from `offset`
/// on in its part (after a ghost zone, say).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    /// Elements in a part.
    pub len: usize,
    /// Where a rank's data start in its part.
    pub offset: usize,
}

impl Part {
    /// Parts of `len` elements, the data at their start.
    pub fn of(len: usize) -> Part {
        Part { len, offset: 0 }
    }

    /// The same parts, the data from `offset` on.
    pub fn data_at(self, offset: usize) -> Part {
        Part { offset, ..self }
    }

    /// Where the data of the process's rank `i` start in its buffer.
    pub(super) fn start(&self, i: usize) -> usize {
        i * self.len + self.offset
    }

    /// Whether `count` elements fit after the offset.
    pub(super) fn fits(&self, count: usize) -> bool {
        self.offset
            .checked_add(count)
            .is_some_and(|end| end <= self.len)
    }
}

impl std::fmt::Display for Part {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "parts of {}", self.len)?;
        if self.offset > 0 {
            write!(f, " from element {}", self.offset)?;
        }
        Ok(())
    }
}

/// Checks that `parts` holds `ranks` parts of `part_len` elements.
pub(super) fn check_room<T: DeviceCopy>(
    call: &'static str,
    process: u32,
    parts: &dyn Parts<T>,
    ranks: u32,
    part_len: usize,
) -> Result<()> {
    let needed = ranks as usize * part_len;
    if parts.elements() < needed {
        return Err(Error::InvalidArgument {
            call,
            reason: format!(
                "process {process}'s buffer has {} elements, but its {ranks} ranks need {part_len} each ({needed})",
                parts.elements()
            ),
        });
    }
    Ok(())
}

/// Writes `bytes` at element `at` of `parts` (bounds checked by the
/// callers' `check_room` and the plan's own layout; checked again here).
pub(super) fn write<T: DeviceCopy>(parts: &dyn Parts<T>, at: usize, bytes: &[u8]) -> Result<()> {
    let size = std::mem::size_of::<T>();
    in_bounds(parts, at, bytes.len() / size)?;
    let (base, rt) = parts.base();
    rt.device.write(base + (at * size) as u64, bytes)
}

/// Reads `bytes.len()` bytes from element `at` of `parts`.
pub(super) fn read<T: DeviceCopy>(parts: &dyn Parts<T>, at: usize, bytes: &mut [u8]) -> Result<()> {
    let size = std::mem::size_of::<T>();
    in_bounds(parts, at, bytes.len() / size)?;
    let (base, rt) = parts.base();
    rt.device.read(base + (at * size) as u64, bytes)
}

/// Copies `len` elements from element `from` to element `to` of `parts`,
/// on the device.
pub(super) fn copy<T: DeviceCopy>(
    parts: &dyn Parts<T>,
    to: usize,
    from: usize,
    len: usize,
) -> Result<()> {
    let size = std::mem::size_of::<T>();
    in_bounds(parts, to, len)?;
    in_bounds(parts, from, len)?;
    let (base, rt) = parts.base();
    rt.device.copy(
        base + (to * size) as u64,
        base + (from * size) as u64,
        len * size,
    )
}

fn in_bounds<T: DeviceCopy>(parts: &dyn Parts<T>, at: usize, len: usize) -> Result<()> {
    match at.checked_add(len) {
        Some(end) if end <= parts.elements() => Ok(()),
        _ => Err(Error::OutOfRange {
            call: "plan",
            range: at..at.saturating_add(len),
            len: parts.elements(),
        }),
    }
}

/// `data` as bytes (`DeviceCopy` types have no padding).
pub(super) fn as_bytes<T: DeviceCopy>(data: &[T]) -> &[u8] {
    // SAFETY: plain data without padding, viewed as its bytes.
    unsafe { std::slice::from_raw_parts(data.as_ptr() as *const u8, std::mem::size_of_val(data)) }
}
