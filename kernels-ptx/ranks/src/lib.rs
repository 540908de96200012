//! Example rank kernels. Compiled to PTX by `examples/build.rs`, and for
//! the host (the emulator runs them from there).
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

pub mod chunks;
pub mod collectives;
pub mod comms;
pub mod divergence;
pub mod indexed;
pub mod messages;
pub mod misuse;
pub mod probe;
pub mod put_targets;
pub mod runtime_checks;
pub mod smooth;
pub mod split_phase;
pub mod stats;
pub mod stress;
pub mod traced;
pub mod typed;
pub mod typed_random;
