//! The Chrome trace event format (JSON) that Perfetto and
//! `chrome://tracing` open: one process per GPU process, one thread per
//! rank, a complete event (`"ph": "X"`) per span, times in µs from the
//! first span.

use super::{Activity, SpanKind, Trace};
use serde_json::{json, Value};

/// The trace as Chrome trace JSON.
pub fn json(t: &Trace) -> String {
    let (origin, _) = t.bounds();
    let us = |ns: u64| (ns.saturating_sub(origin)) as f64 / 1e3;
    let mut events: Vec<Value> = Vec::new();
    for (p, clock) in t.processes.iter().enumerate() {
        let last = clock.first_rank + clock.ranks.saturating_sub(1);
        events.push(json!({
            "name": "process_name", "ph": "M", "pid": p,
            "args": { "name": format!("process {p} (ranks {}..={last})", clock.first_rank) },
        }));
        for rank in clock.first_rank..clock.first_rank + clock.ranks {
            events.push(json!({
                "name": "thread_name", "ph": "M", "pid": p, "tid": rank,
                "args": { "name": format!("rank {rank}") },
            }));
        }
    }
    for s in &t.spans {
        let cat = match (&s.kind, s.kind.activity()) {
            (SpanKind::Phase(_), _) => "phase",
            (_, Some(Activity::Wait)) => "wait",
            _ => "communicate",
        };
        let mut args = serde_json::Map::new();
        if let Some(peer) = s.peer {
            args.insert("peer".into(), json!(peer));
        }
        if !matches!(s.kind, SpanKind::Phase(_)) {
            args.insert("bytes".into(), json!(s.bytes));
        }
        events.push(json!({
            "name": s.kind.name(), "cat": cat, "ph": "X",
            "ts": us(s.start_ns), "dur": us(s.end_ns) - us(s.start_ns),
            "pid": s.process, "tid": s.rank, "args": args,
        }));
    }
    let clocks: Vec<Value> = t
        .processes
        .iter()
        .map(|c| json!({ "offset_ns": c.offset_ns, "uncertainty_ns": c.uncertainty_ns }))
        .collect();
    json!({
        "traceEvents": events,
        "displayTimeUnit": "ns",
        "otherData": {
            "producer": "dcuda",
            "origin_unix_ns": origin,
            "dropped_spans": t.dropped,
            "unclosed_phases": t.unclosed,
            "clocks": clocks,
        },
    })
    .to_string()
}
