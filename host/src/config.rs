//! Every `DCUDA_*` environment variable, in one place: its name, what it
//! accepts, its default, and one strict parser each. A value that is not
//! understood is an error naming the variable and what would be valid,
//! never a silent default. `dcuda-info` prints this table with the values
//! in force.

use crate::error::{Error, Result};
use std::time::Duration;

/// One environment variable of dcuda.
#[derive(Clone, Copy, Debug)]
pub struct Variable {
    /// Its name.
    pub name: &'static str,
    /// What it accepts.
    pub accepts: &'static str,
    /// What holds when it is unset.
    pub default: &'static str,
    /// What it does.
    pub meaning: &'static str,
}

/// `DCUDA_BACKEND`.
pub const BACKEND: Variable = Variable {
    name: "DCUDA_BACKEND",
    accepts: "auto, gpu or emulator (also cuda; emu, cpu)",
    default: "auto: the GPU if a driver and a device are present, else the emulator",
    meaning: "the backend that runs kernels",
};
/// `DCUDA_DEVICE`.
pub const DEVICE: Variable = Variable {
    name: "DCUDA_DEVICE",
    accepts: "a device ordinal (0, 1, ...)",
    default: "0; in a job, the process's index on its host, or 0 when it sees one GPU",
    meaning: "the GPU a process uses",
};
/// `DCUDA_EMULATOR_THREADS`.
pub const EMULATOR_THREADS: Variable = Variable {
    name: "DCUDA_EMULATOR_THREADS",
    accepts: "a positive number of threads",
    default: "4096",
    meaning: "OS threads the emulator runs at once (its co-residency limit)",
};
/// `DCUDA_EMULATOR_RANKS`.
pub const EMULATOR_RANKS: Variable = Variable {
    name: "DCUDA_EMULATOR_RANKS",
    accepts: "a positive number of ranks",
    default: "64",
    meaning: "ranks the emulator runs at once, one OS thread each",
};
/// `DCUDA_EMULATOR_IPC`.
pub const EMULATOR_IPC: Variable = Variable {
    name: "DCUDA_EMULATOR_IPC",
    accepts: "1, on, yes, true; or 0, off, no, false",
    default: "0",
    meaning: "1 makes emulator processes of one host map each other's memory (shared memory files) as CUDA IPC maps a node's GPUs, so traffic between them takes the direct route; 0 sends it through the transport (Linux)",
};
/// `DCUDA_WATCHDOG_SECS`.
pub const WATCHDOG_SECS: Variable = Variable {
    name: "DCUDA_WATCHDOG_SECS",
    accepts: "a finite number of seconds, 0 or more (0: off)",
    default: "10",
    meaning: "how long every unfinished rank may wait without progress before the run is aborted with a report",
};
/// `DCUDA_TRANSPORT`.
pub const TRANSPORT: Variable = Variable {
    name: "DCUDA_TRANSPORT",
    accepts: "mpi, nvshmem or none",
    default: "mpi when a launcher (mpirun, srun) started the process, else none",
    meaning: "the transport between the processes of a job; nvshmem is MPI's, with window accesses between processes that do not map each other moved by the ranks through NVSHMEM (GPU kernels built with DCUDA_NVSHMEM_BC)",
};
/// `DCUDA_NVSHMEM_LIB`.
pub const NVSHMEM_LIB: Variable = Variable {
    name: "DCUDA_NVSHMEM_LIB",
    accepts: "the path of libnvshmem_host.so.3",
    default: "the loader's search path, then nvidia/nvshmem/lib of the Python package folders",
    meaning: "NVSHMEM's host library, for DCUDA_TRANSPORT=nvshmem (the version of the bitcode the kernels were built with)",
};
/// `DCUDA_NVSHMEM_CALLS`.
pub const NVSHMEM_CALLS: Variable = Variable {
    name: "DCUDA_NVSHMEM_CALLS",
    accepts: "1, on, yes, true; or 0, off, no, false",
    default: "0",
    meaning: "1 makes ranks move window accesses on the NVSHMEM route with NVSHMEM's calls (put, fence, atomic add, quiet) even where NVSHMEM maps the peer's memory (NVLink): the path to peers across InfiniBand, for tests and comparison",
};
/// `DCUDA_NVSHMEM_HEAP_MIB`.
pub const NVSHMEM_HEAP_MIB: Variable = Variable {
    name: "DCUDA_NVSHMEM_HEAP_MIB",
    accepts: "a positive number of MiB",
    default: "768 (NVSHMEM's own heap, NVSHMEM_SYMMETRIC_SIZE, is 1 GiB by default; raise both together)",
    meaning: "device memory of each process taken from NVSHMEM's symmetric heap under DCUDA_TRANSPORT=nvshmem: every allocation of the process comes from it",
};
/// `DCUDA_PEER_ACCESS`.
pub const PEER_ACCESS: Variable = Variable {
    name: "DCUDA_PEER_ACCESS",
    accepts: "1, on, yes, true; or 0, off, no, false",
    default: "1",
    meaning:
        "0 sends traffic between GPUs of a node through the transport instead of the direct route",
};
/// `DCUDA_PEER_CONTEXTS`.
pub const PEER_CONTEXTS: Variable = Variable {
    name: "DCUDA_PEER_CONTEXTS",
    accepts: "1, on, yes, true; or 0, off, no, false",
    default: "1",
    meaning: "1 lets the root of a transfer plan open a context on another process's GPU of its node, where it can see it, and copy into that GPU's memory through it (that GPU's copy engine and link); 0 copies through the root's own GPU",
};
/// `DCUDA_NODE`.
pub const NODE: Variable = Variable {
    name: "DCUDA_NODE",
    accepts: "a name for this process's node, or `process` (a node of its own)",
    default: "the host name",
    meaning: "which processes share a node: only GPUs of one node reach each other directly, and node communicators follow it; `process` makes every process its own node, so that all traffic between processes takes the transport (multi-node runs on one machine); a process still takes its GPU by its index on its host",
};
/// `DCUDA_WORLD_BARRIER`.
pub const WORLD_BARRIER: Variable = Variable {
    name: "DCUDA_WORLD_BARRIER",
    accepts: "auto, hosts, leaders",
    default: "auto",
    meaning: "how a world barrier crosses processes: auto takes the GPUs' leaders when every process maps every other, else the hosts; leaders always (then it does not deliver accesses the hosts carry: for tests and measurement)",
};
/// `DCUDA_LOG` (read by [`crate::log::init`]).
pub const LOG: Variable = Variable {
    name: "DCUDA_LOG",
    accepts: "a tracing filter (info, warn, dcuda::rank=off, ...)",
    default: "info",
    meaning: "which messages dcuda::log::init shows on standard error",
};
/// `DCUDA_ARCH` (read by `dcuda-builder` at build time).
pub const ARCH: Variable = Variable {
    name: "DCUDA_ARCH",
    accepts: "a comma-separated list of architectures (sm_70, sm_90, ...)",
    default: "sm_70",
    meaning: "the PTX architectures kernels are built for (build time)",
};

