//! The dcuda host runtime.
//!
//! A [`Runtime`] owns one device, either a GPU, driven through the CUDA
//! driver API (`libcuda`, found at run time), or the CPU emulator, which runs
//! the same kernels compiled for the host. The backend is picked at start:
//! the GPU when a driver and a device are present, else the emulator;
//! override it with [`RuntimeBuilder::backend`] or `DCUDA_BACKEND`.
//!
//! ```no_run
//! # fn main() -> Result<(), dcuda::Error> {
//! let rt = dcuda::Runtime::new()?; // prints the backend it chose
//! let data = rt.upload(&[1.0f32, 2.0, 3.0])?;
//! assert_eq!(data.download()?, vec![1.0, 2.0, 3.0]);
//! # Ok(()) }
//! ```
#![warn(missing_docs)]

mod backend;
pub mod config;
mod error;
mod launch;
pub mod log;
mod memory;
pub mod model;
mod module;
mod nvshmem;
pub mod plan;
mod run;
mod runtime;
mod stream;
pub mod trace;
pub mod transport;
mod world;

pub use backend::{Backend, BackendChoice};
pub use dcuda_device::kernel::{Kernel, KernelArgs, KernelParam, RankArgs, RankKernel};
pub use dcuda_device::{
    Cursor, Datatype, DeviceCopy, DeviceSlice, Dim3, Indexed, Layout, TypeError,
};
pub use error::{Error, Result};
pub use launch::{Launch, LaunchConfig};
pub use memory::{DeviceBuffer, MappedBuffer};
pub use module::{LoadCaching, LoadOptions, Module, Ptx};
pub use run::{RankInfo, RankRun, RunConfig, RunReport, TimerRecord};
pub use runtime::{DeviceInfo, Runtime, RuntimeBuilder};
pub use stream::Stream;
pub use transport::{Job, Transport, TransportChoice};

/// Embeds the PTX that `dcuda_builder::PtxBuilder` built for the kernel crate
/// `name` (its library name, e.g. `"dcuda_smoke_kernels"`) in a build
/// script of the calling crate. Expands to a [`Ptx`].
#[macro_export]
macro_rules! include_ptx {
    ($name:literal) => {
        $crate::Ptx::embedded(
            $name,
            include!(concat!(env!("OUT_DIR"), "/", $name, ".ptx.rs")),
        )
    };
}
