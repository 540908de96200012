//! Logging. The library writes nothing itself: it emits `tracing` events,
//! and a program decides where they go. [`init`] is the one-line choice
//! for programs that want dcuda's messages on standard error, filtered by
//! `DCUDA_LOG`.
//!
//! | target | level | what |
//! | --- | --- | --- |
//! | `dcuda` | `info` | the backend chosen, a process's place in its job |
//! | `dcuda` | `warn` | a peer's window reached through the host instead of directly |
//! | `dcuda` | `error` | the watchdog's report; a job aborted after a failure |
//! | `dcuda` | `warn` | messages from other processes a run's ranks never received |
//! | `dcuda::messages` | `debug` | a message delivered out of turn through a rank's express slot (its inbox was full) |
//! | `dcuda::trace` | `info` | a traced run's files and its totals of computing, communicating and waiting |
//! | `dcuda::trace` | `warn` | spans a traced run dropped (full buffers) or phases it never ended |
//! | `dcuda::rank` | `info` | the live rank log (`rank_log!`), with the world rank as field `rank` |

use tracing_subscriber::EnvFilter;

/// Sends dcuda's (and the program's) `tracing` events to standard error,
/// filtered by `DCUDA_LOG` (a `tracing` filter: `info`, `warn`,
/// `dcuda::rank=off`, `dcuda::rank[{rank=3}]`, ...; default `info`). Does
/// nothing if the program installed a subscriber already.
pub fn init() {
    let filter =
        EnvFilter::try_from_env(crate::config::LOG.name).unwrap_or_else(|_| EnvFilter::new("info"));
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_writer(std::io::stderr)
        .with_ansi(std::io::IsTerminal::is_terminal(&std::io::stderr()))
        .without_time()
        .try_init();
}
