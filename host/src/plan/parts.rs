//! The buffers a plan reads and writes: a process's ranks' parts, in
//! device memory or in mapped host memory.

use crate::backend::Device;
use crate::error::{Error, Result};
pub(super) use crate::memory::{as_bytes, as_bytes_mut};
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
    #[doc(hidden)]
    /// Whether the buffer is device memory (which peers of a node can map).
    fn on_device(&self) -> bool;
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
    fn on_device(&self) -> bool {
        true
    }
}

impl<T: DeviceCopy> Parts<T> for MappedBuffer<T> {
    fn elements(&self) -> usize {
        self.len()
    }
    fn base(&self) -> (u64, &Runtime) {
        (self.device_ptr() as u64, self.runtime())
    }
    fn on_device(&self) -> bool {
        false
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

/// Elements in a piece of [`fill`]: its device copies run while the next
/// piece comes from the host.
const FILL_PIECE_BYTES: usize = 32 << 20;

/// Writes `bytes` (elements of `T`) at element `starts[0]` of a buffer on
/// `dev` and copies them on the device to the other `starts`, in pieces:
/// each piece's device copies run on a stream while the next piece is
/// written, so that they cost almost nothing beside the host copy.
/// `addr(at, len)` is the checked device address of elements
/// `at..at + len`.
pub(super) fn fill<T: DeviceCopy>(
    dev: &dyn Device,
    addr: &dyn Fn(usize, usize) -> Result<u64>,
    starts: &[usize],
    bytes: &[u8],
) -> Result<()> {
    let size = std::mem::size_of::<T>().max(1);
    let n = bytes.len() / size;
    let Some((&first, rest)) = starts.split_first() else {
        return Ok(());
    };
    if rest.is_empty() {
        return dev.write(addr(first, n)?, bytes);
    }
    let stream = dev.stream()?;
    let per = (FILL_PIECE_BYTES / size).max(1);
    for k in (0..n).step_by(per) {
        let len = per.min(n - k);
        let src = addr(first + k, len)?;
        dev.write(src, &bytes[k * size..(k + len) * size])?;
        for &s in rest {
            stream.copy(addr(s + k, len)?, src, len * size)?;
        }
    }
    stream.synchronize()
}

/// [`fill`] on a process's own parts.
pub(super) fn fill_parts<T: DeviceCopy>(
    parts: &dyn Parts<T>,
    starts: &[usize],
    bytes: &[u8],
) -> Result<()> {
    let size = std::mem::size_of::<T>() as u64;
    let (base, rt) = parts.base();
    let addr = |at: usize, len: usize| -> Result<u64> {
        in_bounds(parts, at, len)?;
        Ok(base + at as u64 * size)
    };
    fill::<T>(rt.device.as_ref(), &addr, starts, bytes)
}

/// Where a strided slice lies: blocks of `len` elements, `stride` apart,
/// the first at `at`.
#[derive(Clone, Copy, Debug)]
pub(super) struct Blocks {
    pub at: usize,
    pub stride: usize,
    pub len: usize,
}

impl Blocks {
    fn check<T: DeviceCopy>(&self, parts: &dyn Parts<T>, blocks: usize) -> Result<()> {
        if blocks > 0 {
            let last = (blocks - 1)
                .checked_mul(self.stride)
                .and_then(|o| o.checked_add(self.at));
            in_bounds(parts, last.unwrap_or(usize::MAX), self.len)?;
        }
        Ok(())
    }
}

/// Copies `blocks` blocks from `from` to `to` in `parts`, on the device.
pub(super) fn copy_blocks<T: DeviceCopy>(
    parts: &dyn Parts<T>,
    to: Blocks,
    from: Blocks,
    blocks: usize,
) -> Result<()> {
    let size = std::mem::size_of::<T>();
    to.check(parts, blocks)?;
    from.check(parts, blocks)?;
    let (base, rt) = parts.base();
    let addr = |b: Blocks| base + (b.at * size) as u64;
    match blocks {
        1 => rt.device.copy(addr(to), addr(from), to.len * size),
        _ => rt.device.copy_2d(
            addr(to),
            to.stride * size,
            addr(from),
            from.stride * size,
            to.len * size,
            blocks,
        ),
    }
}

/// Reads whole blocks from `from` into `bytes`, back to back.
pub(super) fn read_blocks<T: DeviceCopy>(
    parts: &dyn Parts<T>,
    from: Blocks,
    bytes: &mut [u8],
) -> Result<()> {
    let size = std::mem::size_of::<T>();
    from.check(parts, bytes.len() / (from.len * size).max(1))?;
    let (base, rt) = parts.base();
    rt.device.read_2d(
        base + (from.at * size) as u64,
        from.stride * size,
        from.len * size,
        bytes,
    )
}

/// Writes whole blocks from `bytes`, back to back, to `to`.
pub(super) fn write_blocks<T: DeviceCopy>(
    parts: &dyn Parts<T>,
    to: Blocks,
    bytes: &[u8],
) -> Result<()> {
    let size = std::mem::size_of::<T>();
    to.check(parts, bytes.len() / (to.len * size).max(1))?;
    let (base, rt) = parts.base();
    rt.device.write_2d(
        base + (to.at * size) as u64,
        to.stride * size,
        to.len * size,
        bytes,
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The 2D copies (one `cuMemcpy2D` each on a GPU, row loops on the
    /// emulator) put blocks where they say, and nothing elsewhere.
    #[test]
    fn blocks_are_written_read_and_copied_in_place() {
        let rt = Runtime::new().unwrap();
        let mut buf = rt.upload(&[0u32; 64]).unwrap();
        let rows: Vec<u32> = (1..=12).collect(); // 4 blocks of 3
        let to = Blocks {
            at: 2,
            stride: 8,
            len: 3,
        };
        write_blocks(&buf, to, as_bytes(&rows)).unwrap();
        let mut want = [0u32; 64];
        for b in 0..4 {
            want[2 + 8 * b..5 + 8 * b].copy_from_slice(&rows[3 * b..3 * b + 3]);
        }
        assert_eq!(buf.download().unwrap(), want);
        let mut back = vec![0u8; 12 * 4];
        read_blocks(&buf, to, &mut back).unwrap();
        assert_eq!(back, as_bytes(&rows));
        // Blocks 8 apart to blocks 5 apart, from element 40 on.
        copy_blocks(
            &buf,
            Blocks {
                at: 40,
                stride: 5,
                len: 3,
            },
            to,
            4,
        )
        .unwrap();
        for b in 0..4 {
            want[40 + 5 * b..43 + 5 * b].copy_from_slice(&rows[3 * b..3 * b + 3]);
        }
        assert_eq!(buf.download().unwrap(), want);
        let past = copy_blocks(
            &buf,
            Blocks {
                at: 50,
                stride: 5,
                len: 3,
            },
            to,
            4,
        );
        assert!(past
            .unwrap_err()
            .to_string()
            .contains("outside a buffer of 64"));
        buf.copy_from(&[0; 64]).unwrap();
    }
}
