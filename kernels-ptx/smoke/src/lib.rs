//! dcuda's smoke-test kernels. Compiled to PTX by `examples/build.rs` and,
//! for the emulator, into the host binaries as an ordinary crate.
// ANCHOR: header
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]
// ANCHOR_END: header

pub mod intrinsics;
pub mod probes;
pub mod saxpy;
