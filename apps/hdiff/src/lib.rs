//! Horizontal diffusion (`hdiff`), the COSMO weather-code stencil of the
//! dCUDA papers: on a 3D field of `f64` (`nx` × `ny` × `nz` levels), three
//! dependent horizontal stencils an iteration, in → Laplacian → limited
//! fluxes in x and y → out, the output the next iteration's input. In x
//! the outermost two columns are a fixed frame; y is periodic.
//!
//! The rows (y) are split evenly over the world's ranks ([`split`]); each
//! stage needs one halo row that a neighbour computed: the input's on both
//! sides, the Laplacian's below, the y flux's above. Two programs share the
//! stencils ([`laplacian`], [`fluxes`], [`output`]):
//! * [`HDIFF`] (`src/bin/hdiff.rs`): dcuda rank kernels, each halo row put
//!   with a notification as soon as it is computed, one persistent kernel;
//! * [`HDIFF_STAGE_1`] (and the other batches; [`HDIFF_BANDS_1`] and
//!   the others for blocks of several rows, walked down by chunks; the
//!   ranks walk across theirs) (`src/bin/hdiff_mpi.rs`): the host-driven baseline, a
//!   kernel per stage, halos moved by the host after each, with or without
//!   streams overlapping them.
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