/// `DCUDA_TRACE`.
pub const TRACE: Variable = Variable {
    name: "DCUDA_TRACE",
    accepts: "a file path (the Chrome trace JSON; the SVG and summary go beside it)",
    default: "unset: runs are not traced (unless RunConfig::trace asks)",
    meaning: "trace every run: each rank's phases and runtime calls, as a timeline",
};
/// `DCUDA_TRACE_SPANS`.
pub const TRACE_SPANS: Variable = Variable {
    name: "DCUDA_TRACE_SPANS",
    accepts: "a positive number of spans",
    default: "4096",
    meaning: "spans each rank of a traced run can record (32 bytes each); more are counted and reported as dropped",
};

/// `DCUDA_MODEL`.
pub const MODEL: Variable = Variable {
    name: "DCUDA_MODEL",
    accepts: "CSV files of route models, comma-separated (route,alpha_us,beta_us_per_byte,max_error; bench and bench_world write them)",
    default: "unset: traced runs predict nothing (set on an untraced run: a warning)",
    meaning: "a traced run prices each call that moves data with the latency-bandwidth model of its route and logs the predicted communication beside the measured",
};

/// Every variable, in the order `dcuda-info` prints them.
pub const VARIABLES: &[Variable] = &[
    BACKEND,
    DEVICE,
    EMULATOR_THREADS,
    EMULATOR_RANKS,
    EMULATOR_IPC,
    WATCHDOG_SECS,
    TRANSPORT,
    NVSHMEM_LIB,
    NVSHMEM_HEAP_MIB,
    NVSHMEM_CALLS,
    PEER_ACCESS,
    PEER_CONTEXTS,
    NODE,
    WORLD_BARRIER,
    LOG,
    TRACE,
    TRACE_SPANS,
    MODEL,
    ARCH,
];

