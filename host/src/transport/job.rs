//! The job a process belongs to, and the choice of its transport.

use super::gather::exchange_places;
use super::Transport;
use crate::error::{Error, Result};
use std::sync::{Arc, OnceLock};

/// This process's place in a job of several processes.
#[derive(Clone)]
pub struct Job {
    /// The transport.
    pub(crate) transport: Arc<dyn Transport>,
    /// Node of every process (processes on one host share a node index,
    /// unless `DCUDA_NODE` says otherwise).
    pub(crate) nodes: Vec<u32>,
    /// This process's index among the processes of its host: the GPU it
    /// takes when none is named.
    pub(crate) local_index: u32,
    /// Processes on this host.
    pub(crate) local_count: u32,
    /// Whether NVSHMEM was asked for (`DCUDA_TRANSPORT=nvshmem`): the
    /// runtime starts it on a GPU.
    pub(crate) nvshmem: bool,
}

impl Job {
    /// This process's index.
    pub fn process(&self) -> u32 {
        self.transport.process()
    }

    /// Processes in the job.
    pub fn processes(&self) -> u32 {
        self.transport.processes()
    }

    /// This process's node index.
    pub fn node(&self) -> u32 {
        self.nodes[self.process() as usize]
    }

    /// Process `process`'s node index (`None` past the job's processes).
    pub fn node_of(&self, process: u32) -> Option<u32> {
        self.nodes.get(process as usize).copied()
    }

    /// The transport's name.
    pub fn transport_name(&self) -> &'static str {
        self.transport.name()
    }

    /// The transport and the path device data take through it (for an
    /// MPI transport: whether the library says it is CUDA-aware).
    pub fn transport_description(&self) -> String {
        self.transport.describe()
    }

    /// Nodes in the job.
    pub fn nodes(&self) -> u32 {
        self.nodes.iter().max().map_or(1, |m| m + 1)
    }
}

/// Which transport a job uses.
#[derive(Clone)]
pub enum TransportChoice {
    /// A transport of dcuda's by name: `mpi`, `nvshmem` (MPI, with window
    /// accesses between processes through NVSHMEM on GPUs), or `none`
    /// (each process runs alone).
    Named(String),
    /// A transport of your own.
    Instance(Arc<dyn Transport>),
}

impl std::fmt::Debug for TransportChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            TransportChoice::Named(n) => write!(f, "Named({n:?})"),
            TransportChoice::Instance(t) => write!(f, "Instance({})", t.name()),
        }
    }
}

/// The transports dcuda has, by name.
pub const TRANSPORTS: &[&str] = &["mpi", "nvshmem", "none"];

static JOB: OnceLock<std::result::Result<Option<Job>, Arc<Error>>> = OnceLock::new();

/// The job this process belongs to: `None` for a single process. Set up on
/// first use, with `choice`, else `DCUDA_TRANSPORT`, else MPI when a
/// launcher (`mpirun`, `srun`) started the process.
pub fn job(choice: Option<TransportChoice>) -> Result<Option<Job>> {
    JOB.get_or_init(|| init(choice).map_err(Arc::new))
        .clone()
        .map_err(Error::JobSetup)
}

/// Whether a launcher started this process as part of a job: `mpirun`
/// (Open MPI's or MPICH's), or `srun` with several tasks (with or without
/// a process-manager interface for MPI).
fn launched_by_mpirun(var: &dyn Fn(&str) -> Option<String>) -> bool {
    [
        "OMPI_COMM_WORLD_SIZE",
        "PMI_SIZE",
        "PMIX_RANK",
        "MPI_LOCALNRANKS",
    ]
    .iter()
    .any(|v| var(v).is_some())
        || launcher_tasks(var).is_some_and(|(n, _)| n > 1)
}

/// How many processes the launcher started, and the variable that says
/// so. `mpirun` first: inside a Slurm allocation it starts its processes
/// through `srun` steps of its own, whose task counts are not the job's.
/// The batch step of `sbatch` has no step task count: a program run there
/// directly is one process.
fn launcher_tasks(var: &dyn Fn(&str) -> Option<String>) -> Option<(u32, &'static str)> {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "SLURM_STEP_NUM_TASKS"]
        .into_iter()
        .find_map(|v| Some((var(v)?.trim().parse().ok()?, v)))
}

/// Fails when MPI's job is not the one the launcher started: each of
/// `srun`'s tasks would otherwise run alone, silently (MPI makes a job of
/// one when it cannot reach the launcher's process manager).
fn check_launcher(processes: u32, var: &dyn Fn(&str) -> Option<String>) -> Result<()> {
    match launcher_tasks(var) {
        Some((n, from)) if n != processes => Err(Error::Network {
            call: "setup",
            reason: format!(
                "the launcher started {n} processes ({from}={n}), but MPI sees a job of {processes}: MPI did not reach the launcher's process manager. Under srun, pass --mpi=pmix (srun --mpi=list shows what this Slurm has) or set MpiDefault=pmix in slurm.conf; under mpirun, use the mpirun of the MPI that dcuda was built with"
            ),
        }),
        _ => Ok(()),
    }
}

fn env_var(name: &str) -> Option<String> {
    std::env::var(name).ok()
}

