//! Streams: launches and copies queued in order and run asynchronously
//! with respect to the host, as a CUDA stream does. What host-driven codes
//! (the applications' MPI+CUDA baselines) need to overlap kernels with
//! copies; a rank kernel's run does not use them.
//!
//! On the emulator every operation runs as it is queued: one of the orders
//! a stream allows, so a program correct on streams is correct there.

use crate::backend::StreamQueue;
use crate::error::{Error, Result};
use crate::launch::LaunchConfig;
use crate::memory::{as_bytes, as_bytes_mut, DeviceBuffer, MappedBuffer};
use crate::module::Module;
use crate::runtime::Runtime;
use dcuda_device::kernel::{Kernel, KernelArgs};
use dcuda_device::DeviceCopy;
use std::mem::size_of;
use std::ops::Range;
use std::sync::Arc;

/// An ordered queue of kernel launches and copies on one device.
///
/// Work on one stream runs in the order it was queued; work on two streams
/// may run at the same time. [`read`](Self::read), [`write`](Self::write)
/// and [`synchronize`](Self::synchronize) wait for the stream; the
/// launches and device-to-device copies return at once. Dropping a stream
/// waits for its work.
pub struct Stream {
    rt: Runtime,
    queue: Box<dyn StreamQueue>,
}

impl Runtime {
    /// A new stream on this runtime's device.
    pub fn stream(&self) -> Result<Stream> {
        Ok(Stream {
            rt: self.clone(),
            queue: self.device.stream()?,
        })
    }
}

/// `range` of a buffer of `len` elements, or an error naming `call`.
fn check_range(call: &'static str, range: &Range<usize>, len: usize) -> Result<()> {
    if range.start <= range.end && range.end <= len {
        Ok(())
    } else {
        Err(Error::OutOfRange {
            call,
            range: range.clone(),
            len,
        })
    }
}

fn byte_addr<T: DeviceCopy>(buf: &DeviceBuffer<T>, at: usize) -> u64 {
    buf.addr() + (at * size_of::<T>()) as u64
}

impl Stream {
    fn check_device(&self, rt: &Runtime, call: &'static str) -> Result<()> {
        if Arc::ptr_eq(&self.rt.device, &rt.device) {
            Ok(())
        } else {
            Err(Error::InvalidArgument {
                call,
                reason: "the buffer or module belongs to another runtime's device than the stream"
                    .into(),
            })
        }
    }

    /// Queues a launch of `kernel` with `args` after the stream's earlier
    /// work; returns at once. A fault in the kernel is reported by the
    /// stream's next waiting call.
    ///
    /// # Safety
    /// As [`Module::launch`]: the pointers in `args` are device addresses
    /// valid for every access the kernel makes, and their memory outlives
    /// the launch (until the stream is synchronised).
    pub unsafe fn launch<A: KernelArgs>(
        &self,
        module: &Module,
        kernel: &Kernel<A>,
        config: LaunchConfig,
        args: A,
    ) -> Result<()> {
        self.check_device(module.runtime(), "Stream::launch")?;
        let running = module.start_plain(kernel, config, args, self.queue.raw())?;
        self.queue.launched(kernel.name(), running)
    }

    /// Queues a copy of `src[from]` into `dst` from element `to` on;
    /// returns at once.
    ///
    /// # Safety
    /// Both buffers outlive the copy (until the stream is synchronised),
    /// and nothing else writes the ranges while it runs.
    pub unsafe fn copy<T: DeviceCopy>(
        &self,
        dst: &DeviceBuffer<T>,
        to: usize,
        src: &DeviceBuffer<T>,
        from: Range<usize>,
    ) -> Result<()> {
        self.check_device(dst.runtime(), "Stream::copy")?;
        self.check_device(src.runtime(), "Stream::copy")?;
        check_range("Stream::copy (source)", &from, src.len())?;
        let to_range = to..to.saturating_add(from.len());
        check_range("Stream::copy (destination)", &to_range, dst.len())?;
        let bytes = from.len() * size_of::<T>();
        self.queue
            .copy(byte_addr(dst, to), byte_addr(src, from.start), bytes)
    }

