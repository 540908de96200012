//! Host-side kernel handles, emitted by [`#[kernel]`](macro@crate::kernel).
//!
//! A [`Kernel<A>`] names a PTX entry point and carries the same function
//! compiled for the host, which the emulator runs. `A` is the tuple of the
//! kernel's parameter types, so a launch with arguments of the wrong type
//! does not compile.

use crate::abi::RankContext;
use core::ffi::c_void;

/// A kernel: its PTX entry name and its host-compiled body.
pub struct Kernel<A> {
    name: &'static str,
    emulate: fn(A),
}

impl<A: KernelArgs> Kernel<A> {
    #[doc(hidden)]
    pub const fn new(name: &'static str, emulate: fn(A)) -> Self {
        Kernel { name, emulate }
    }

    /// The PTX entry name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The body compiled for the host; runs one emulated thread.
    pub fn emulate(&self) -> fn(A) {
        self.emulate
    }
}

/// A value that can be passed to a kernel: passed by value through the
/// launch's parameter buffer, with the same layout on host and device.
///
/// # Safety
/// The type must be `#[repr(C)]` (or a primitive or raw pointer) and contain
/// no host-only pointers that the kernel dereferences.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a kernel parameter",
    note = "kernel parameters are numbers, `bool`, raw pointers, or `#[repr(C)]` Copy types with `unsafe impl KernelParam`"
)]
pub unsafe trait KernelParam: Copy + 'static {}

macro_rules! kernel_params {
    ($($t:ty),*) => {$(unsafe impl KernelParam for $t {})*};
}
kernel_params!(u8, u16, u32, u64, usize, i8, i16, i32, i64, isize, f32, f64, bool);
unsafe impl<T: 'static> KernelParam for *const T {}
unsafe impl<T: 'static> KernelParam for *mut T {}
unsafe impl<T: crate::memory::DeviceCopy> KernelParam for crate::memory::DeviceSlice<T> {}

/// The most parameters a kernel may have.
pub const MAX_PARAMS: usize = 12;

/// Pointers to a kernel's parameters, as `cuLaunchKernel` takes them.
pub struct ParamPtrs {
    ptrs: [*mut c_void; MAX_PARAMS],
    len: usize,
}

impl ParamPtrs {
    /// The pointers, in parameter order.
    pub fn as_mut_slice(&mut self) -> &mut [*mut c_void] {
        &mut self.ptrs[..self.len]
    }
}

/// The parameter list of a kernel: a tuple of [`KernelParam`]s.
///
/// # Safety
/// `param_ptrs` must return one pointer to each field, in order.
pub unsafe trait KernelArgs: Copy + 'static {
    /// Pointers to each parameter, valid while `self` is not moved.
    fn param_ptrs(&mut self) -> ParamPtrs;
}

macro_rules! kernel_args {
    ($(($($v:ident: $t:ident),*))*) => {$(
        unsafe impl<$($t: KernelParam),*> KernelArgs for ($($t,)*) {
            #[allow(unused_mut, unused_assignments)]
            fn param_ptrs(&mut self) -> ParamPtrs {
                let ($($v,)*) = self;
                let mut ptrs = [core::ptr::null_mut(); MAX_PARAMS];
                let mut len = 0;
                $(ptrs[len] = $v as *mut $t as *mut c_void; len += 1;)*
                ParamPtrs { ptrs, len }
            }
        }
    )*};
}

kernel_args! {
    ()
    (a: A)
    (a: A, b: B)
    (a: A, b: B, c: C)
    (a: A, b: B, c: C, d: D)
    (a: A, b: B, c: C, d: D, e: E)
    (a: A, b: B, c: C, d: D, e: E, f: F)
    (a: A, b: B, c: C, d: D, e: E, f: F, g: G)
    (a: A, b: B, c: C, d: D, e: E, f: F, g: G, h: H)
    (a: A, b: B, c: C, d: D, e: E, f: F, g: G, h: H, i: I)
    (a: A, b: B, c: C, d: D, e: E, f: F, g: G, h: H, i: I, j: J)
    (a: A, b: B, c: C, d: D, e: E, f: F, g: G, h: H, i: I, j: J, k: K)
    (a: A, b: B, c: C, d: D, e: E, f: F, g: G, h: H, i: I, j: J, k: K, l: L)
}

pub use crate::rank::RankArgs;

/// A rank kernel: its PTX entry name and its host-compiled body, which the
/// emulator runs once per rank.
pub struct RankKernel<A> {
    name: &'static str,
    emulate: fn(*const RankContext, &A),
}

impl<A> RankKernel<A> {
    /// Made by `#[rank]`, which checks `A: RankArgs` at the argument type
    /// (so a bad argument struct is one error, there).
    #[doc(hidden)]
    pub const fn new(name: &'static str, emulate: fn(*const RankContext, &A)) -> Self {
        RankKernel { name, emulate }
    }
}

impl<A: RankArgs> RankKernel<A> {
    /// The PTX entry name.
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The body compiled for the host; runs one emulated rank.
    pub fn emulate(&self) -> fn(*const RankContext, &A) {
        self.emulate
    }
}
