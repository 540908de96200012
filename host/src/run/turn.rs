//! One rank kernel at a time on a GPU, per process. A rank kernel fills the
//! GPU and needs all its blocks resident at once; two launched together
//! (two threads of a program, or parallel tests) can each hold part of the
//! GPU and wait forever for the rest. Runs take turns instead: a second
//! `start` on the same GPU waits for the first run to end.
//!
//! Freeing memory and unloading a module wait in the driver until the GPU
//! is idle, and allocating memory and loading a module serialise its
//! streams; a rank kernel ends only when its host threads can still reach
//! the driver (to raise the abort flag, read an error, copy for the host
//! route). Called from another thread during a run, such a call stalled
//! those threads too and the run never ended: parallel tests on one H200
//! hung, and a run whose program freed a buffer before waiting for it.
//! These calls take a turn of their own instead ([`Turn::for_idle_wait`]),
//! so they wait for the run's end outside the driver.

use crate::backend::Backend;
use crate::runtime::DeviceInfo;
use std::cell::Cell;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Ordinals of the GPUs of this process with a rank kernel running.
static BUSY: Mutex<Vec<usize>> = Mutex::new(Vec::new());
static FREED: Condvar = Condvar::new();

thread_local! {
    /// Whether this thread is one of a run's own (its progress thread,
    /// the world's receiver), which never waits for a turn to free.
    static SERVES_RUNS: Cell<bool> = const { Cell::new(false) };
}

/// Marks the calling thread as one of a run's own until the guard is
/// dropped: what it frees, it frees after the kernel ended or before it
/// started (a failed start), or while serving it, and it never waits for
/// the turn its run holds.
pub(crate) fn serving() -> Serving {
    Serving(SERVES_RUNS.with(|s| s.replace(true)))
}

/// See [`serving`].
pub(crate) struct Serving(bool);

impl Drop for Serving {
    fn drop(&mut self) {
        SERVES_RUNS.with(|s| s.set(self.0));
    }
}

/// A run's turn on its GPU, held until the run ends (dropped).
pub(crate) struct Turn(Option<usize>);

fn busy() -> MutexGuard<'static, Vec<usize>> {
    // The list stays consistent even if a holder panicked.
    BUSY.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Turn {
    /// Waits until no other rank kernel of this process runs on the
    /// device. The emulator gives every run threads of its own: no wait.
    pub(crate) fn take(device: &DeviceInfo) -> Turn {
        if device.backend != Backend::Gpu {
            return Turn(None);
        }
        let mut busy = busy();
        while busy.contains(&device.ordinal) {
            busy = FREED.wait(busy).unwrap_or_else(PoisonError::into_inner);
        }
        busy.push(device.ordinal);
        Turn(Some(device.ordinal))
    }

    /// A turn for a driver call that waits for the whole GPU to be idle or
    /// serialises its streams (allocating, freeing, loading and unloading
    /// modules): waits for this process's rank kernel on the device to
    /// end, and keeps the next from starting until dropped. None on a
    /// run's own threads.
    pub(crate) fn for_idle_wait(device: &DeviceInfo) -> Turn {
        if SERVES_RUNS.with(Cell::get) {
            return Turn(None);
        }
        Self::take(device)
    }
}

impl Drop for Turn {
    fn drop(&mut self) {
        if let Some(ordinal) = self.0 {
            busy().retain(|&o| o != ordinal);
            FREED.notify_all();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    fn gpu(ordinal: usize) -> DeviceInfo {
        DeviceInfo {
            backend: Backend::Gpu,
            name: "test".into(),
            ordinal,
            compute_capability: Some(90),
            multiprocessors: 1,
        }
    }

    #[test]
    fn a_second_run_on_a_gpu_waits_for_the_first() {
        // Ordinal 1000: no real run of this process uses it.
        let first = Turn::take(&gpu(1000));
        let started = Arc::new(AtomicBool::new(false));
        let s = started.clone();
        let second = std::thread::spawn(move || {
            let _turn = Turn::take(&gpu(1000));
            s.store(true, Ordering::SeqCst);
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(
            !started.load(Ordering::SeqCst),
            "the second run did not wait"
        );
        // Another GPU is free.
        drop(Turn::take(&gpu(1001)));
        drop(first);
        second.join().unwrap();
        assert!(started.load(Ordering::SeqCst));
    }

    #[test]
    fn a_free_waits_for_the_run_but_not_on_the_runs_own_threads() {
        let run = Turn::take(&gpu(1002));
        // A run's own thread frees at once.
        std::thread::spawn(|| {
            let _serving = serving();
            drop(Turn::for_idle_wait(&gpu(1002)));
        })
        .join()
        .unwrap();
        let freed = Arc::new(AtomicBool::new(false));
        let f = freed.clone();
        let other = std::thread::spawn(move || {
            let _turn = Turn::for_idle_wait(&gpu(1002));
            f.store(true, Ordering::SeqCst);
        });
        std::thread::sleep(Duration::from_millis(50));
        assert!(!freed.load(Ordering::SeqCst), "the free did not wait");
        drop(run);
        other.join().unwrap();
        assert!(freed.load(Ordering::SeqCst));
    }
}
