//! Leaving a job: every process tells the others when it exits, and with
//! which failure, on a channel of its own. A process that waits on another
//! (a setup gather, a run) checks that channel and fails at once, naming
//! the process that left and its error, instead of waiting forever. On the
//! failure path MPI is aborted, not finalised, so that no process hangs in
//! a finalisation that its peers never reach.

use super::gather::DEPARTURE_CHANNEL;
use super::Transport;
use crate::error::{Error, Result};
use std::collections::HashMap;
use std::sync::atomic::{AtomicU32, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

/// What a process said when it left: runs it completed, whether it
/// failed, and its words.
type Notice = (u32, bool, String);

/// Processes that have left, and what they said.
static LEFT: Mutex<Option<HashMap<u32, Notice>>> = Mutex::new(None);
/// The first failure this process saw (its own, or a peer's).
static FAILURE: Mutex<Option<String>> = Mutex::new(None);
/// Runs this process completed (every process runs the same runs in the
/// same order, so a count names a run).
static COMPLETED: AtomicU32 = AtomicU32::new(0);

/// Counts one more run completed by this process.
pub(crate) fn run_completed() {
    COMPLETED.fetch_add(1, Ordering::Relaxed);
}

/// Records a failure this process saw; at exit it then tells the others
/// and aborts the job instead of finalising it.
pub(crate) fn record_failure(message: &str) {
    let mut f = FAILURE.lock().unwrap_or_else(|e| e.into_inner());
    f.get_or_insert_with(|| message.to_string());
}

/// The failure this process saw, if any.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn failure() -> Option<String> {
    FAILURE.lock().unwrap_or_else(|e| e.into_inner()).clone()
}

/// Takes departure notices that have arrived.
pub(crate) fn poll(transport: &dyn Transport) -> Result<()> {
    while let Some((from, msg)) = transport.try_recv(DEPARTURE_CHANNEL)? {
        let notice = match msg.split_first_chunk::<5>() {
            Some((head, text)) => (
                u32::from_le_bytes([head[0], head[1], head[2], head[3]]),
                head[4] != 0,
                String::from_utf8_lossy(text).into_owned(),
            ),
            None => (0, true, "it left with a malformed notice".into()),
        };
        LEFT.lock()
            .unwrap_or_else(|e| e.into_inner())
            .get_or_insert_with(HashMap::new)
            .insert(from, notice);
    }
    Ok(())
}

/// Fails if process `p` left the job before completing run number `run`
/// (counted from 0), which this process is in.
pub(crate) fn check_run(transport: &dyn Transport, p: u32, run: u32) -> Result<()> {
    poll(transport)?;
    let left = LEFT.lock().unwrap_or_else(|e| e.into_inner());
    match left.as_ref().and_then(|l| l.get(&p)) {
        Some((completed, _, _)) if *completed > run => Ok(()),
        None => Ok(()),
        Some(_) => {
            drop(left);
            check(transport, p, "a run")
        }
    }
}

/// Whether process `p` has left the job (nothing recorded).
pub(crate) fn has_left(transport: &dyn Transport, p: u32) -> Result<bool> {
    poll(transport)?;
    let left = LEFT.lock().unwrap_or_else(|e| e.into_inner());
    Ok(left.as_ref().is_some_and(|l| l.contains_key(&p)))
}

/// Fails if process `p`, which the caller waits on, has left the job.
pub(crate) fn check(transport: &dyn Transport, p: u32, waiting_in: &'static str) -> Result<()> {
    poll(transport)?;
    let left = LEFT.lock().unwrap_or_else(|e| e.into_inner());
    match left.as_ref().and_then(|l| l.get(&p)) {
        None => Ok(()),
        Some((_, _, message)) => {
            let message = format!("process {p} left the job while process {} waited for it in {waiting_in}: {message}", transport.process());
            drop(left);
            record_failure(&message);
            Err(Error::PeerFailed {
                kernel: waiting_in.to_string(),
                process: p,
                message,
            })
        }
    }
}

/// A peer that left the job with a failure, and its words.
fn peer_failure(transport: &dyn Transport) -> Option<String> {
    let _ = poll(transport);
    let left = LEFT.lock().unwrap_or_else(|e| e.into_inner());
    let mut failed: Vec<_> = left.as_ref()?.iter().filter(|(_, n)| n.1).collect();
    failed.sort_by_key(|(p, _)| **p);
    failed
        .first()
        .map(|(p, (_, _, words))| format!("process {p} left the job: {words}"))
}

/// Fails if a process has left the job with a failure (one that left
/// cleanly is at its exit, waiting for the others: no reason to stop a
/// wait that is not for it), naming the first.
pub(crate) fn check_failures(transport: &dyn Transport, waiting_in: &'static str) -> Result<()> {
    let Some(why) = peer_failure(transport) else {
        return Ok(());
    };
    let left = LEFT.lock().unwrap_or_else(|e| e.into_inner());
    let p = left
        .as_ref()
        .and_then(|l| l.iter().filter(|(_, n)| n.1).map(|(p, _)| *p).min())
        .unwrap_or_default();
    drop(left);
    let message = format!(
        "{why}, while process {} waited in {waiting_in}",
        transport.process()
    );
    record_failure(&message);
    Err(Error::PeerFailed {
        kernel: waiting_in.to_string(),
        process: p,
        message,
    })
}

/// At exit: tells every other process that this one leaves, and how. With
/// a failure, gives the notices a moment to leave, then aborts the job
/// (`MPI_Abort` under MPI). Without one, waits for every peer to reach its
/// exit and returns `true` (the caller may finalise), or aborts as soon as
/// a peer says it failed.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn leave(transport: &dyn Transport) -> bool {
    let failure = failure();
    let notice = match &failure {
        Some(f) => format!("it failed: {f}"),
        None => "it exited before taking part".to_string(),
    };
    let me = transport.process();
    let mut msg = COMPLETED.load(Ordering::Relaxed).to_le_bytes().to_vec();
    msg.push(failure.is_some() as u8);
    msg.extend_from_slice(notice.as_bytes());
    for p in (0..transport.processes()).filter(|&p| p != me) {
        let _ = transport.send(p, DEPARTURE_CHANNEL, msg.clone());
    }
    let until = Instant::now() + Duration::from_secs(2);
    while matches!(transport.progress(), Ok(n) if n > 0) && Instant::now() < until {
        std::thread::yield_now();
    }
    match failure {
        // Not straight to `MPI_Finalize`: its fence does not end when a
        // peer aborts meanwhile (Open MPI 4.1 hung there in CI). Wait in
        // the transport's own barrier, watching for a peer's failure.
        None => {
            if transport.exit_barrier(&|| peer_failure(transport).is_some()) {
                return true;
            }
            let why =
                peer_failure(transport).unwrap_or_else(|| "the exit barrier failed".to_string());
            transport.abort(&format!(
                "dcuda: process {me} aborts the job at its exit: {why}"
            ))
        }
        Some(f) => {
            // Peers waiting on this process print why before the job ends
            // (500 ms was too short on a loaded two-core machine).
            std::thread::sleep(Duration::from_millis(2000));
            transport.abort(&format!(
                "dcuda: process {me} aborts the job after a failure: {f}"
            ))
        }
    }
}
