//! Running rank kernels: the persistent launch and the host thread that
//! serves it. The pieces: [`config`] (what is asked and reported),
//! [`state`] (the run's memory), [`progress`] (the loop), [`commands`]
//! (what the ranks ask of the host), [`watchdog`], and [`describe`] (the
//! host's words for device records).

mod comm_memory;
mod commands;
mod config;
mod describe;
mod progress;
mod ring;
mod state;
mod traced;
pub(crate) mod turn;
mod watchdog;

pub use config::{RankInfo, RunConfig, RunReport, TimerRecord};

use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::module::Module;
use crate::world::World;
use dcuda_device::block::WARP;
use dcuda_device::kernel::{RankArgs, RankKernel};
use state::RunState;
use std::sync::Arc;
use std::time::{Duration, Instant};

impl Module {
    fn resolve_ranks<A: RankArgs>(
        &self,
        kernel: &RankKernel<A>,
        config: &RunConfig,
    ) -> Result<u32> {
        let name = kernel.name();
        let t = config.threads_per_rank;
        if t == 0 || !t.is_multiple_of(WARP) || t > 1024 {
            return Err(Error::InvalidLaunch {
                kernel: name.into(),
                reason: format!("threads per rank must be a multiple of {WARP} between {WARP} and 1024, got {t}"),
            });
        }
        let max = self.max_ranks(kernel, t)?;
        match config.ranks {
            Some(0) => Err(Error::InvalidLaunch {
                kernel: name.into(),
                reason: "a run needs at least one rank".into(),
            }),
            Some(r) if r > max => Err(Error::InvalidLaunch {
                kernel: name.into(),
                reason: format!(
                    "{r} ranks of {t} threads requested, but at most {max} can be co-resident{}",
                    self.fit_hint(name, t)
                ),
            }),
            Some(r) => Ok(r),
            None if max == 0 => Err(Error::InvalidLaunch {
                kernel: name.into(),
                reason: format!(
                    "no rank of {t} threads fits on the device{}",
                    self.fit_hint(name, t)
                ),
            }),
            None => Ok(max),
        }
    }

    /// Where the ranks of a run with `config` would sit.
    pub fn rank_info<A: RankArgs>(
        &self,
        kernel: &RankKernel<A>,
        config: &RunConfig,
    ) -> Result<RankInfo> {
        crate::transport::noted(self.gather_rank_info(kernel, config))
    }

    fn gather_rank_info<A: RankArgs>(
        &self,
        kernel: &RankKernel<A>,
        config: &RunConfig,
    ) -> Result<RankInfo> {
        let ranks = self.resolve_ranks(kernel, config)?;
        if let Some(job) = self.runtime().job() {
            // Every process's rank count, in process order.
            let counts = crate::transport::all_gather(
                &*job.transport,
                crate::transport::INFO_CHANNEL,
                ranks.to_le_bytes().to_vec(),
            )?;
            let counts: Vec<u32> = counts
                .iter()
                .map(|c| u32::from_le_bytes(c[..4].try_into().unwrap_or_default()))
                .collect();
            let me = job.process() as usize;
            return Ok(RankInfo {
                rank_count: counts.iter().sum(),
                ranks_on_device: ranks,
                first_rank: counts[..me].iter().sum(),
                device_count: job.local_count,
                device_index: job.local_index,
                node_count: job.nodes(),
                node_index: job.node(),
                process_count: job.processes(),
                process_index: job.process(),
            });
        }
        Ok(RankInfo {
            rank_count: ranks,
            ranks_on_device: ranks,
            first_rank: 0,
            device_count: 1,
            device_index: self.runtime().device_info().ordinal as u32,
            node_count: 1,
            node_index: 0,
            process_count: 1,
            process_index: 0,
        })
    }