impl Variable {
    /// Its value, `None` when unset or empty.
    pub fn value(&self) -> Option<String> {
        std::env::var(self.name)
            .ok()
            .map(|v| v.trim().to_string())
            .filter(|v| !v.is_empty())
    }

    fn invalid(&self, value: &str) -> Error {
        Error::InvalidEnv {
            var: self.name,
            value: value.to_string(),
            expected: self.accepts,
        }
    }

    /// A count or index (`usize`); with `positive`, at least 1.
    pub(crate) fn number(&self, positive: bool) -> Result<Option<usize>> {
        match self.value() {
            None => Ok(None),
            Some(v) => match v.parse::<usize>() {
                Ok(n) if n > 0 || !positive => Ok(Some(n)),
                _ => Err(self.invalid(&v)),
            },
        }
    }

    /// A duration in seconds: `Some(None)` for 0 (off).
    pub(crate) fn seconds(&self) -> Result<Option<Option<Duration>>> {
        match self.value() {
            None => Ok(None),
            Some(v) => match v.parse::<f64>() {
                Ok(0.0) => Ok(Some(None)),
                Ok(s) if s.is_finite() && s > 0.0 && s < 1e9 => {
                    Ok(Some(Some(Duration::from_secs_f64(s))))
                }
                _ => Err(self.invalid(&v)),
            },
        }
    }

    /// A switch.
    pub(crate) fn switch(&self) -> Result<Option<bool>> {
        match self.value() {
            None => Ok(None),
            Some(v) => match v.to_ascii_lowercase().as_str() {
                "1" | "on" | "yes" | "true" => Ok(Some(true)),
                "0" | "off" | "no" | "false" => Ok(Some(false)),
                _ => Err(self.invalid(&v)),
            },
        }
    }

    /// One of `choices` (case-insensitive), as given in the list.
    pub(crate) fn choice(&self, choices: &[&'static str]) -> Result<Option<&'static str>> {
        match self.value() {
            None => Ok(None),
            Some(v) => choices
                .iter()
                .find(|c| c.eq_ignore_ascii_case(&v))
                .copied()
                .map(Some)
                .ok_or_else(|| self.invalid(&v)),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Tests set one variable each, so that they can run in parallel.
    fn with<T>(var: &Variable, value: &str, f: impl FnOnce(&Variable) -> T) -> T {
        // SAFETY: each test uses a variable of its own name.
        unsafe { std::env::set_var(var.name, value) };
        let r = f(var);
        // SAFETY: as above.
        unsafe { std::env::remove_var(var.name) };
        r
    }

    fn fake(name: &'static str) -> Variable {
        Variable {
            name,
            ..WATCHDOG_SECS
        }
    }

    #[test]
    fn seconds_are_finite_and_not_negative() {
        let v = fake("DCUDA_TEST_SECONDS");
        assert_eq!(
            with(&v, "2.5", |v| v.seconds().unwrap()),
            Some(Some(Duration::from_millis(2500)))
        );
        assert_eq!(with(&v, "0", |v| v.seconds().unwrap()), Some(None));
        for bad in ["-1", "nan", "inf", "abc", "1e30"] {
            let e = with(&v, bad, |v| v.seconds().unwrap_err()).to_string();
            assert!(
                e.contains(&format!("DCUDA_TEST_SECONDS=\"{bad}\" is not valid"))
                    && e.contains("a finite number of seconds"),
                "{bad}: {e}"
            );
        }
    }

    #[test]
    fn numbers_and_switches_are_strict() {
        let n = fake("DCUDA_TEST_NUMBER");
        assert_eq!(with(&n, "12", |v| v.number(true).unwrap()), Some(12));
        assert!(with(&n, "0", |v| v.number(true)).is_err());
        assert!(with(&n, "-3", |v| v.number(false)).is_err());
        let s = fake("DCUDA_TEST_SWITCH");
        assert_eq!(with(&s, "Off", |v| v.switch().unwrap()), Some(false));
        assert!(with(&s, "maybe", |v| v.switch()).is_err());
        let c = fake("DCUDA_TEST_CHOICE");
        assert_eq!(
            with(&c, "MPI", |v| v.choice(&["mpi", "none"]).unwrap()),
            Some("mpi")
        );
        assert!(with(&c, "tcp", |v| v.choice(&["mpi", "none"])).is_err());
    }
}
