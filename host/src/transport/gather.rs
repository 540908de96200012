//! Blocking collectives the hosts need before a run's progress thread
//! exists: gather one message from every process, and number the nodes.

use super::Transport;
use crate::error::Result;

/// The channel for the job's own setup (host names); runs use channels
/// from [`RUN_CHANNELS`] on.
pub(crate) const SETUP_CHANNEL: u32 = 0;
/// The channel of [`Module::rank_info`](crate::Module::rank_info).
pub(crate) const INFO_CHANNEL: u32 = 1;
/// The channel of departure notices (see [`super::departure`]).
pub(crate) const DEPARTURE_CHANNEL: u32 = 2;
/// First channel of runs: each run has a setup, a data and a control
/// channel.
pub(crate) const RUN_CHANNELS: u32 = 3;

/// Messages an [`all_gather`] received for a later round of its channel:
/// a fast process may send its next round before a slow one has heard
/// everyone in this round. `(channel, sender, message)`.
static EARLY: std::sync::Mutex<Vec<(u32, u32, Vec<u8>)>> = std::sync::Mutex::new(Vec::new());

/// Sends `data` to every other process on `channel` and collects theirs,
/// in process order (this process's own at its index). Blocks: use it only
/// where every process takes part (setup). A channel may serve many rounds,
/// as long as only `all_gather` reads it.
pub(crate) fn all_gather(net: &dyn Transport, channel: u32, data: Vec<u8>) -> Result<Vec<Vec<u8>>> {
    let (me, n) = (net.process(), net.processes());
    for p in (0..n).filter(|&p| p != me) {
        net.send(p, channel, data.clone())?;
    }
    let mut all: Vec<Option<Vec<u8>>> = vec![None; n as usize];
    all[me as usize] = Some(data);
    let take = |all: &mut Vec<Option<Vec<u8>>>,
                from: u32,
                msg: Vec<u8>,
                early: &mut Vec<(u32, u32, Vec<u8>)>| {
        if all[from as usize].is_none() {
            all[from as usize] = Some(msg);
        } else {
            early.push((channel, from, msg)); // The sender's next round.
        }
    };
    {
        let mut early = EARLY.lock().unwrap_or_else(|e| e.into_inner());
        let mine: Vec<_> = early.iter().filter(|e| e.0 == channel).cloned().collect();
        early.retain(|e| e.0 != channel);
        for (_, from, msg) in mine {
            take(&mut all, from, msg, &mut early);
        }
    }
    let mut spins = 0u32;
    while all.iter().any(Option::is_none) {
        net.progress()?;
        spins = spins.wrapping_add(1);
        if spins.is_multiple_of(64) {
            // A process this gather waits on may have left the job: take
            // what it sent before it left, then ask.
            while let Some((from, msg)) = net.try_recv(channel)? {
                take(
                    &mut all,
                    from,
                    msg,
                    &mut EARLY.lock().unwrap_or_else(|e| e.into_inner()),
                );
            }
            for p in (0..n).filter(|&p| all[p as usize].is_none()) {
                super::departure::check(net, p, "a setup exchange")?;
            }
        }
        match net.try_recv(channel)? {
            Some((from, msg)) => take(
                &mut all,
                from,
                msg,
                &mut EARLY.lock().unwrap_or_else(|e| e.into_inner()),
            ),
            None => std::thread::yield_now(),
        }
    }
    while net.progress()? > 0 {
        std::thread::yield_now();
    }
    Ok(all.into_iter().map(|m| m.unwrap_or_default()).collect())
}

/// Numbers the nodes by host name, in order of first appearance.
pub(crate) fn exchange_hosts(net: &dyn Transport) -> Result<Vec<u32>> {
    let name = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "localhost".into());
    let names = all_gather(net, SETUP_CHANNEL, name.into_bytes())?;
    let mut seen: Vec<&[u8]> = Vec::new();
    Ok(names
        .iter()
        .map(|n| match seen.iter().position(|s| *s == n.as_slice()) {
            Some(i) => i as u32,
            None => {
                seen.push(n);
                seen.len() as u32 - 1
            }
        })
        .collect())
}
