//! The trace checks of `kernels-ptx/ranks/src/traced.rs`, shared by the
//! one-device test (`tests/trace.rs`) and `world_checks`: a traced run's
//! spans match the calls made, nest, lie inside the run on the host's
//! clock, and the files it writes parse.

use dcuda::trace::{SpanKind, Trace};
use dcuda::{Module, RunConfig, Runtime};
use dcuda_rank_kernels::traced::{TracedArgs, TRACED_RING};
use std::path::Path;

/// Rounds and elements per put of the traced ring.
pub const ROUNDS: u32 = 5;
const LEN: u32 = 16;

/// Runs the traced ring with `ranks` ranks on this device (`spans` per
/// rank; `unbalanced`: one `trace_end` too many), writing to `path`.
pub fn run_traced(
    rt: &Runtime,
    module: &Module,
    (ranks, spans, unbalanced): (u32, u32, bool),
    path: &Path,
) -> Result<(Trace, (u64, u64)), String> {
    let buf = rt
        .alloc::<u64>((ranks * 2 * LEN) as usize)
        .map_err(|e| e.to_string())?;
    let args = TracedArgs {
        rounds: ROUNDS,
        len: LEN,
        unbalanced: unbalanced as u32,
        buf: buf.slice(),
    };
    let config = RunConfig::new(64)
        .ranks(ranks)
        .trace(path)
        .trace_spans(spans);
    let now = dcuda::trace::unix_ns;
    let before = now();
    // SAFETY: 2 * LEN elements per rank.
    let report = unsafe { module.run(&TRACED_RING, &config, &args) }.map_err(|e| e.to_string())?;
    let after = now();
    let trace = report.trace.ok_or("a traced run reported no trace")?;
    Ok((trace, (before, after)))
}

/// Checks a complete trace of the ring over `world` ranks in `processes`
/// processes, run between host times `window`, and the files at `path`
/// (`None`: another process wrote them).
pub fn check_trace(
    trace: &Trace,
    (world, processes): (u32, u32),
    window: (u64, u64),
    path: Option<&Path>,
) -> Result<(), String> {
    if trace.processes.len() != processes as usize || trace.ranks() != world {
        return Err(format!(
            "{} processes with {} ranks, want {processes} with {world}",
            trace.processes.len(),
            trace.ranks()
        ));
    }
    if trace.dropped != 0 || trace.unclosed != 0 {
        return Err(format!(
            "{} dropped, {} unclosed",
            trace.dropped, trace.unclosed
        ));
    }
    let slack = trace
        .processes
        .iter()
        .map(|p| p.uncertainty_ns)
        .max()
        .unwrap_or(0);
    for rank in 0..world {
        let spans: Vec<_> = trace.spans.iter().filter(|s| s.rank == rank).collect();
        let count = |name: &str| spans.iter().filter(|s| s.kind.name() == name).count();
        let want = [
            ("compute", ROUNDS),
            ("inner", ROUNDS),
            ("halo", ROUNDS),
            ("put_notify", ROUNDS),
            ("wait_notifications", ROUNDS),
            ("flush", ROUNDS),
            ("barrier", 1),
            ("win_create", 1),
            ("win_free", 1),
        ];
        for (name, n) in want {
            if count(name) != n as usize {
                return Err(format!(
                    "rank {rank}: {} {name} spans, want {n}",
                    count(name)
                ));
            }
        }
        if spans.len() != want.iter().map(|w| w.1 as usize).sum::<usize>() {
            return Err(format!("rank {rank}: {} spans in all", spans.len()));
        }
        for s in &spans {
            if s.start_ns > s.end_ns || s.start_ns + slack < window.0 || s.end_ns > window.1 + slack
            {
                return Err(format!(
                    "rank {rank}: {s:?} outside the run {window:?} (clock error {slack} ns)"
                ));
            }
            // Each call and phase sits inside the phase the kernel put it in.
            let parent = match s.kind.name() {
                "put_notify" | "wait_notifications" | "flush" => Some("halo"),
                "inner" => Some("compute"),
                _ => None,
            };
            let inside = spans.iter().any(|p| {
                Some(p.kind.name()) == parent && p.start_ns <= s.start_ns && s.end_ns <= p.end_ns
            });
            if s.depth != parent.is_some() as u32 || (parent.is_some() && !inside) {
                return Err(format!(
                    "rank {rank}: {s:?} is not inside its {parent:?} phase"
                ));
            }
            if s.kind == SpanKind::Call("put_notify")
                && (s.peer != Some((rank + 1) % world) || s.bytes != LEN as u64 * 8)
            {
                return Err(format!(
                    "rank {rank}: put_notify to {:?} of {} bytes",
                    s.peer, s.bytes
                ));
            }
        }
    }
    path.map_or(Ok(()), |p| check_files(trace, p))
}