    /// Queues a copy of `src[from]` into pinned host memory, `dst` from
    /// element `to` on: the staging of a host-driven halo exchange (the copy
    /// engine moves it at full speed; [`host_ptr`](MappedBuffer::host_ptr)
    /// reads it once the stream is synchronised). Returns at once.
    ///
    /// # Safety
    /// As [`copy`](Self::copy); and the host does not touch the range of
    /// `dst` until the stream is synchronised.
    pub unsafe fn copy_to_mapped<T: DeviceCopy>(
        &self,
        dst: &MappedBuffer<T>,
        to: usize,
        src: &DeviceBuffer<T>,
        from: Range<usize>,
    ) -> Result<()> {
        self.check_device(dst.runtime(), "Stream::copy_to_mapped")?;
        self.check_device(src.runtime(), "Stream::copy_to_mapped")?;
        check_range("Stream::copy_to_mapped (source)", &from, src.len())?;
        let to_range = to..to.saturating_add(from.len());
        check_range("Stream::copy_to_mapped (destination)", &to_range, dst.len())?;
        let bytes = from.len() * size_of::<T>();
        let dst_addr = dst.device_ptr() as u64 + (to * size_of::<T>()) as u64;
        self.queue.copy(dst_addr, byte_addr(src, from.start), bytes)
    }

    /// Queues a copy of pinned host memory `src[from]` into `dst` from
    /// element `to` on. Returns at once.
    ///
    /// # Safety
    /// As [`copy_to_mapped`](Self::copy_to_mapped).
    pub unsafe fn copy_from_mapped<T: DeviceCopy>(
        &self,
        dst: &DeviceBuffer<T>,
        to: usize,
        src: &MappedBuffer<T>,
        from: Range<usize>,
    ) -> Result<()> {
        self.check_device(dst.runtime(), "Stream::copy_from_mapped")?;
        self.check_device(src.runtime(), "Stream::copy_from_mapped")?;
        check_range("Stream::copy_from_mapped (source)", &from, src.len())?;
        let to_range = to..to.saturating_add(from.len());
        check_range(
            "Stream::copy_from_mapped (destination)",
            &to_range,
            dst.len(),
        )?;
        let bytes = from.len() * size_of::<T>();
        let src_addr = src.device_ptr() as u64 + (from.start * size_of::<T>()) as u64;
        self.queue.copy(byte_addr(dst, to), src_addr, bytes)
    }

    /// Copies `src` from element `from` on into `out`, after the stream's
    /// earlier work, and waits for the stream.
    pub fn read<T: DeviceCopy>(
        &self,
        src: &DeviceBuffer<T>,
        from: usize,
        out: &mut [T],
    ) -> Result<()> {
        self.check_device(src.runtime(), "Stream::read")?;
        check_range(
            "Stream::read",
            &(from..from.saturating_add(out.len())),
            src.len(),
        )?;
        self.queue.read(byte_addr(src, from), as_bytes_mut(out))
    }

    /// Copies `data` into `dst` from element `to` on, after the stream's
    /// earlier work, and waits for the stream.
    pub fn write<T: DeviceCopy>(
        &self,
        dst: &mut DeviceBuffer<T>,
        to: usize,
        data: &[T],
    ) -> Result<()> {
        self.check_device(dst.runtime(), "Stream::write")?;
        check_range(
            "Stream::write",
            &(to..to.saturating_add(data.len())),
            dst.len(),
        )?;
        self.queue.write(byte_addr(dst, to), as_bytes(data))
    }

    /// Waits until everything queued on the stream has finished; a kernel
    /// fault or failed copy among it is the error.
    pub fn synchronize(&self) -> Result<()> {
        self.queue.synchronize()
    }

    /// Makes the work queued on this stream from now on start only after
    /// everything queued on `other` so far has finished, without the host
    /// waiting (CUDA's event record and stream wait). Both streams must be
    /// of one runtime.
    pub fn wait_for(&self, other: &Stream) -> Result<()> {
        self.check_device(&other.rt, "Stream::wait_for")?;
        self.queue.wait_for(&*other.queue)
    }
}
