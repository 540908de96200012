//! Notifications matched by source, window and tag, with wildcards (the
//! semantics of GPU RMA), for windows created with `win_create_matched`.
//!
//! Each rank has a log of records in device memory. A sender reserves a
//! position with an atomic add, waits while the log is full (back-pressure,
//! never loss), writes the record and publishes its sequence number with a
//! release. The owner scans its log in arrival order, consumes the first
//! `count` matching records, and retires consumed records at the tail.

use super::window::Window;
use super::Runtime;
use crate::abi::{Call, Fault, MatchRecord, RankContext, MATCH_LOG, USER_TAGS};
use crate::arch::{self, Ordering, Scope};
use crate::block::Block;

/// Which sender a match accepts.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Source {
    /// Any rank.
    Any,
    /// This rank of the window's communicator.
    Rank(u32),
}

/// A query for [`Rank::wait_match`](crate::Rank::wait_match) and [`Rank::test_match`](crate::Rank::test_match): every field
/// is a value or a wildcard (`None`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Match {
    source: Source,
    window: Option<u32>,
    tag: Option<u32>,
}

impl Match {
    /// Its fields and `count`, named, for the emulator's check that every
    /// thread of a rank waits for the same thing.
    pub(crate) fn fingerprint(&self, count: u32) -> [(&'static str, u64); 4] {
        let source = match self.source {
            Source::Any => u64::MAX,
            Source::Rank(r) => r as u64,
        };
        let or_any = |v: Option<u32>| v.map_or(u64::MAX, u64::from);
        [
            ("source", source),
            ("window", or_any(self.window)),
            ("tag", or_any(self.tag)),
            ("count", count as u64),
        ]
    }

    /// Matches every notification on matched windows.
    pub fn any() -> Self {
        Match {
            source: Source::Any,
            window: None,
            tag: None,
        }
    }

    /// Only from `source`.
    pub fn source(mut self, source: Source) -> Self {
        self.source = source;
        self
    }

    /// Only on `window`.
    pub fn window<T>(mut self, window: &Window<T>) -> Self {
        self.window = Some(window.id);
        self
    }

    /// Only with `tag`.
    pub fn tag(mut self, tag: u32) -> Self {
        self.tag = Some(tag);
        self
    }

    fn accepts(&self, r: &MatchRecord) -> bool {
        (match self.source {
            Source::Any => true,
            Source::Rank(s) => r.source == s,
        }) && self.window.is_none_or(|w| w == r.window)
            && self.tag.is_none_or(|t| t == r.tag)
    }
}

/// Consumes the first `count` records that `m` accepts, in arrival order,
/// if there are that many (leader thread only); `Err` carries how many.
fn try_match(ctx: &RankContext, rank: u32, m: &Match, count: u32) -> Result<u32, u32> {
    // SAFETY: this rank's log counters and records.
    unsafe {
        let retired_at = ctx.match_retired(rank);
        let mut retired = arch::load_relaxed(retired_at, Scope::Gpu);
        let reserved = arch::load_acquire(ctx.match_reserve(rank), Scope::Gpu);
        // Pass 1: count; pass 2: consume.
        for pass in 0..2 {
            let mut found = 0;
            let mut pos = retired;
            while pos != reserved && found < count {
                let r = ctx.match_record(rank, pos);
                if arch::load_acquire(&raw const (*r).seq, Scope::Gpu) != pos.wrapping_add(1) {
                    break; // Reserved but not yet written: later records wait their turn.
                }
                if (*r).consumed == 0 && m.accepts(&*r) {
                    found += 1;
                    if pass == 1 {
                        (*r).consumed = 1;
                    }
                }
                pos = pos.wrapping_add(1);
            }
            if pass == 0 && found < count {
                return Err(found);
            }
        }
        // Retire consumed records at the tail, freeing room for senders.
        while retired != reserved {
            let r = ctx.match_record(rank, retired);
            if arch::load_acquire(&raw const (*r).seq, Scope::Gpu) != retired.wrapping_add(1)
                || (*r).consumed == 0
            {
                break;
            }
            retired = retired.wrapping_add(1);
        }
        arch::store_release(retired_at, retired, Scope::Gpu);
    }
    Ok(1)
}

impl Runtime {
    /// Appends a record to the log of device rank `dev`, waiting while it
    /// is full.
    #[inline(always)]
    pub fn log_match(&mut self, block: &mut Block, dev: u32, source: u32, window: u32, tag: u32) {
        block.sync(); // Every thread's copy precedes the record.
        let ctx = *self.ctx();
        let pos = block.single(|_| {
            // SAFETY: the target's reservation counter.
            unsafe { arch::fetch_add(ctx.match_reserve(dev), 1, Ordering::Relaxed, Scope::Gpu) }
        });
        self.wait_until(block, Call::PutNotify, [window, tag, dev], || {
            // SAFETY: the target's retirement counter.
            let retired = unsafe { arch::load_acquire(ctx.match_retired(dev), Scope::Gpu) };
            let used = pos.wrapping_sub(retired);
            if used < MATCH_LOG as u32 {
                Ok(0)
            } else {
                Err(used)
            }
        });
        block.leader(|_| {
            let r = ctx.match_record(dev, pos);
            // SAFETY: position `pos` is ours until published.
            unsafe {
                (*r).source = source;
                (*r).window = window;
                (*r).tag = tag;
                (*r).consumed = 0;
                arch::store_release(&raw mut (*r).seq, pos.wrapping_add(1), Scope::Gpu);
            }
        });
    }

    fn check_match(&self, block: &mut Block, call: Call, m: &Match, count: u32) {
        if let Some(tag) = m.tag {
            if tag >= USER_TAGS {
                self.check_user_tag(block, call, tag);
            }
        }
        if count == 0 || count as usize > MATCH_LOG {
            self.fail(
                block,
                call,
                Fault::CountTooLarge,
                [count as u64, MATCH_LOG as u64, 0, 0],
            );
        }
    }

    /// Waits until `count` notifications that `m` accepts have arrived on
    /// matched windows, and consumes the oldest `count` of them.
    #[inline(always)]
    pub fn wait_match(&mut self, block: &mut Block, m: Match, count: u32) {
        self.check_match(block, Call::WaitMatch, &m, count);
        let (ctx, id) = (*self.ctx(), block.id());
        let args = [
            m.tag.unwrap_or(u32::MAX),
            count,
            match m.source {
                Source::Any => u32::MAX,
                Source::Rank(r) => r,
            },
        ];
        self.wait_until(block, Call::WaitMatch, args, || {
            try_match(&ctx, id, &m, count)
        });
    }

    /// Consumes `count` notifications that `m` accepts if that many have
    /// arrived; returns whether it did. Never waits.
    #[inline(always)]
    pub fn test_match(&mut self, block: &mut Block, m: Match, count: u32) -> bool {
        self.check_match(block, Call::TestMatch, &m, count);
        let (ctx, id) = (*self.ctx(), block.id());
        let (status, streak) = (ctx.status(id), &mut self.tests);
        let source = match m.source {
            Source::Any => u32::MAX,
            Source::Rank(r) => r,
        };
        let r = block.single(|_| match try_match(&ctx, id, &m, count) {
            Ok(_) => {
                streak.succeeded(status);
                1
            }
            Err(seen) => {
                let args = [m.tag.unwrap_or(u32::MAX), count, source];
                if streak.failed(&ctx, status, Call::TestMatch, args, seen) {
                    2
                } else {
                    0
                }
            }
        });
        if r == 2 {
            super::wait::abort_exit()
        }
        r == 1
    }
}