/// The traced ring across the processes of a job (`world_checks`): every
/// process gets every rank's spans, on one clock; process 0 writes the
/// files.
pub fn check_traced_world(
    rt: &Runtime,
    module: &Module,
    (ranks, world): (u32, u32),
    (process, processes): (u32, u32),
) -> Result<(), String> {
    let path = std::env::temp_dir().join(format!("dcuda-world-trace-{}.json", std::process::id()));
    let (trace, window) = run_traced(rt, module, (ranks, 4096, false), &path)?;
    // Other processes' spans may start before this one's run began (its
    // setup waits for theirs): check the window on this process's only.
    let (first, last) = trace.bounds();
    if first > window.1 || last < window.0 {
        return Err(format!(
            "the job's spans {first}..{last} miss this run {window:?}"
        ));
    }
    let mine = (window.0.min(first), window.1.max(last));
    check_trace(
        &trace,
        (world, processes),
        mine,
        (process == 0).then_some(path.as_path()),
    )
}

/// The JSON parses and has an event per span, the SVG and the summary
/// are there.
fn check_files(trace: &Trace, path: &Path) -> Result<(), String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let json: serde_json::Value = serde_json::from_str(&text).map_err(|e| e.to_string())?;
    let events = json["traceEvents"].as_array().ok_or("no traceEvents")?;
    let complete = events.iter().filter(|e| e["ph"] == "X").count();
    if complete != trace.spans.len() {
        return Err(format!(
            "{complete} complete events for {} spans",
            trace.spans.len()
        ));
    }
    let svg = std::fs::read_to_string(path.with_extension("svg")).map_err(|e| e.to_string())?;
    if !svg.starts_with("<svg") || !svg.contains("halo") {
        return Err("the SVG timeline lacks its legend".into());
    }
    let plot =
        std::fs::read_to_string(path.with_extension("breakdown.svg")).map_err(|e| e.to_string())?;
    if !plot.contains("all ranks, halo") || !plot.contains(">wait</text>") {
        return Err("the breakdown plot lacks the phase's bar or its legend".into());
    }
    let summary = std::fs::read_to_string(path.with_extension("txt")).map_err(|e| e.to_string())?;
    if !summary.contains("(total)") || !summary.contains("halo") {
        return Err(format!("summary without totals: {summary}"));
    }
    Ok(())
}

// ANCHOR: predict
/// The ring's communication priced by a model of the same-GPU route (as
/// `bench` fits and writes it to `model-device.csv`): predicted beside
/// measured, per rank.
pub fn predicted(trace: &Trace) -> dcuda::trace::Prediction {
    use dcuda::model::{Hop, Model, RouteModels};
    let mut models = RouteModels::default();
    let put = Model {
        alpha_us: 1.69,
        beta_us_per_byte: 5.5e-5,
        max_error: 0.15,
    };
    models.set(Hop::Device, put);
    // Or: RouteModels::read("model-device.csv,model-peer.csv")?
    dcuda::trace::predict(trace, &models, Hop::Peer)
}
// ANCHOR_END: predict
