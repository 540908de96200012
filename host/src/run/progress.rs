//! The progress loop: serves the command ring until the kernel ends (and,
//! in a job, until every process has ended it), watching for stalls and
//! for other processes' failures; then turns the outcome into the run's
//! result.

use super::commands::Services;
use super::config::RunReport;
use super::describe::describe_error;
use super::ring::Ring;
use super::state::RunState;
use super::watchdog::Watchdog;
use crate::error::{Error, Result};
use crate::launch::Launch;
use crate::world::World;
use dcuda_device::abi::{Call, ErrorRecord, RingEntry};
use std::time::{Duration, Instant};

/// Serves `state`'s ring until the run ends, and reports how it ended.
pub(super) fn progress(
    state: &RunState,
    world: Option<&World>,
    mut launch: Launch,
    watchdog: Option<Duration>,
    started: Instant,
) -> Result<RunReport> {
    let mut services = Services::new(launch.kernel(), state);
    let mut dog = Watchdog::new(watchdog);
    let peer_failure = match serve(state, world, &mut launch, &mut services, &mut dog) {
        Ok(f) => f,
        Err(e) => {
            // Ranks may wait on this host: release them before waiting for
            // the kernel's end. A kernel fault is the cause of the copy
            // errors that follow it: report the fault.
            let _ = state.abort_run();
            return Err(match launch.wait() {
                Err(fault @ Error::KernelFault { .. }) => fault,
                _ => e,
            });
        }
    };
    finish(state, world, launch, services, dog, peer_failure, started)
}

/// The loop: returns another process's failure, if one ended the run.
fn serve(
    state: &RunState,
    world: Option<&World>,
    launch: &mut Launch,
    services: &mut Services,
    dog: &mut Watchdog,
) -> Result<Option<(u32, String)>> {
    let mut pos: u32 = 0;
    let mut peer_failure: Option<(u32, String)> = None;
    // Whether this process already told the others of a rank's error.
    let mut reported = false;
    let mut last_error_look = Instant::now();
    let mut fault = None;
    let mut idle = 0u32;
    let mut kernel_done = false;
    // SAFETY: the ring lives as long as `state`.
    let ring = unsafe { Ring::new(state.ring.host_ptr() as *const RingEntry, state.ring_len) };
    loop {
        if let Some(t) = &state.trace {
            t.serve_clock();
        }
        // Drain the ring: entries arrive in position order.
        let mut progressed = false;
        loop {
            let cmd = match ring.take(pos) {
                Ok(Some(cmd)) => cmd,
                Ok(None) => break,
                Err((rank, reason)) => {
                    let kernel = services.kernel.clone();
                    return Err(Error::BadCommand {
                        kernel,
                        rank,
                        reason,
                    });
                }
            };
            services.handle(state, world, &cmd)?;
            pos = pos.wrapping_add(1);
            state.ring_consumed.store_release(0, pos);
            progressed = true;
        }
        if let Some(w) = world {
            if w.poll_syncs(&mut services.syncs)? {
                if kernel_done {
                    break; // The last sync: every process has ended its kernel.
                }
                services.reply(state, 0, 0);
                progressed = true;
            }
            for rank in w.poll_comm_syncs(&mut services.syncs.comms)? {
                services.reply(state, rank, 0);
                progressed = true;
            }
            if peer_failure.is_none() {
                if let Some(f) = w.failure() {
                    state.abort_run()?;
                    peer_failure = Some(f);
                }
            }
        }
        if progressed {
            dog.progressed();
            idle = 0;
        }
        // Asking the driver whether the kernel ended costs about a
        // microsecond: only do it when the ring has been quiet a while, so
        // that commands are answered at once.
        if !kernel_done && idle % 1024 == 1023 && finished(launch, &mut fault) {
            if progressed {
                continue; // Drain what the last ranks sent.
            }
            kernel_done = true;
            if let Some(e) = fault.take() {
                // Before the end-of-run sync: the peers hear of it at once.
                return Err(e);
            }
            if let Some(w) = world {
                reported |= report_rank_error(state, w, &services.kernel, reported)?;
            }
            match world {
                // Wait for every process to end its kernel, so that traffic
                // to this one is delivered while its memory still exists.
                // A failed run does not wait: its peers may wait on it.
                Some(w) if peer_failure.is_none() && dog.fired.is_none() && !reported => {
                    w.start_sync(&mut services.syncs, None)?
                }
                _ => break,
            }
        }
        if kernel_done && peer_failure.is_some() {
            break;
        }
        if let Some(w) = world {
            // A rank's error ends this run; tell the other processes now,
            // not at the end of the run, since their ranks may wait on ours.
            if last_error_look.elapsed() >= Duration::from_millis(20) {
                last_error_look = Instant::now();
                reported |= report_rank_error(state, w, &services.kernel, reported)?;
            }
        }
        if let Some(text) = dog.check(state) {
            tracing::error!(target: "dcuda", "{text}");
            state.abort_run()?;
        }
        // Spin while work is likely, then yield the core.
        idle = idle.wrapping_add(1);
        if idle > 100_000 {
            std::thread::yield_now();
        } else {
            std::hint::spin_loop();
        }
    }
    Ok(peer_failure)
}

/// Whether the kernel has ended; a fault in it is kept in `fault`.
fn finished(launch: &mut Launch, fault: &mut Option<Error>) -> bool {
    launch.is_finished().unwrap_or_else(|e| {
        *fault = Some(e);
        true
    })
}

/// The run's result once its kernel has ended: another process's failure,
/// a rank's error, the watchdog's report, or the report.
fn finish(
    state: &RunState,
    world: Option<&World>,
    launch: Launch,
    services: Services,
    dog: Watchdog,
    peer_failure: Option<(u32, String)>,
    started: Instant,
) -> Result<RunReport> {
    let mut report = services.report;
    report.elapsed = started.elapsed();
    let kernel = services.kernel;
    launch.wait()?;
    let record = state.error()?;
    if let Some((process, message)) = peer_failure {
        if world.is_some_and(|w| w.me() != process) {
            return Err(Error::PeerFailed {
                kernel,
                process,
                message,
            });
        }
    }
    if record.call != 0 {
        return Err(rank_error(world, kernel, &record));
    }
    if let Some(text) = dog.fired {
        return Err(Error::Watchdog {
            kernel,
            report: text,
        });
    }
    super::traced::collect(state, world, &mut report)?;
    Ok(report)
}

/// The error of a rank's failed call.
fn rank_error(world: Option<&World>, kernel: String, record: &ErrorRecord) -> Error {
    let call = Call::from_u32(record.call.wrapping_sub(1))
        .map(|c| c.name())
        .unwrap_or("unknown call");
    let mut message = describe_error(record);
    if let Some(w) = world {
        message = format!(
            "process {}, {message} (world rank {})",
            w.me(),
            w.first() + record.rank
        );
    }
    Error::RankCall {
        kernel,
        rank: record.rank,
        call,
        message,
    }
}

/// Tells the other processes of a rank's error, once (`done`: already
/// told); returns whether they have been told.
fn report_rank_error(state: &RunState, w: &World, kernel: &str, done: bool) -> Result<bool> {
    if done {
        return Ok(true);
    }
    let record = state.error()?;
    if record.call == 0 {
        return Ok(false);
    }
    let e = rank_error(Some(w), kernel.to_string(), &record);
    w.broadcast_abort(&format!("process {}: {}", w.me(), e.reason()));
    Ok(true)
}
