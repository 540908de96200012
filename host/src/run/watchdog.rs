//! The watchdog: when every unfinished rank has waited without progress
//! for its patience, it reports what each waits on and aborts the run.

use super::describe::describe_wait;
use super::state::RunState;
use dcuda_device::abi::STATUS_FINISHED;
use std::time::{Duration, Instant};

/// How often the ranks' wait states are looked at.
const LOOK_EVERY: Duration = Duration::from_millis(20);

pub(super) struct Watchdog {
    patience: Option<Duration>,
    last_change: Instant,
    last_look: Instant,
    /// Every rank's (state, count seen) at the last look.
    last_states: Vec<(u32, u32)>,
    /// The report, once it fired.
    pub fired: Option<String>,
}

impl Watchdog {
    pub fn new(patience: Option<Duration>) -> Watchdog {
        Watchdog {
            patience,
            last_change: Instant::now(),
            last_look: Instant::now(),
            last_states: Vec::new(),
            fired: None,
        }
    }

    /// Something happened: the clock starts again.
    pub fn progressed(&mut self) {
        self.last_change = Instant::now();
    }

    /// Looks at the ranks now and then; returns the report when it fires
    /// (once).
    pub fn check(&mut self, state: &RunState) -> Option<String> {
        if self.last_look.elapsed() < LOOK_EVERY {
            return None;
        }
        self.last_look = Instant::now();
        // A wait whose count moves is progress, too.
        let states: Vec<(u32, u32)> = (0..state.ranks)
            .map(|r| {
                let s = state.status(r);
                (s.state, s.seen)
            })
            .collect();
        if states != self.last_states {
            self.last_states = states;
            self.last_change = Instant::now();
            return None;
        }
        let limit = self.patience?;
        let stuck = self.last_states.iter().all(|&(s, _)| s != 0)
            && self.last_states.iter().any(|&(s, _)| s != STATUS_FINISHED);
        if !stuck || self.fired.is_some() || self.last_change.elapsed() < limit {
            return None;
        }
        let mut text = format!(
            "dcuda watchdog: no progress for {:.1} s and every unfinished rank is waiting:",
            self.last_change.elapsed().as_secs_f64()
        );
        for r in 0..state.ranks {
            let s = state.status(r);
            if s.state != STATUS_FINISHED {
                text.push('\n');
                text.push_str(&describe_wait(r, &s));
            }
        }
        self.fired = Some(text.clone());
        Some(text)
    }
}
