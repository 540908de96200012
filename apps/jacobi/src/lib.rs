//! Jacobi 2D, the problem of NVIDIA's multi-GPU programming models
//! samples: a Laplace update of the four neighbours on an `nx` × `ny` grid
//! of `f32`, fixed left and right boundaries `sin(2πy/(ny−1))`, periodic
//! in y, and the L2 norm of the update in every iteration.
//!
//! The interior rows are split evenly over the world's ranks
//! ([`split`]). Three programs share one compute routine, [`sweep`]:
//! * [`JACOBI`] (`src/bin/jacobi.rs`): dcuda rank kernels, halos by
//!   notified puts, the norm by `allreduce`, one persistent kernel;
//! * [`JACOBI_STEP`] (`src/bin/jacobi_mpi.rs`): the host-driven baseline, a
//!   kernel per step, halos moved by the host (device copies, or copies to
//!   the host and MPI), with or without streams overlapping them;
//! * `baselines/jacobi_single.cu`: the same sweep in CUDA C (nvcc) on one
//!   GPU, against which the Rust PTX's speed is checked.
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
