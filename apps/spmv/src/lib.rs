//! Sparse matrix–vector products (seed 000): a CSR matrix of `n` rows
//! split evenly by rows over the world's ranks, the vector's entries that a
//! rank's rows read fetched from the ranks that own them, and power
//! iteration, the same products each scaled by the inverse of the last
//! one's norm (an `allreduce`) until the norm, the estimate of the
//! dominant eigenvalue, settles.
//!
//! The matrix is made by the program ([`host::Matrix`]): the 5-point
//! Poisson matrix of an `m × m` grid, or a random banded one from a fixed
//! seed. Its bandwidth decides which ranks talk: a rank reads the entries
//! within the bandwidth of its rows.
//!
//! Two programs share one compute routine, [`product_rows`]:
//! * [`SPMV`] (`src/bin/spmv.rs`): dcuda rank kernels; a rank sends the
//!   entries it computed to the ranks of other processes that read them
//!   with notified puts (on its own process they are in place: a
//!   notification says they are ready), one persistent kernel;
//! * [`SPMV_STEP`] (`src/bin/spmv_mpi.rs`): the host-driven baseline, a
//!   kernel per product, the entries moved by the host and MPI, with or
//!   without streams overlapping them with the interior rows.
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
