//! Short-range particle dynamics (seed 000): particles in a periodic
//! square box interact through a soft repulsion cut off at `rc`, move by
//! velocity Verlet, and the box is split in vertical slabs, one per rank
//! (dcuda) or block (baseline) of every process. Every step a particle that
//! left its slab moves to the neighbour that owns it now, and each slab
//! sends its neighbours the particles within `rc` of their border (its
//! halo), both as variable-length messages: a count and the records. The
//! forces come from a cell list of the slab's own particles and one of the
//! halo's. Every `--every` steps the total energy and particle count are
//! summed over the job, so conservation can be checked.
//!
//! Two programs share the compute, [`compute`]:
//! * [`PARTICLES`] (`src/bin/particles.rs`): dcuda rank kernels, one
//!   persistent kernel; a slab's messages are notified puts of the count
//!   and records into the neighbour's inbox, and the forces between the
//!   slab's own particles are computed while the halo is in flight;
//! * `src/bin/particles_mpi.rs`: the host-driven baseline, four kernels a
//!   step ([`MOVE_OUT`], [`MOVE_IN`], [`OWN_FORCES_BLOCKS`],
//!   [`HALO_FORCES_BLOCKS`]),
//!   the messages between processes staged through the host and
//!   `MPI_Isend`/`MPI_Irecv`, with or without a second stream overlapping
//!   them with the own forces.
#![no_std]
#![cfg_attr(target_arch = "nvptx64", feature(abi_ptx))]

#[cfg(not(target_arch = "nvptx64"))]
extern crate std;

mod baseline;
pub mod compute;
#[cfg(not(target_arch = "nvptx64"))]
pub mod host;
mod ranks;

pub use baseline::*;
pub use compute::{Domain, Slabs};
pub use ranks::*;
