//! From the device's trace buffers to a [`Trace`]: the run's memory for
//! spans, the clock reading, decoding each rank's spans, and the exchange
//! between processes.

use super::{ProcessClock, Span, SpanKind, Trace};
use crate::error::{Error, Result};
use crate::memory::{DeviceBuffer, MappedBuffer};
use crate::runtime::Runtime;
use crate::world::wire::{Reader, Writer};
use dcuda_device::abi::{Call, TraceSpan, TRACE_PHASE};
use std::collections::HashMap;

/// Longest phase name kept (bytes).
const NAME_MAX: usize = 64;

/// A traced run's buffers: `[ranks][capacity]` spans and `[ranks]` counts.
pub(crate) struct TraceMemory {
    pub spans: DeviceBuffer<u8>,
    pub counts: DeviceBuffer<u32>,
    pub capacity: u32,
    pub path: std::path::PathBuf,
    /// `[before, host, after]`: see [`ClockSync`].
    pub clock: MappedBuffer<u64>,
    /// The route models `DCUDA_MODEL` names, read when the run starts.
    pub models: Option<crate::model::RouteModels>,
}

impl TraceMemory {
    /// Buffers for `ranks` ranks of a run traced to `path`.
    pub fn new(
        rt: &Runtime,
        ranks: u32,
        (path, capacity): (std::path::PathBuf, u32),
    ) -> Result<TraceMemory> {
        let bytes = ranks as usize * capacity as usize * std::mem::size_of::<TraceSpan>();
        Ok(TraceMemory {
            spans: rt.alloc::<u8>(bytes)?,
            counts: rt.alloc::<u32>(ranks as usize)?,
            capacity,
            path,
            clock: rt.alloc_mapped::<u64>(3)?,
            models: crate::config::MODEL
                .value()
                .map(|paths| crate::model::RouteModels::read(&paths))
                .transpose()?,
        })
    }

    /// Answers device rank 0's clock reading with the host's (the progress
    /// loop calls it while the kernel runs).
    pub fn serve_clock(&self) {
        if self.clock.load_acquire(0) != 0 && self.clock.load_acquire(1) == 0 {
            self.clock.store_release(1, ClockSync::host_now());
        }
    }

    /// The clock reading, once the kernel has ended (`None` if rank 0
    /// never finished it).
    pub fn clock_sync(&self) -> Option<ClockSync> {
        let c = ClockSync {
            before: self.clock.load_acquire(0),
            host: self.clock.load_acquire(1),
            after: self.clock.load_acquire(2),
        };
        (c.before != 0 && c.host != 0 && c.after != 0).then_some(c)
    }
}

/// Device rank 0's clock around the host's reading at the end of the run.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ClockSync {
    pub before: u64,
    pub host: u64,
    pub after: u64,
}

impl ClockSync {
    /// The host clock now.
    pub fn host_now() -> u64 {
        super::unix_ns()
    }

    /// Host minus device clock, and its error bound.
    fn offset(&self) -> (i64, u64) {
        let mid = self.before / 2 + self.after / 2;
        (
            self.host as i64 - mid as i64,
            self.after.saturating_sub(self.before) / 2,
        )
    }
}

/// This process's spans, read from the device after the run: world ranks
/// from `first`, placed on the host clock with `clock`.
pub(crate) fn collect(
    rt: &Runtime,
    memory: &TraceMemory,
    (first, process): (u32, u32),
    clock: Option<ClockSync>,
) -> Result<Trace> {
    let clock = clock.ok_or_else(|| Error::Network {
        call: "trace",
        reason: "the run ended without the clock reading of its rank 0".into(),
    })?;
    let (offset, uncertainty) = clock.offset();
    let counts = memory.counts.download()?;
    let raw = memory.spans.download()?;
    let all: &[TraceSpan] = bytemuck::cast_slice(&raw);
    let mut names: HashMap<(u64, u32), String> = HashMap::new();
    let mut trace = Trace {
        processes: vec![ProcessClock {
            first_rank: first,
            ranks: counts.len() as u32,
            offset_ns: offset,
            uncertainty_ns: uncertainty,
        }],
        ..Trace::default()
    };
    let cap = memory.capacity as usize;
    let host = |t: u64| (t as i64).saturating_add(offset).max(0) as u64;
    for (dev, &count) in counts.iter().enumerate() {
        let kept = (count as usize).min(cap);
        trace.dropped += (count as usize - kept) as u64;
        let mut spans = Vec::with_capacity(kept);
        for s in &all[dev * cap..dev * cap + kept] {
            let kind = if s.what & TRACE_PHASE != 0 {
                let key = (s.arg, s.peer.min(NAME_MAX as u32));
                let name = match names.get(&key) {
                    Some(n) => n.clone(),
                    None => {
                        let mut bytes = vec![0u8; key.1 as usize];
                        rt.read_device(key.0, &mut bytes)?;
                        let n = String::from_utf8_lossy(&bytes).into_owned();
                        names.insert(key, n.clone());
                        n
                    }
                };
                SpanKind::Phase(name)
            } else {
                SpanKind::Call(Call::from_u32(s.what).map_or("unknown call", |c| c.name()))
            };
            let end = if s.end == 0 {
                trace.unclosed += 1;
                s.start
            } else {
                s.end
            };
            spans.push(Span {
                rank: first + dev as u32,
                process,
                start_ns: host(s.start),
                end_ns: host(end.max(s.start)),
                kind,
                peer: (s.peer != u32::MAX && s.what & TRACE_PHASE == 0).then_some(s.peer),
                bytes: if s.what & TRACE_PHASE != 0 { 0 } else { s.arg },
                depth: 0,
            });
        }
        nest(&mut spans);
        trace.spans.extend(spans);
    }
    Ok(trace)
}

