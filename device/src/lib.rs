//! The dcuda device library.
//!
//! Kernel crates depend on this crate. It compiles for two targets:
//!
//! * `nvptx64-nvidia-cuda`: every intrinsic is one or a few inline PTX
//!   instructions ([`arch`]), and the crate is `no_std`.
//! * the host target: the same API runs on std atomics and OS threads, driven
//!   by the CPU emulator backend of the `dcuda` host crate.
//!
//! Only the intrinsics differ between the two; everything built on them is
//! shared.
#![no_std]
#![cfg_attr(
    target_arch = "nvptx64",
    feature(asm_experimental_arch, allow_internal_unstable)
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]
#![warn(missing_docs)]

#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

pub mod arch;
pub mod rank;
pub mod runtime;
pub mod shared;

#[cfg(not(target_arch = "nvptx64"))]
pub mod emu;
#[cfg(not(target_arch = "nvptx64"))]
pub mod kernel;

#[cfg(target_arch = "nvptx64")]
mod panic;

pub use arch::{Dim3, Ordering, Scope};
pub use dcuda_macros::{kernel, rank};
pub use rank::{Max, Min, PerThread, Rank, Sum, Thread};
pub use runtime::{Comm, CommKind, Match, Source, Window};

/// Items the `#[kernel]` macro refers to; not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use core;
}
