//! Shared pieces of the end-to-end tests: the PTX of the test kernels.

/// The PTX of `kernels-ptx/smoke`, built by this crate's build script.
pub fn smoke_ptx() -> dcuda::Ptx {
    dcuda::include_ptx!("dcuda_smoke_kernels")
}

/// The PTX of `kernels-ptx/ranks`.
pub fn rank_ptx() -> dcuda::Ptx {
    dcuda::include_ptx!("dcuda_rank_kernels")
}

pub mod comms;
pub mod halo3;
pub mod messages;
pub mod plans;
pub mod traced;
pub mod typed;
