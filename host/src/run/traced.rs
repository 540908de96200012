//! The end of a traced run: this process's spans read from the device,
//! every process's gathered, and the files written by process 0.

use super::config::RunReport;
use super::state::RunState;
use crate::error::{Error, Result};
use crate::model::Hop;
use crate::trace;
use crate::world::World;

/// The route between two processes the model prices: the direct route
/// where every process maps every other (one node), else the hosts.
fn cross_route(w: &World) -> Hop {
    if w.all_direct.load(std::sync::atomic::Ordering::Relaxed) {
        Hop::Peer
    } else {
        Hop::Host
    }
}

/// Reads this process's spans into `report` (a traced run that ended well).
pub(super) fn collect(
    state: &RunState,
    world: Option<&World>,
    report: &mut RunReport,
) -> Result<()> {
    let Some(memory) = &state.trace else {
        return Ok(());
    };
    let at = world.map_or((0, 0), |w| (w.first(), w.me()));
    let rt = memory.spans.runtime();
    report.trace = Some(trace::collect::collect(
        rt,
        memory,
        at,
        memory.clock_sync(),
    )?);
    Ok(())
}

/// Joins every process's spans (each process calls it) and writes the
/// files from process 0; warns when spans were lost.
pub(super) fn publish(
    state: &RunState,
    world: Option<&World>,
    report: &mut RunReport,
) -> Result<()> {
    let (Some(memory), Some(local)) = (&state.trace, report.trace.take()) else {
        return Ok(());
    };
    let full = match world {
        Some(w) => {
            trace::collect::decode_all(&w.gather_after_run(trace::collect::encode(&local))?)?
        }
        None => local,
    };
    if world.is_none_or(|w| w.me() == 0) {
        full.write(&memory.path).map_err(|e| Error::Io {
            what: format!("writing the trace {}", memory.path.display()),
            source: e,
        })?;
        let summary = trace::summary::summarise(&full);
        tracing::info!(target: "dcuda::trace", "wrote {} ({} spans of {} ranks); compute {:.1} us, communicate {:.1} us, wait {:.1} us over all ranks, overlap {:.3}",
            memory.path.display(), full.spans.len(), full.ranks(),
            summary.total.compute_ns as f64 / 1e3, summary.total.communicate_ns as f64 / 1e3,
            summary.total.wait_ns as f64 / 1e3, summary.total.overlap());
        if let Some(models) = &memory.models {
            let cross = world.map_or(Hop::Host, cross_route);
            let p = trace::predict(&full, models, cross);
            tracing::info!(target: "dcuda::trace", "{p} (route between processes: {})", cross.name());
        }
    }
    if full.dropped > 0 || full.unclosed > 0 {
        tracing::warn!(target: "dcuda::trace", "the trace is incomplete: {} spans did not fit the ranks' buffers (raise DCUDA_TRACE_SPANS, now {} per rank), {} phases never ended", full.dropped, memory.capacity, full.unclosed);
    }
    report.trace = Some(full);
    Ok(())
}
