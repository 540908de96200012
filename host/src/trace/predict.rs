//! What a traced run's communication should have cost by the
//! latency-bandwidth model of each route ([`crate::model`]), beside what
//! its calls took: every call that moves data is priced from its route
//! and bytes, and both are summed per rank.
//!
//! - A put, get, notification or send to a peer: `alpha + beta * bytes` of
//!   the route between the two ranks (the model is fitted to a notified
//!   put's half round trip, so it includes the peer's seeing it).
//! - A collective (`allreduce`, `reduce_to`, `bcast`, ...): recursive
//!   doubling, as the runtime runs it: `ceil(log2 r)` steps between the
//!   `r` ranks of the rank's GPU, then `ceil(log2 p)` between the `p`
//!   processes, each step `alpha + beta * bytes` of its route.
//!
//! Measured is the time the same calls took on the device clock; waiting
//! (waits, barriers, receives) is reported apart.

use super::{Activity, SpanKind, Trace};
use crate::model::{Hop, RouteModels};
use std::collections::BTreeMap;

/// A run's communication, predicted and measured, in µs averaged over
/// the ranks.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Prediction {
    /// Ranks averaged over.
    pub ranks: u32,
    /// Calls priced, over all ranks.
    pub calls: u64,
    /// Calls left out: a route without a model, or no peer recorded.
    pub unpriced: u64,
    /// Predicted time in the priced calls, per rank.
    pub predicted_us: f64,
    /// Measured time in the priced calls, per rank.
    pub measured_us: f64,
    /// Measured time waiting, per rank.
    pub waited_us: f64,
}

/// Point-to-point calls: priced on the route to their peer.
const POINT: &[&str] = &[
    "put",
    "put_notify",
    "get",
    "get_notify",
    "notify",
    "send",
    "put_typed",
    "put_notify_typed",
    "get_typed",
    "get_notify_typed",
];

/// Collectives: priced as recursive doubling.
const COLLECTIVE: &[&str] = &[
    "allreduce",
    "allreduce_into",
    "bcast",
    "reduce_to",
    "allgather_into",
    "gather_into",
    "scatter_from",
    "alltoall_into",
    "reduce_scatter_into",
    "scan_over",
    "exscan_over",
];

fn steps(n: u32) -> u32 {
    n.max(1).next_power_of_two().trailing_zeros()
}

/// Prices the calls of `t` with `models`; `cross` is the route between
/// two processes (`Peer` on one node with direct routes, else `Host`).
/// Peers are taken as world ranks: calls on other communicators are
/// priced as if their peer numbers were world ranks.
pub fn predict(t: &Trace, models: &RouteModels, cross: Hop) -> Prediction {
    let process_of = |rank: u32| {
        t.processes
            .iter()
            .position(|p| rank >= p.first_rank && rank < p.first_rank + p.ranks)
    };
    let processes = t.processes.len() as u32;
    let mut per_rank: BTreeMap<u32, (f64, f64, f64)> = BTreeMap::new();
    let mut out = Prediction::default();
    for s in &t.spans {
        let SpanKind::Call(name) = &s.kind else {
            continue;
        };
        let took = s.end_ns.saturating_sub(s.start_ns) as f64 / 1e3;
        let entry = per_rank.entry(s.rank).or_default();
        if s.kind.activity() == Some(Activity::Wait) {
            entry.2 += took;
            continue;
        }
        let bytes = s.bytes as f64;
        let price = if POINT.contains(name) {
            s.peer.and_then(|p| {
                let hop = match process_of(p)? {
                    b if b == s.process as usize => Hop::Device,
                    _ => cross,
                };
                Some(models.get(hop)?.predict(bytes))
            })
        } else if COLLECTIVE.contains(name) {
            let here = t.processes.get(s.process as usize).map(|p| p.ranks);
            let device = models.get(Hop::Device);
            let between = models.get(cross);
            match (here, device, processes) {
                (Some(r), Some(d), 1) => Some(steps(r) as f64 * d.predict(bytes)),
                (Some(r), Some(d), p) => between.map(|x| {
                    steps(r) as f64 * d.predict(bytes) + steps(p) as f64 * x.predict(bytes)
                }),
                _ => None,
            }
        } else {
            continue;
        };
        match price {
            Some(us) => {
                out.calls += 1;
                entry.0 += us;
                entry.1 += took;
            }
            None => out.unpriced += 1,
        }
    }
    out.ranks = per_rank.len() as u32;
    if out.ranks > 0 {
        let n = out.ranks as f64;
        out.predicted_us = per_rank.values().map(|v| v.0).sum::<f64>() / n;
        out.measured_us = per_rank.values().map(|v| v.1).sum::<f64>() / n;
        out.waited_us = per_rank.values().map(|v| v.2).sum::<f64>() / n;
    }
    out
}

impl std::fmt::Display for Prediction {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "communication per rank: predicted {:.1} us by the model, measured {:.1} us in the same {} calls ({:.2}x the prediction), {:.1} us waiting; {} calls without a model",
            self.predicted_us,
            self.measured_us,
            self.calls,
            if self.predicted_us > 0.0 { self.measured_us / self.predicted_us } else { 0.0 },
            self.waited_us,
            self.unpriced
        )
    }
}

#[cfg(test)]
mod tests;
