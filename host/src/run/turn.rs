//! One rank kernel at a time on a GPU, per process. A rank kernel fills the
//! GPU and needs all its blocks resident at once; two launched together
//! (two threads of a program, or parallel tests) can each hold part of the
//! GPU and wait forever for the rest. Runs take turns instead: a second
//! `start` on the same GPU waits for the first run to end.

use crate::backend::Backend;
use crate::runtime::DeviceInfo;
use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};

/// Ordinals of the GPUs of this process with a rank kernel running.
static BUSY: Mutex<Vec<usize>> = Mutex::new(Vec::new());
static FREED: Condvar = Condvar::new();

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
}
