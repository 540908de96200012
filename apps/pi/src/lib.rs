//! Pi by numerical integration, the first program of seed 002 (MPI inside
//! a GPU): the midpoint rule for ∫₀¹ 4/(1+x²) dx = π over `intervals`
//! intervals, split evenly over every rank of every GPU, the parts
//! combined by a reduction to world rank 0.
//!
//! Two programs share one compute routine, [`midpoint_sum`]:
//! * [`PI`] (`src/bin/pi.rs`): dcuda rank kernels; each rank sums its
//!   intervals, its threads' sums combined by the block's `reduce`, the
//!   ranks' by `reduce_to` world rank 0, in one persistent kernel;
//! * [`PI_BLOCKS`] (`src/bin/pi_mpi.rs`): the host-driven baseline, a
//!   kernel per integration whose blocks write their sums, read back and
//!   combined by the host and `MPI_Allreduce`.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

mod baseline;
mod compute;
#[cfg(not(target_arch = "nvptx64"))]
pub mod host;
mod ranks;

pub use baseline::*;
pub use compute::*;
pub use ranks::*;
