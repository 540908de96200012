//! Typed block shared memory.
//!
//! Declare an array with [`shared_array!`](crate::shared_array); each block
//! gets its own copy. On the GPU the declaration becomes a PTX `.shared`
//! symbol (`#[link_section = ".shared"]` is silently ignored by rustc's nvptx
//! backend) and element accesses are `ld.shared`/`st.shared`; in the emulator
//! each block owns a zeroed buffer. Shared memory is not initialised on the
//! GPU: write before you read, and separate writers from readers of another
//! thread with [`sync_threads`](crate::arch::sync_threads).

use core::marker::PhantomData;

/// An element type of shared memory.
pub trait SharedScalar: Copy + sealed::Sealed {
    #[doc(hidden)]
    unsafe fn load_shared(addr: u64) -> Self;
    #[doc(hidden)]
    unsafe fn store_shared(addr: u64, value: Self);
}

mod sealed {
    pub trait Sealed {}
}

#[cfg(target_arch = "nvptx64")]
macro_rules! impl_shared_scalar {
    ($($t:ty: $reg:ident, $ptx:literal;)*) => {$(
        impl sealed::Sealed for $t {}
        impl SharedScalar for $t {
            #[inline(always)]
            unsafe fn load_shared(addr: u64) -> Self {
                let v: $t;
                core::arch::asm!(concat!("ld.shared.", $ptx, " {}, [{}];"), out($reg) v, in(reg64) addr, options(nostack, readonly));
                v
            }
            #[inline(always)]
            unsafe fn store_shared(addr: u64, value: Self) {
                core::arch::asm!(concat!("st.shared.", $ptx, " [{}], {};"), in(reg64) addr, in($reg) value, options(nostack));
            }
        }
    )*};
}

#[cfg(not(target_arch = "nvptx64"))]
macro_rules! impl_shared_scalar {
    ($($t:ty: $reg:ident, $ptx:literal;)*) => {$(
        impl sealed::Sealed for $t {}
        impl SharedScalar for $t {
            unsafe fn load_shared(addr: u64) -> Self {
                core::ptr::read_volatile(addr as usize as *const $t)
            }
            unsafe fn store_shared(addr: u64, value: Self) {
                core::ptr::write_volatile(addr as usize as *mut $t, value)
            }
        }
    )*};
}

impl_shared_scalar! {
    u32: reg32, "u32";
    i32: reg32, "s32";
    f32: reg32, "f32";
    u64: reg64, "u64";
    i64: reg64, "s64";
    f64: reg64, "f64";
}

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

    /// A generic pointer to element 0, for calls that take pointers (a put
    /// from shared memory to a rank of this device, say).
    #[inline(always)]
    pub fn as_mut_ptr(&self) -> *mut T {
        #[cfg(target_arch = "nvptx64")]
        {
            let p: u64;
            // SAFETY: converts a shared-window address to a generic one.
            unsafe {
                core::arch::asm!(
                    "cvta.shared.u64 {}, {};",
                    out(reg64) p,
                    in(reg64) S::base(),
                    options(pure, nomem, nostack)
                )
            };
            p as *mut T
        }
        #[cfg(not(target_arch = "nvptx64"))]
        {
            S::base() as usize as *mut T
        }
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

#[doc(hidden)]
#[cfg(not(target_arch = "nvptx64"))]
pub fn emulated_base(symbol: &'static str, bytes: usize) -> u64 {
    crate::emu::shared_base(symbol, bytes) as usize as u64
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
#[cfg_attr(
    target_arch = "nvptx64",
    allow_internal_unstable(asm_experimental_arch)
)]
macro_rules! shared_array {
    ($(#[$meta:meta])* $vis:vis static $name:ident : [$t:ty; $n:expr] $(;)?) => {
        #[allow(non_snake_case)]
        #[doc(hidden)]
        $vis mod $name {
            #[allow(unused_imports)]
            use super::*;
            pub struct Symbol;
            impl $crate::shared::SharedSymbol for Symbol {
                const BYTES: usize = ::core::mem::size_of::<$t>() * ($n);
                #[inline(always)]
                fn base() -> u64 {
                    #[cfg(target_arch = "nvptx64")]
                    {
                        let a: u64;
                        // SAFETY: takes the address of the symbol declared below.
                        unsafe {
                            ::core::arch::asm!(
                                concat!("mov.u64 {}, dcuda_shared_", stringify!($name), ";"),
                                out(reg64) a,
                                options(pure, nomem, nostack)
                            )
                        };
                        a
                    }
                    #[cfg(not(target_arch = "nvptx64"))]
                    {
                        $crate::shared::emulated_base(
                            concat!(module_path!(), "::", stringify!($name)),
                            <Self as $crate::shared::SharedSymbol>::BYTES,
                        )
                    }
                }
            }
            #[cfg(target_arch = "nvptx64")]
            ::core::arch::global_asm!(
                concat!(".shared .align 16 .b8 dcuda_shared_", stringify!($name), "[{bytes}];"),
                bytes = const <Symbol as $crate::shared::SharedSymbol>::BYTES,
            );
        }
        $(#[$meta])*
        #[allow(non_upper_case_globals)]
        $vis static $name: $crate::shared::SharedArray<$t, { $n }, $name::Symbol> =
            $crate::shared::SharedArray::new();
    };
}
