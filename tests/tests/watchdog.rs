//! The watchdog: a run that stops making progress ends with a report of
//! who waits on what, and memory freed meanwhile waits for that end
//! instead of hanging the run. Runs on the emulator in CI and on the GPU
//! under `scripts/gpu-run.sh`.

use dcuda::{Error, RunConfig};
use dcuda_rank_kernels::runtime_checks::*;
use std::time::Duration;

mod runtime_setup;
use runtime_setup::{setup, Buffers};

/// A run of `ranks` ranks of 32 threads whose watchdog reports after
/// 800 ms without progress.
fn watched(ranks: u32) -> RunConfig {
    RunConfig::new(32)
        .ranks(ranks)
        .watchdog(Some(Duration::from_millis(800)))
}

/// The kernel and report of a run the watchdog ended; panics otherwise.
fn watchdog_report<T: std::fmt::Debug>(outcome: Result<T, Error>) -> (String, String) {
    match outcome {
        Err(Error::Watchdog { kernel, report }) => (kernel, report),
        other => panic!("expected the watchdog, got {other:?}"),
    }
}

#[test]
fn watchdog_reports_who_waits_on_what() {
    let (rt, module) = setup();
    let mut b = Buffers::new(&rt, 3, 1);
    let config = watched(3);
    // SAFETY: buffers hold 1 word per rank.
    let (kernel, report) =
        watchdog_report(unsafe { module.run(&DEADLOCK, &config, &b.args(0, 0)) });
    assert_eq!(kernel, "deadlock");
    assert!(
        report.contains("rank 2: wait_notifications(tag 5, count 1): 0 available"),
        "{report}"
    );
    // Rank 0 arrives with the barrier's big add; the count is still 2.
    for r in 0..2 {
        let line = format!("rank {r}: barrier over 3 ranks: 2 arrived");
        assert!(report.contains(&line), "{report}");
    }
}

/// Freeing memory waits in the driver for the GPU to idle; done while a
/// rank kernel runs, it used to stall the run's own driver calls too (the
/// watchdog's abort here), and both waited forever. It now waits for the
/// run's end first. Also from a thread of its own, as parallel tests do.
#[test]
fn memory_freed_during_a_run_waits_for_its_end() {
    let (rt, module) = setup();
    let mut b = Buffers::new(&rt, 3, 1);
    let config = watched(3);
    for other_thread in [false, true] {
        // SAFETY: buffers hold 1 word per rank.
        let run = unsafe { module.start(&DEADLOCK, &config, &b.args(0, 0)) }.unwrap();
        let spare = rt.alloc::<u32>(1 << 20).unwrap();
        let mapped = rt.alloc_mapped::<u32>(1 << 10).unwrap();
        if other_thread {
            std::thread::scope(|s| {
                s.spawn(move || drop((spare, mapped)));
            });
        } else {
            drop((spare, mapped));
        }
        assert_eq!(watchdog_report(run.wait()).0, "deadlock");
    }
}

#[test]
fn watchdog_reports_ranks_that_poll_forever_with_live_counts() {
    let (rt, module) = setup();
    let mut b = Buffers::new(&rt, 2, 1);
    let config = watched(2);
    // SAFETY: buffers hold 1 word per rank.
    let (_, report) = watchdog_report(unsafe { module.run(&POLL_FOREVER, &config, &b.args(0, 0)) });
    assert!(
        report.contains("rank 0: test_notifications(tag 6, count 1) keeps failing: 0 available"),
        "{report}"
    );
    assert!(
        report.contains("rank 1: wait_notifications(tag 4, count 5): 3 available"),
        "{report}"
    );
}
