//! The Aliev–Panfilov model of cardiac excitation (seed 003's
//! application): a 2D reaction–diffusion system of two fields, the
//! excitation `e` (diffusing, 5-point Laplacian) and the recovery `r`
//! (local), stepped explicitly, with no-flux boundaries (ghost points
//! mirror the interior). `f64`.
//!
//! The grid is split in 2D ([`Layout`]): processes in a grid, each
//! process's part over a grid of ranks, so that halos are rows and
//! columns. Two programs share the step of a point, and the walks that
//! share a step's points among a block's threads ([`step_claimed`],
//! [`step`]):
//! * [`ALIEV_PANFILOV`] (`src/bin/aliev_panfilov.rs`): dcuda rank kernels,
//!   halos by notified puts (columns between processes packed), one
//!   persistent kernel;
//! * [`PANFILOV_CLAIMED`] and [`PANFILOV_STEP_1`] (and the other batches) (`src/bin/aliev_panfilov_mpi.rs`): the host-driven
//!   baseline, a kernel per step, halos moved by the host (columns packed
//!   by a kernel), with or without streams overlapping them.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

mod baseline;
mod compute;
#[cfg(not(target_arch = "nvptx64"))]
pub mod host;
mod layout;
mod mirror;
mod ranks;
mod walk;

pub use baseline::*;
pub use compute::*;
pub use layout::*;
pub use mirror::*;
pub use ranks::*;
pub use walk::*;
