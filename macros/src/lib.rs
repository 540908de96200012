//! Procedural macros of dcuda. Use them through `dcuda_device`.

use proc_macro::TokenStream;

mod kernel;
mod rank;

/// Turns a function into a GPU kernel with a host-side launch handle.
///
/// ```ignore
/// #[kernel]
/// pub unsafe fn saxpy(a: f32, x: *const f32, y: *mut f32, n: u32) { ... }
/// ```
///
/// emits, for `nvptx64`, the PTX entry point `saxpy`; for the host, the same
/// function (run per emulated thread by the CPU emulator) and a constant
/// `SAXPY: dcuda_device::kernel::Kernel<(f32, *const f32, *mut f32, u32)>`
/// that the host runtime launches. The argument tuple is typed, so launching
/// with wrong arguments does not compile.
///
/// Rules: no generics, no `self`, no return value, every parameter a plain
/// `name: Type` whose type implements `KernelParam`.
#[proc_macro_attribute]
pub fn kernel(attr: TokenStream, item: TokenStream) -> TokenStream {
    kernel::expand(attr.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}

/// Turns a function into a rank kernel: each thread block is one rank.
///
/// ```ignore
/// #[rank]
/// pub fn stats(rank: &mut Rank, args: &StatsArgs) { ... }
/// ```
///
/// The function takes the rank handle and a `Copy` argument struct by
/// reference. The macro emits the PTX entry point (`stats`), which sets up
/// the rank and runs the body on every thread of the block, and a host-side
/// launch handle `STATS: RankKernel<StatsArgs>`.
///
/// It rejects, with the rule and the fix: the rank handle (or any
/// collective call) inside a per-thread region; raw thread-level intrinsics
/// (`thread_idx`, `sync_threads`, ...) anywhere in the body, also through
/// `use` aliases and macros; non-idempotent atomics in uniform code;
/// closures that capture the rank handle; assignments from a per-thread
/// region to variables of the uniform code.
#[proc_macro_attribute]
pub fn rank(attr: TokenStream, item: TokenStream) -> TokenStream {
    rank::expand(attr.into(), item.into())
        .unwrap_or_else(syn::Error::into_compile_error)
        .into()
}
