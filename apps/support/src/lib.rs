//! What the applications' host programs share, so that each application's
//! code is its algorithm:
//! * [`Job`]: the few MPI calls of a host-driven baseline;
//! * [`RowHalos`]: the halo exchange of a field split in rows over
//!   processes, periodic: device copies on one process, pinned host memory
//!   and `MPI_Sendrecv` between processes;
//! * [`args`]: the command line and the shared options' checks;
//! * [`report`]: what every program reports of a run, and its CSV row;
//! * [`ranks_that_fit`], [`blocks_that_fit`], [`clock_stamp`]: what the
//!   programs ask of the device;
//! * [`testing`]: runs a program alone or under `mpirun` and checks that it
//!   verified its result.

pub mod args;
mod device;
mod halos;
mod job;
pub mod report;
pub mod testing;

pub use device::{blocks_that_fit, clock_stamp, ranks_that_fit, registers_to_share};
pub use halos::{Direction, RowHalos};
pub use job::Job;

/// The error type of the host programs: any error, with its message.
pub type Res<T> = Result<T, Box<dyn std::error::Error>>;

/// A program's `main`: dcuda's log messages to standard error
/// (`DCUDA_LOG` filters), then `run`; an error is printed after the
/// program's name and the process exits with status 1.
pub fn main(program: &str, run: impl FnOnce() -> Res<()>) {
    dcuda::log::init();
    if let Err(e) = run() {
        eprintln!("{program}: {e}");
        std::process::exit(1);
    }
}