/// Orders one rank's spans by start (outer first) and sets their depth.
fn nest(spans: &mut [Span]) {
    spans.sort_by_key(|s| (s.start_ns, std::cmp::Reverse(s.end_ns)));
    let mut open: Vec<u64> = Vec::new();
    for s in spans.iter_mut() {
        while open.last().is_some_and(|&end| end <= s.start_ns) {
            open.pop();
        }
        s.depth = open.len() as u32;
        open.push(s.end_ns);
    }
}

/// This process's part of a trace, for the exchange between processes.
pub(crate) fn encode(t: &Trace) -> Vec<u8> {
    let p = t.processes.first().copied().unwrap_or_default();
    let mut w = Writer::default()
        .u32(p.first_rank)
        .u32(p.ranks)
        .u64(p.offset_ns as u64)
        .u64(p.uncertainty_ns)
        .u64(t.dropped)
        .u64(t.unclosed)
        .u32(t.spans.len() as u32);
    for s in &t.spans {
        let (phase, name) = match &s.kind {
            SpanKind::Phase(n) => (1, n.as_str()),
            SpanKind::Call(n) => (0, *n),
        };
        w = w
            .u32(s.rank)
            .u64(s.start_ns)
            .u64(s.end_ns)
            .u32(s.peer.unwrap_or(u32::MAX))
            .u64(s.bytes)
            .u32(s.depth)
            .u8(phase)
            .bytes(name.as_bytes());
    }
    w.0
}

/// Joins the parts of every process, in process order.
pub(crate) fn decode_all(parts: &[Vec<u8>]) -> Result<Trace> {
    let mut trace = Trace::default();
    for (process, part) in parts.iter().enumerate() {
        let mut r = Reader::new(part, "trace");
        trace.processes.push(ProcessClock {
            first_rank: r.u32()?,
            ranks: r.u32()?,
            offset_ns: r.u64()? as i64,
            uncertainty_ns: r.u64()?,
        });
        trace.dropped += r.u64()?;
        trace.unclosed += r.u64()?;
        for _ in 0..r.u32()? {
            let (rank, start_ns, end_ns, peer, bytes, depth) =
                (r.u32()?, r.u64()?, r.u64()?, r.u32()?, r.u64()?, r.u32()?);
            let phase = r.u8()? == 1;
            let name = String::from_utf8_lossy(r.bytes()?).into_owned();
            let kind = if phase {
                SpanKind::Phase(name)
            } else {
                SpanKind::Call(call_name(&name))
            };
            trace.spans.push(Span {
                rank,
                process: process as u32,
                start_ns,
                end_ns,
                kind,
                peer: (peer != u32::MAX).then_some(peer),
                bytes,
                depth,
            });
        }
        r.finish()?;
    }
    Ok(trace)
}

/// The static name of a call named `name` by another process.
fn call_name(name: &str) -> &'static str {
    (0..64)
        .filter_map(Call::from_u32)
        .map(|c| c.name())
        .find(|n| *n == name)
        .unwrap_or("unknown call")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spans_nest_by_time_and_parts_round_trip() {
        let span = |start, end, kind| Span {
            rank: 3,
            process: 0,
            start_ns: start,
            end_ns: end,
            kind,
            peer: Some(1),
            bytes: 8,
            depth: 9,
        };
        let mut spans = vec![
            span(20, 30, SpanKind::Call("put_notify")),
            span(10, 100, SpanKind::Phase("halo".into())),
            span(40, 90, SpanKind::Call("wait_notifications")),
            span(100, 120, SpanKind::Phase("compute".into())),
        ];
        nest(&mut spans);
        let depths: Vec<u32> = spans.iter().map(|s| s.depth).collect();
        assert_eq!(depths, [0, 1, 1, 0]);
        let trace = Trace {
            spans,
            processes: vec![ProcessClock {
                first_rank: 3,
                ranks: 1,
                offset_ns: -5,
                uncertainty_ns: 2,
            }],
            dropped: 4,
            unclosed: 1,
        };
        assert_eq!(decode_all(&[encode(&trace)]).unwrap(), trace);
    }
}
