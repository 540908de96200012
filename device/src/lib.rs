//! The dcuda device library.
//!
//! Kernel crates depend on this crate. It compiles for two targets:
//!
//! * `nvptx64-nvidia-cuda`: every intrinsic is one or a few inline PTX
//!   instructions, and the crate is `no_std`;
//! * the host target: the same API runs on std atomics and OS threads,
//!   driven by the CPU emulator backend of the `dcuda` host crate.
//!
//! Only [`arch`] differs between the two; everything else is written once:
//!
//! | module | what |
//! | --- | --- |
//! | [`arch`] | intrinsics, block primitives, shared-memory backend, emulator context |
//! | [`block`] | the block handle: regions, per-thread state, block collectives |
//! | [`datatype`] | which elements a typed transfer moves ([`Datatype`]) |
//! | [`indexed`] | blocks at listed displacements ([`Indexed`]) |
//! | [`layout`] | what a typed transfer accepts on each side ([`Layout`]) |
//! | [`tile`] | a rank's tile of a 2D or 3D grid with its halo frame ([`Tile`], [`Tile3`]) |
//! | [`memory`] | typed device memory ([`DeviceSlice`]) and plain data ([`DeviceCopy`]) |
//! | [`shared`] | typed block shared memory |
//! | [`abi`] | the device–host ABI: run context, command ring, records |
//! | [`runtime`] | communicators, windows, notified access, matching, host calls |
//! | [`rank`](mod@rank) | [`Rank`], the handle of a rank kernel: the public face of all of it |
//! | [`kernel`](mod@kernel) | host-side launch handles that `#[kernel]` and `#[rank]` emit |
#![no_std]
// Crate-level attributes must sit at the crate root: the only target
// switch outside `arch`.
#![cfg_attr(
    target_arch = "nvptx64",
    feature(asm_experimental_arch, allow_internal_unstable)
)]
#![cfg_attr(target_arch = "nvptx64", allow(internal_features))]
#![warn(missing_docs)]

pub mod abi;
pub mod arch;
pub mod block;
pub mod cursor;
pub mod datatype;
pub mod indexed;
pub mod kernel;
pub mod layout;
pub mod memory;
pub mod rank;
pub mod runtime;
pub mod shared;
pub mod tile;
mod type_error;

pub use arch::{Dim3, Ordering, Scope};
pub use block::{
    BitAnd, BitOr, BitXor, Max, Min, PerThread, Prod, ReduceOp, Reducible, Sum, Thread,
};
pub use cursor::Cursor;
pub use datatype::{Datatype, TypeError};
pub use dcuda_macros::{kernel, rank};
pub use indexed::Indexed;
pub use layout::Layout;
pub use memory::{DeviceCopy, DeviceSlice};
pub use rank::{PendingAllreduce, Rank, RankArgs};
pub use runtime::{
    Comm, CommKind, Match, PutTarget, Source, SplitType, Status, Window, MAX_NOTIFY_EACH,
};
pub use tile::{Face, Side, Tile, Tile3};

/// Items the `#[kernel]` macro refers to; not part of the public API.
#[doc(hidden)]
pub mod __private {
    pub use core;
}