fn init(choice: Option<TransportChoice>) -> Result<Option<Job>> {
    if std::env::var_os("DCUDA_NETWORK").is_some() {
        return Err(Error::InvalidEnv {
            var: "DCUDA_NETWORK",
            value: std::env::var("DCUDA_NETWORK").unwrap_or_default(),
            expected: "nothing: it was renamed DCUDA_TRANSPORT (mpi or none)",
        });
    }
    let choice = match choice {
        Some(c) => c,
        None => TransportChoice::Named(
            crate::config::TRANSPORT
                .choice(&["mpi", "nvshmem", "none"])?
                .unwrap_or_default()
                .to_string(),
        ),
    };
    let nvshmem = matches!(&choice, TransportChoice::Named(n) if n.trim() == "nvshmem");
    let transport: Arc<dyn Transport> = match choice {
        TransportChoice::Instance(t) => t,
        TransportChoice::Named(name) => match name.trim() {
            "none" => return Ok(None),
            "" if !launched_by_mpirun(&env_var) => return Ok(None),
            "" | "mpi" | "nvshmem" => {
                let mpi = open_mpi()?;
                check_launcher(mpi.processes(), &env_var)?;
                mpi
            }
            other => {
                return Err(Error::InvalidEnv {
                    var: "DCUDA_TRANSPORT",
                    value: other.into(),
                    expected: "mpi, nvshmem or none",
                })
            }
        },
    };
    if transport.processes() == 1 {
        return Ok(None);
    }
    let places = exchange_places(&*transport)?;
    let (me, hosts) = (transport.process() as usize, &places.hosts);
    let local_index = hosts[..me].iter().filter(|&&h| h == hosts[me]).count() as u32;
    let local_count = hosts.iter().filter(|&&h| h == hosts[me]).count() as u32;
    Ok(Some(Job {
        transport,
        nodes: places.nodes,
        local_index,
        local_count,
        nvshmem,
    }))
}

#[cfg(feature = "mpi")]
fn open_mpi() -> Result<Arc<dyn Transport>> {
    Ok(Arc::new(super::mpi::MpiTransport::init()?))
}

#[cfg(not(feature = "mpi"))]
fn open_mpi() -> Result<Arc<dyn Transport>> {
    Err(Error::Network {
        call: "setup",
        reason: "this process was started by mpirun (or DCUDA_TRANSPORT=mpi), but dcuda was built without its `mpi` feature; enable it, or set DCUDA_TRANSPORT=none to run each process alone".into(),
    })
}

/// The exit hook of a job's transport: tells the others this process
/// leaves; returns whether the transport may finalise (no failure seen).
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn at_exit() -> bool {
    match JOB.get() {
        Some(Ok(Some(job))) => super::departure::leave(&*job.transport),
        _ => super::departure::failure().is_none(),
    }
}

/// `result`, with its error recorded as this process's failure when it is
/// part of a job: the job then aborts at exit instead of hanging.
pub(crate) fn noted<T>(result: Result<T>) -> Result<T> {
    if let Err(e) = &result {
        if matches!(JOB.get(), Some(Ok(Some(_)))) {
            super::departure::record_failure(&e.to_string());
        }
    }
    result
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A recorded environment, as `name=value` lines.
    fn env(lines: &'static str) -> impl Fn(&str) -> Option<String> {
        move |name| {
            lines.lines().find_map(|l| {
                let (k, v) = l.trim().split_once('=')?;
                (k == name).then(|| v.to_string())
            })
        }
    }

    // Recorded with Slurm 22.05 and Open MPI 4.1 on one node.
    const SRUN_NO_PMI: &str =
        "SLURM_NTASKS=2\nSLURM_PROCID=1\nSLURM_LOCALID=1\nSLURM_STEP_NUM_TASKS=2\nSLURM_STEPID=0";
    const SRUN_PMIX: &str = "SLURM_NTASKS=2\nSLURM_PROCID=0\nSLURM_STEP_NUM_TASKS=2\nPMIX_RANK=0";
    const SBATCH_STEP: &str = "SLURM_NTASKS=2\nSLURM_PROCID=0\nSLURM_LOCALID=0";
    const MPIRUN: &str = "OMPI_COMM_WORLD_SIZE=3\nOMPI_COMM_WORLD_RANK=2\nPMIX_RANK=2";
    const MPIRUN_IN_ALLOCATION: &str =
        "SLURM_NTASKS=4\nSLURM_STEP_NUM_TASKS=1\nOMPI_COMM_WORLD_SIZE=4\nPMIX_RANK=1";

    #[test]
    fn launchers_are_recognised_from_their_environments() {
        assert!(launched_by_mpirun(&env(SRUN_NO_PMI)));
        assert!(launched_by_mpirun(&env(SRUN_PMIX)));
        assert!(launched_by_mpirun(&env(MPIRUN)));
        assert!(launched_by_mpirun(&env(MPIRUN_IN_ALLOCATION)));
        assert!(!launched_by_mpirun(&env(SBATCH_STEP)));
        assert!(!launched_by_mpirun(&env("SLURM_STEP_NUM_TASKS=1")));
        assert_eq!(
            launcher_tasks(&env(MPIRUN_IN_ALLOCATION)),
            Some((4, "OMPI_COMM_WORLD_SIZE"))
        );
        assert_eq!(
            launcher_tasks(&env(SRUN_PMIX)),
            Some((2, "SLURM_STEP_NUM_TASKS"))
        );
    }

    #[test]
    fn an_mpi_that_missed_the_launcher_is_an_error() {
        let e = check_launcher(1, &env(SRUN_NO_PMI))
            .unwrap_err()
            .to_string();
        assert!(e.contains("the launcher started 2 processes (SLURM_STEP_NUM_TASKS=2), but MPI sees a job of 1"), "{e}");
        assert!(e.contains("--mpi=pmix"), "{e}");
        assert!(check_launcher(2, &env(SRUN_PMIX)).is_ok());
        assert!(check_launcher(4, &env(MPIRUN_IN_ALLOCATION)).is_ok());
        assert!(check_launcher(1, &env(SBATCH_STEP)).is_ok());
    }
}
