//! Typed block shared memory.
//!
//! Declare an array with [`shared_array!`](crate::shared_array); each block
//! gets its own copy (see `arch::shared` for how each backend stores it). Shared memory is not initialised on the
//! GPU: write before you read, and separate writers from readers of another
//! thread with [`sync_threads`](crate::arch::sync_threads).

use core::marker::PhantomData;

pub use crate::arch::shared::SharedScalar;
use crate::memory::DeviceSlice;

/// The storage behind one [`shared_array!`](crate::shared_array) declaration.
/// Implemented by the macro; not meant to be implemented by hand.
pub trait SharedSymbol {
    /// Size of the array in bytes.
    const BYTES: usize;
    /// Address of the array: in the shared window on the GPU, a host address
    /// in the emulator.
    fn base() -> u64;
}

/// A per-block array of `N` elements of `T` in shared memory.
pub struct SharedArray<T, const N: usize, S> {
    _marker: PhantomData<fn() -> (T, S)>,
}

impl<T: SharedScalar, const N: usize, S: SharedSymbol> SharedArray<T, N, S> {
    #[doc(hidden)]
    pub const fn new() -> Self {
        SharedArray {
            _marker: PhantomData,
        }
    }

    /// Number of elements.
    pub const fn len(&self) -> usize {
        N
    }

    /// Whether the array has no elements.
    pub const fn is_empty(&self) -> bool {
        N == 0
    }

    #[inline(always)]
    fn addr(index: usize) -> u64 {
        S::base() + (index * core::mem::size_of::<T>()) as u64
    }

    /// A generic pointer to element 0.
    #[inline(always)]
    pub fn as_mut_ptr(&self) -> *mut T {
        crate::arch::shared::generic_address(S::base()) as usize as *mut T
    }

    /// The whole array as a [`DeviceSlice`], for the memory calls (a put
    /// from shared memory to a rank of this device, say). Shared memory
    /// lives as long as the block, so the slice is valid wherever the
    /// block can use it.
    #[inline(always)]
    pub fn as_slice(&self) -> DeviceSlice<T>
    where
        T: crate::memory::DeviceCopy,
    {
        // SAFETY: the array's N elements, for the block's lifetime.
        unsafe { DeviceSlice::from_raw_parts(self.as_mut_ptr(), N) }
    }

    /// Reads element `index`; panics (traps on the GPU) if out of bounds.
    #[inline(always)]
    pub fn get(&self, index: usize) -> T {
        assert!(index < N, "shared array index out of bounds");
        // SAFETY: in bounds; shared memory is plain data of type T.
        unsafe { T::load_shared(Self::addr(index)) }
    }

    /// Writes element `index`; panics (traps on the GPU) if out of bounds.
    #[inline(always)]
    pub fn set(&self, index: usize, value: T) {
        assert!(index < N, "shared array index out of bounds");
        // SAFETY: in bounds; shared memory is plain data of type T.
        unsafe { T::store_shared(Self::addr(index), value) }
    }
}

/// Declares a typed array in block shared memory.
///
/// ```ignore
/// dcuda_device::shared_array!(static TILE: [f32; 256]);
/// TILE.set(i, x);
/// dcuda_device::arch::sync_threads();
/// let y = TILE.get(255 - i);
/// ```
///
/// The name becomes a PTX symbol (`dcuda_shared_TILE`), so it must be unique
/// within the kernel crate.
#[macro_export]
macro_rules! shared_array {
    ($(#[$meta:meta])* $vis:vis static $name:ident : [$t:ty; $n:expr] $(;)?) => {
        #[allow(non_snake_case)]
        #[doc(hidden)]
        $vis mod $name {
            #[allow(unused_imports)]
            use super::*;
            $crate::__dcuda_shared_symbol!($name, $t, $n);
        }
        $(#[$meta])*
        #[allow(non_upper_case_globals)]
        $vis static $name: $crate::shared::SharedArray<$t, { $n }, $name::Symbol> =
            $crate::shared::SharedArray::new();
    };
}
