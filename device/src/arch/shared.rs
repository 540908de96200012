//! The shared-memory backend: element loads and stores, generic
//! addresses, and the declaration of a block's array. On the GPU an array
//! is a PTX `.shared` symbol (`#[link_section = ".shared"]` is silently
//! ignored by rustc's nvptx backend) accessed with `ld.shared`/`st.shared`;
//! in the emulator each block owns a zeroed buffer.

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

/// The generic address of a shared-memory address: what pointers and the
/// memory calls take.
#[inline(always)]
pub fn generic_address(shared: u64) -> u64 {
    #[cfg(target_arch = "nvptx64")]
    {
        let p: u64;
        // SAFETY: converts a shared-window address to a generic one.
        unsafe {
            core::arch::asm!(
                "cvta.shared.u64 {}, {};",
                out(reg64) p,
                in(reg64) shared,
                options(pure, nomem, nostack)
            )
        };
        p
    }
    #[cfg(not(target_arch = "nvptx64"))]
    {
        shared
    }
}

#[doc(hidden)]
#[cfg(not(target_arch = "nvptx64"))]
pub fn emulated_base(symbol: &'static str, bytes: usize) -> u64 {
    super::emu::shared_base(symbol, bytes) as usize as u64
}

/// Declares the storage of one shared array: a `Symbol` type whose base is
/// a PTX `.shared` symbol on the GPU and a per-block buffer in the
/// emulator. Used by [`shared_array!`](crate::shared_array).
#[doc(hidden)]
#[macro_export]
#[cfg_attr(
    target_arch = "nvptx64",
    allow_internal_unstable(asm_experimental_arch)
)]
macro_rules! __dcuda_shared_symbol {
    ($name:ident, $t:ty, $n:expr) => {
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
                    $crate::arch::shared::emulated_base(
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
    };
}
