//! Shared pieces of the examples and end-to-end tests.

// ANCHOR: include_ptx
/// The PTX of `kernels-ptx/smoke`, built by this crate's build script.
pub fn smoke_ptx() -> dcuda::Ptx {
    dcuda::include_ptx!("dcuda_smoke_kernels")
}
// ANCHOR_END: include_ptx

/// The PTX of `kernels-ptx/ranks`.
pub fn rank_ptx() -> dcuda::Ptx {
    dcuda::include_ptx!("dcuda_rank_kernels")
}
