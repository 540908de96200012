//! Typed device memory as kernels see it: [`DeviceSlice<T>`], a pointer and
//! a length that safe code cannot make up. The host makes them from its
//! buffers (`DeviceBuffer::slice`), shared memory makes them from its
//! arrays ([`SharedArray::as_slice`](crate::shared::SharedArray::as_slice)),
//! and anything else takes `unsafe` ([`DeviceSlice::from_raw_parts`]). So
//! the safe calls that move data (puts, gets, windows) only ever touch
//! memory that someone vouched for.

use core::marker::PhantomData;
use core::ops::Range;

/// Plain data that can be copied to and from a device bit for bit: every
/// bit pattern is a valid value, and the layout is the same on host and
/// device. Every [`bytemuck::Pod`] type is one: derive `Pod` (and
/// `Zeroable`) on your `#[repr(C)]` structs.
///
/// # Safety
/// Implement it by hand only for types whose every bit pattern is a valid
/// value, with no padding and no pointers; deriving `Pod` checks that.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not plain device data",
    note = "device memory holds numbers, arrays of them, or `#[repr(C)]` structs that derive `bytemuck::Pod`"
)]
pub unsafe trait DeviceCopy: Copy + Send + Sync + 'static {}

// SAFETY: `Pod` is exactly "any bit pattern, no padding, no pointers".
unsafe impl<T: bytemuck::Pod + Send + Sync> DeviceCopy for T {}

/// `len` elements of `T` in memory a kernel may access: device memory of
/// this GPU (or host memory mapped into it), or the block's shared memory.
/// A handle, copied freely; it does not own the memory.
#[repr(C)]
pub struct DeviceSlice<T> {
    addr: u64,
    len: u64,
    _marker: PhantomData<*mut T>,
}

// SAFETY: a slice is an address and a length; every access through it is
// `unsafe` or a runtime call, so sharing it between the threads of a rank
// (capturing it in a region, which must be `Sync`) adds no data race that
// safe code could make.
unsafe impl<T> Sync for DeviceSlice<T> {}

impl<T> Clone for DeviceSlice<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for DeviceSlice<T> {}

impl<T> core::fmt::Debug for DeviceSlice<T> {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "DeviceSlice({:#x}, {} elements)", self.addr, self.len)
    }
}

impl<T: DeviceCopy> DeviceSlice<T> {
    /// A slice of `len` elements at `ptr`.
    ///
    /// # Safety
    /// `ptr` must be aligned for `T` and valid for reads and writes of
    /// `len` elements by the kernel, for as long as any copy of the slice
    /// is used: device memory that outlives the run, or shared memory.
    #[inline(always)]
    pub unsafe fn from_raw_parts(ptr: *mut T, len: usize) -> Self {
        DeviceSlice {
            addr: ptr as usize as u64,
            len: len as u64,
            _marker: PhantomData,
        }
    }

    /// An empty slice.
    #[inline(always)]
    pub const fn empty() -> Self {
        DeviceSlice {
            addr: core::mem::align_of::<T>() as u64,
            len: 0,
            _marker: PhantomData,
        }
    }

    /// Number of elements.
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the slice has no elements.
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Its size in bytes.
    #[inline(always)]
    pub fn bytes(&self) -> usize {
        self.len as usize * core::mem::size_of::<T>()
    }

    /// A pointer to element 0 (dereferencing it is `unsafe`, as always).
    #[inline(always)]
    pub fn as_ptr(&self) -> *const T {
        self.addr as usize as *const T
    }

    /// A mutable pointer to element 0.
    #[inline(always)]
    pub fn as_mut_ptr(&self) -> *mut T {
        self.addr as usize as *mut T
    }

    /// Elements `range`, or `None` if the range is not inside the slice.
    #[inline(always)]
    pub fn get(self, range: Range<usize>) -> Option<Self> {
        if range.start > range.end || range.end > self.len() {
            return None;
        }
        Some(DeviceSlice {
            addr: self.addr + (range.start * core::mem::size_of::<T>()) as u64,
            len: (range.end - range.start) as u64,
            _marker: PhantomData,
        })
    }

    /// Elements `range`; panics (traps on the GPU) if the range is not
    /// inside the slice, as slice indexing does.
    #[inline(always)]
    #[track_caller]
    pub fn slice(self, range: Range<usize>) -> Self {
        match self.get(range) {
            Some(s) => s,
            None => panic!("DeviceSlice range out of bounds"),
        }
    }

    /// The `index`-th of consecutive chunks of `len` elements: elements
    /// `index * len..(index + 1) * len` (a rank's part of an array).
    #[inline(always)]
    #[track_caller]
    pub fn chunk(self, index: usize, len: usize) -> Self {
        self.slice(index * len..(index + 1) * len)
    }

    /// Reads element `index`; panics if it is out of bounds.
    ///
    /// # Safety
    /// No other thread writes the element at the same time.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn read(&self, index: usize) -> T {
        assert!(index < self.len(), "DeviceSlice index out of bounds");
        self.as_ptr().add(index).read()
    }

    /// Writes element `index`; panics if it is out of bounds.
    ///
    /// # Safety
    /// No other thread reads or writes the element at the same time.
    #[inline(always)]
    #[track_caller]
    pub unsafe fn write(&self, index: usize, value: T) {
        assert!(index < self.len(), "DeviceSlice index out of bounds");
        self.as_mut_ptr().add(index).write(value)
    }
}
