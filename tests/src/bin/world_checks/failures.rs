//! The failure modes of `world_checks`: a bad call, a wait on a failed
//! process, a stopped process, a panicking rank; each must end the whole
//! job with a message naming the failure, never hang.

use super::{Check, Run};
use dcuda::{Error, RunConfig};
use dcuda_rank_kernels::collectives::{MisuseArgs, RANK_PANICS};
use dcuda_rank_kernels::misuse::*;
use dcuda_rank_kernels::runtime_checks::*;

impl Run<'_> {
    /// Bad call `case` by world rank 1, the second rank of process 0
    /// (which has two): process 0 must report `call` and `fault`, every
    /// other process process 0's failure.
    pub(super) fn abort(&self, process: u32, case: u32, call: &str, fault: &str) -> Check {
        match self.run(&BAD_CALL, 4, 0, case) {
            Ok(_) => Err(format!("bad call {case} in the job went unreported")),
            Err(Error::RankCall { message, .. }) if process == 0 => {
                println!("world_checks: process 0 reports its rank's error: {message}");
                if message.contains(call)
                    && message.contains(fault)
                    && message.contains("world rank 1")
                {
                    Ok(())
                } else {
                    Err(format!(
                        "the error does not name the call ({call}), the fault ({fault}) and the world rank: {message}"
                    ))
                }
            }
            Err(Error::PeerFailed {
                process: 0,
                message,
                ..
            }) if process != 0 => {
                println!("world_checks: process {process} reports process 0's failure: {message}");
                if message.contains(fault) && message.contains("world rank 1") {
                    Ok(())
                } else {
                    Err(format!(
                        "the failure does not name the fault and the rank: {message}"
                    ))
                }
            }
            Err(other) => Err(format!("unexpected error: {other}")),
        }
    }

    /// A rank of process 0 fails while the ranks of the others wait for
    /// it: every process must end its run with the error, at once.
    pub(super) fn wait_on_failed(&self, process: u32) -> Check {
        match self.run(&WAIT_ON_FAILED, 4, 0, 0) {
            Ok(_) => Err("the failure went unreported".into()),
            Err(Error::RankCall { message, .. }) if process == 0 => {
                println!("world_checks: process 0 reports its rank's error: {message}");
                Ok(())
            }
            Err(Error::PeerFailed {
                process: 0,
                message,
                ..
            }) if process != 0 => {
                println!("world_checks: process {process} reports process 0's failure: {message}");
                Ok(())
            }
            Err(other) => Err(format!("unexpected error: {other}")),
        }
    }

    /// Process 1 stops itself (SIGSTOP) while a long ring runs: process 0
    /// must end with the watchdog's report, and the job must end.
    pub(super) fn stopped_peer(&self, process: u32) -> Check {
        if process == 1 {
            std::thread::spawn(|| {
                std::thread::sleep(std::time::Duration::from_millis(300));
                extern "C" {
                    fn raise(sig: i32) -> i32;
                }
                // SAFETY: stops this process, as `kill -STOP` would.
                unsafe { raise(19) };
            });
        }
        match self.run(&RING_EXCHANGE, 300, 1_000_000, 0) {
            Err(Error::Watchdog { report, .. }) if process == 0 => {
                println!("world_checks: process 0 reports the watchdog: {report}");
                Ok(())
            }
            other => Err(format!(
                "process {process}: unexpected outcome: {:?}",
                other.map(|_| ())
            )),
        }
    }

    /// World rank 2, on process 1, panics (a trap on a GPU): process 1 must
    /// report the kernel fault and end the job, and no process may hang.
    pub(super) fn panicking_rank(&self, process: u32) -> Check {
        let out = self.rt.alloc::<u32>(self.ranks as usize).unwrap();
        let args = MisuseArgs { out: out.slice() };
        let config = RunConfig::new(32).ranks(self.ranks);
        // SAFETY: out has one element per rank of this process.
        match unsafe { self.module.run(&RANK_PANICS, &config, &args) } {
            Err(Error::KernelFault { kernel, message }) if kernel == "rank_panics" => {
                Err(format!("process {process} reports the fault: {message}"))
            }
            // Unless the abort kills it first, process 0 hears of it.
            Err(Error::PeerFailed { process: 1, .. }) if process == 0 => {
                println!("world_checks: process 0 reports process 1's failure");
                Ok(())
            }
            other => Err(format!(
                "process {process}: unexpected outcome: {:?}",
                other.map(|_| ())
            )),
        }
    }

    /// The bad calls that only a world of several processes rejects.
    pub(super) fn aborts(&self, process: u32) -> Check {
        self.abort(process, 0, "put", "out of range")?;
        self.abort(process, 8, "win_create", "matched windows")?;
        self.abort(process, 12, "win_create", "not built yet")?;
        self.abort(process, 23, "abort", "aborted the run with code 7")?;
        // Shared memory as a source: the direct route copies it on the
        // device; only the host route rejects it.
        let direct = self.rt.backend() == dcuda::Backend::Gpu
            && std::env::var("DCUDA_PEER_ACCESS").map_or(true, |v| v.trim() != "0");
        if direct {
            self.run(&BAD_CALL, 4, 0, 7)
                .map(|_| ())
                .map_err(|e| e.to_string())
        } else {
            self.abort(process, 7, "put", "not in global memory")?;
            // A typed put through the host is checked as on the device.
            self.abort(process, 28, "put_typed", "outside the target window")
        }
    }
}
