//! What the benchmark programs share: the command line, statistics and the plots.
//! `bench` measures one device, `bench_world` two processes; both report
//! every number beside a baseline measured in the same run.

pub mod baseline;
pub mod chunks;
pub mod collectives;
/// The latency-bandwidth model, now the runtime's own ([`dcuda::model`]).
pub use dcuda::model;
pub mod model_file;
pub mod mpi_baseline;
pub mod options;
pub mod peer_baseline;
pub mod plot;
pub mod report;
pub mod stats;
pub mod suite;
pub mod table;
pub mod world_rows;