    /// Starts a rank kernel: every rank co-resident (a cooperative launch),
    /// and a host thread serving them. [`RankRun::wait`] returns the report.
    ///
    /// Rank kernels on one GPU take turns: a run started while another of
    /// this process runs on the same GPU waits, here, for it to end (two
    /// kernels that each need the whole GPU could otherwise deadlock). The
    /// emulator runs them side by side.
    ///
    /// # Safety
    /// The memory that `args` refers to (its `DeviceSlice`s, made from
    /// [`DeviceBuffer::slice`](crate::DeviceBuffer::slice), and any raw
    /// pointers) must be valid for every access the ranks make, and outlive
    /// the run.
    pub unsafe fn start<A: RankArgs>(
        &self,
        kernel: &RankKernel<A>,
        config: &RunConfig,
        args: &A,
    ) -> Result<RankRun> {
        let ranks = self.resolve_ranks(kernel, config)?;
        // Everything that can fail before the launch: after it, the kernel
        // needs its host.
        let watchdog = config.patience()?;
        // Before anything is set up: a run waiting for its turn holds nothing.
        let turn = turn::Turn::take(self.runtime().device_info());
        // What a failed start frees here must not wait for its own turn.
        let serving = turn::serving();
        let (state, world) = RunState::new(self.runtime(), ranks, config, args)?;
        let launch = self.launch_rank_kernel(
            kernel,
            ranks,
            config.threads_per_rank,
            (state.context.addr(), state.args.addr()),
            *args,
        )?;
        let started = Instant::now();
        let server = std::thread::Builder::new()
            .name("dcuda-progress".into())
            .spawn(move || {
                let _serving = turn::serving();
                let report = serve(state, world, launch, watchdog, started);
                drop(turn); // the kernel has ended: the next run may start
                report
            })
            .map_err(|e| Error::InvalidLaunch {
                kernel: kernel.name().into(),
                reason: format!("cannot start the progress thread: {e}"),
            })?;
        drop(serving);
        Ok(RankRun {
            server: Some(server),
        })
    }

    /// Runs a rank kernel to the end: [`start`](Self::start), then wait.
    ///
    /// # Safety
    /// As for [`start`](Self::start).
    pub unsafe fn run<A: RankArgs>(
        &self,
        kernel: &RankKernel<A>,
        config: &RunConfig,
        args: &A,
    ) -> Result<RunReport> {
        self.start(kernel, config, args)?.wait()
    }
}

/// A running rank kernel. Dropping it waits for the end.
#[must_use = "a run goes on until waited for; dropping it waits"]
pub struct RankRun {
    server: Option<std::thread::JoinHandle<Result<RunReport>>>,
}

impl RankRun {
    /// Waits for the kernel to end; returns its report, or the first error
    /// a rank reported, the watchdog's report, or a kernel fault.
    pub fn wait(mut self) -> Result<RunReport> {
        self.join()
    }

    fn join(&mut self) -> Result<RunReport> {
        match self.server.take() {
            None => Ok(RunReport::default()),
            Some(h) => h.join().unwrap_or_else(|p| {
                Err(Error::KernelFault {
                    kernel: "progress thread".into(),
                    message: format!("{:?}", p.downcast_ref::<String>()),
                })
            }),
        }
    }
}

impl Drop for RankRun {
    fn drop(&mut self) {
        let _ = self.join();
    }
}

/// The host's side of a run, on its own thread until the kernel ends.
fn serve(
    state: RunState,
    world: Option<Arc<World>>,
    launch: Launch,
    watchdog: Option<Duration>,
    started: Instant,
) -> Result<RunReport> {
    let receiver = world.as_ref().map(|w| w.start_receiver());
    let kernel = launch.kernel().to_string();
    let outcome = progress::progress(&state, world.as_deref(), launch, watchdog, started);
    if let Some(w) = &world {
        w.stop();
    }
    if let Some(r) = receiver {
        let _ = r.join();
    }
    let Some(w) = &world else {
        return outcome.and_then(|mut report| {
            traced::publish(&state, None, &mut report)?;
            Ok(report)
        });
    };
    // Tell the other processes why this one failed, or learn why they did;
    // either way the job aborts at exit.
    crate::transport::noted(match outcome {
        Err(Error::PeerFailed { .. }) => outcome,
        Err(e) => {
            w.broadcast_abort(&format!("process {}: {}", w.me(), e.reason()));
            Err(e)
        }
        Ok(report) => match w.failure() {
            Some((process, message)) if process != w.me() => Err(Error::PeerFailed {
                kernel,
                process,
                message,
            }),
            Some((_, message)) => {
                let e = Error::Network {
                    call: "receive",
                    reason: message,
                };
                w.broadcast_abort(&format!("process {}: {}", w.me(), e.reason()));
                Err(e)
            }
            None => {
                let lost = w.unreceived();
                if lost > 0 {
                    tracing::warn!(target: "dcuda", "{lost} messages from other processes were sent to ranks of process {} and never received", w.me());
                }
                crate::transport::departure::run_completed();
                let mut report = report;
                match traced::publish(&state, Some(w), &mut report) {
                    Ok(()) => Ok(report),
                    Err(e) => Err(e),
                }
            }
        },
    })
}
