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
            // A process this gather waits on may have left the job. Note
            // who had left first, then take what has arrived: what they
            // sent came before their notice, so only they are missing for
            // good. (Taking first and asking after failed a gather whose
            // data and notice both arrived between the two.)
            let mut left = Vec::new();
            for p in (0..n).filter(|&p| all[p as usize].is_none()) {
                if super::departure::has_left(net, p)? {
                    left.push(p);
                }
            }
            while let Some((from, msg)) = net.try_recv(channel)? {
                take(
                    &mut all,
                    from,
                    msg,
                    &mut EARLY.lock().unwrap_or_else(|e| e.into_inner()),
                );
            }
            for p in left.into_iter().filter(|&p| all[p as usize].is_none()) {
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

/// Where every process runs, each numbered in order of first appearance:
/// `hosts` by host name (which GPUs a process may take), `nodes` by the
/// node name, `DCUDA_NODE` or else the host name (which processes reach
/// each other's GPUs directly, and node communicators).
pub(crate) struct Places {
    pub hosts: Vec<u32>,
    pub nodes: Vec<u32>,
}

/// Gathers every process's host and node name.
pub(crate) fn exchange_places(net: &dyn Transport) -> Result<Places> {
    let host = std::fs::read_to_string("/proc/sys/kernel/hostname")
        .map(|s| s.trim().to_string())
        .unwrap_or_else(|_| "localhost".into());
    let node = node_name(crate::config::NODE.value(), &host, net.process());
    // A host name has no newline, so the first one ends it.
    let all = all_gather(net, SETUP_CHANNEL, format!("{host}\n{node}").into_bytes())?;
    let split = |m: &Vec<u8>| {
        let text = String::from_utf8_lossy(m).into_owned();
        let (h, n) = text.split_once('\n').unwrap_or((&text, &text));
        (h.to_string(), n.to_string())
    };
    let (hosts, nodes): (Vec<String>, Vec<String>) = all.iter().map(split).unzip();
    Ok(Places {
        hosts: number(&hosts),
        nodes: number(&nodes),
    })
}

/// This process's node name: `DCUDA_NODE`'s value (`process`: one of its
/// own), else its host's.
pub(crate) fn node_name(setting: Option<String>, host: &str, process: u32) -> String {
    match setting {
        Some(v) if v.eq_ignore_ascii_case("process") => format!("process {process}"),
        Some(v) => format!("named {v}"),
        None => format!("host {host}"),
    }
}

/// Numbers `names` in order of first appearance.
pub(crate) fn number(names: &[String]) -> Vec<u32> {
    let mut seen: Vec<&str> = Vec::new();
    names
        .iter()
        .map(|n| match seen.iter().position(|s| *s == n) {
            Some(i) => i as u32,
            None => {
                seen.push(n);
                seen.len() as u32 - 1
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_numbered_in_order_of_first_appearance() {
        let names: Vec<String> = ["b", "a", "b", "c", "a"].map(String::from).into();
        assert_eq!(number(&names), [0, 1, 0, 2, 1]);
    }

    #[test]
    fn a_node_is_the_host_unless_named_or_one_per_process() {
        let hosts = ["gpu1", "gpu1", "gpu2"];
        let nodes = |setting: Option<&str>| {
            let names: Vec<String> = (0..3)
                .map(|p| node_name(setting.map(String::from), hosts[p], p as u32))
                .collect();
            number(&names)
        };
        assert_eq!(nodes(None), [0, 0, 1]);
        assert_eq!(nodes(Some("process")), [0, 1, 2]);
        assert_eq!(nodes(Some("PROCESS")), [0, 1, 2]);
        // A name given to every process makes them one node, whatever
        // their hosts; a name that is a host's is still only a name.
        assert_eq!(nodes(Some("rack7")), [0, 0, 0]);
        assert_ne!(
            node_name(Some("gpu1".into()), "gpu1", 0),
            node_name(None, "gpu1", 0)
        );
    }
}
